package releasetest

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"

	"github.com/gocodex/gocodex/internal/version"
)

// TestGoInstallFromModuleProxy is what the README's Install section tells a Go user to run,
// `go install github.com/gocodex/gocodex/cmd/gocodex@latest`, against a module proxy folder
// made from this tree as the commit's pseudo-version. It fails if go.mod has a replace
// directive or the module needs anything outside itself that its go.mod does not require.
// The other modules come from this machine's module cache, then its GOPROXY; the test's own
// module cache is removed afterwards, so nothing is left in the machine's.
func TestGoInstallFromModuleProxy(t *testing.T) {
	needReleaseTests(t)
	root := repoRoot(t)
	tmp := t.TempDir()
	secs, err := strconv.ParseInt(git(t, root, "log", "-1", "--format=%ct", "HEAD"), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	when := time.Unix(secs, 0).UTC()
	ver := module.PseudoVersion("", "", when, git(t, root, "rev-parse", "--short=12", "HEAD"))
	proxy := filepath.Join(tmp, "proxy")
	writeProxy(t, root, proxy, ver, when)

	goenv := func(name string) string {
		out, err := exec.Command("go", "env", name).Output()
		if err != nil {
			t.Fatalf("go env %s: %v", name, err)
		}
		return strings.TrimSpace(string(out))
	}
	// The machine's module cache is a proxy folder too (its cache/download), so modules it has
	// are not downloaded again; what it lacks comes from the machine's own GOPROXY.
	proxies := "file://" + filepath.ToSlash(proxy) + ",file://" + filepath.ToSlash(filepath.Join(goenv("GOMODCACHE"), "cache", "download"))
	if p := goenv("GOPROXY"); p != "" {
		proxies += "," + p
	}
	modcache, gobin := filepath.Join(tmp, "modcache"), filepath.Join(tmp, "bin")
	env := append(os.Environ(),
		"GOPROXY="+proxies,
		"GOMODCACHE="+modcache,
		"GOBIN="+gobin,
		"GOFLAGS=-mod=mod",
		"GONOSUMDB="+modulePath, // this pseudo-version is in no checksum database; the others are checked against go.sum
		"GOTOOLCHAIN=local",
		"CGO_ENABLED=0",
	)
	t.Cleanup(func() {
		// The module cache is read-only: go clean removes it.
		clean := exec.Command("go", "clean", "-modcache")
		clean.Env = env
		if out, err := clean.CombinedOutput(); err != nil {
			t.Errorf("go clean -modcache: %v\n%s", err, out)
		}
	})
	start := time.Now()
	install := exec.Command("go", "install", "-trimpath", "-ldflags=-s -w", modulePath+"/cmd/gocodex@latest")
	install.Dir = tmp // outside any module, as a user would be
	install.Env = env
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("go install %s/cmd/gocodex@latest: %v\n%s", modulePath, err, out)
	}
	t.Logf("go install took %v", time.Since(start).Round(time.Second))

	out, err := exec.Command(filepath.Join(gobin, "gocodex"), "--version").Output()
	want := "gocodex " + strings.TrimPrefix(ver, "v") + " (codex " + version.CodexProtocol + " compatible)\n"
	if err != nil || string(out) != want {
		t.Errorf("installed gocodex --version = %q, %v; want %q (the module version go install recorded)", out, err, want)
	}
}

// writeProxy writes a module proxy folder (GOPROXY=file://DIR) serving this tree as module
// version ver: @latest names it, and @v holds its .info, .mod and .zip. The zip holds the
// files git tracks, as they are in the work tree (x/mod/zip leaves out the nested modules,
// examples/ and bench/).
func writeProxy(t *testing.T, root, dir, ver string, when time.Time) {
	t.Helper()
	escaped, err := module.EscapePath(modulePath)
	if err != nil {
		t.Fatal(err)
	}
	vdir := filepath.Join(dir, filepath.FromSlash(escaped), "@v")
	if err := os.MkdirAll(vdir, 0o755); err != nil {
		t.Fatal(err)
	}
	info, _ := json.Marshal(map[string]any{"Version": ver, "Time": when.Format(time.RFC3339)})
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{
		filepath.Join(vdir, "list"):          nil, // no tagged versions: @latest answers
		filepath.Join(vdir, "..", "@latest"): info,
		filepath.Join(vdir, ver+".info"):     info,
		filepath.Join(vdir, ver+".mod"):      gomod,
	} {
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	var files []modzip.File
	for _, rel := range strings.Split(git(t, root, "ls-files", "-z"), "\x00") {
		if rel == "" {
			continue
		}
		if _, err := os.Lstat(filepath.Join(root, rel)); os.IsNotExist(err) {
			continue // deleted in the work tree, not yet in a commit
		}
		files = append(files, repoFile{root: root, rel: rel})
	}
	var zipped bytes.Buffer
	if err := modzip.Create(&zipped, module.Version{Path: modulePath, Version: ver}, files); err != nil {
		t.Fatalf("module zip: %v", err)
	}
	if err := os.WriteFile(filepath.Join(vdir, ver+".zip"), zipped.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// repoFile is a file of the work tree, for modzip.Create.
type repoFile struct{ root, rel string }

func (f repoFile) Path() string                 { return f.rel }
func (f repoFile) Lstat() (os.FileInfo, error)  { return os.Lstat(filepath.Join(f.root, f.rel)) }
func (f repoFile) Open() (io.ReadCloser, error) { return os.Open(filepath.Join(f.root, f.rel)) }
