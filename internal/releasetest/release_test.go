package releasetest

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"encoding/hex"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gocodex/gocodex/internal/version"
)

// target is one platform gocodex is released for.
type target struct{ goos, goarch string }

func (tg target) String() string { return tg.goos + "/" + tg.goarch }

// exe is the binary's name in the target's archive.
func (tg target) exe() string {
	if tg.goos == "windows" {
		return "gocodex.exe"
	}
	return "gocodex"
}

// ext is the target's archive kind: a zip for Windows, a gzipped tar elsewhere.
func (tg target) ext() string {
	if tg.goos == "windows" {
		return ".zip"
	}
	return ".tar.gz"
}

var releaseTargets = []target{
	{"linux", "amd64"}, {"linux", "arm64"},
	{"darwin", "amd64"}, {"darwin", "arm64"},
	{"windows", "amd64"}, {"windows", "arm64"},
}

// TestReleaseArchives runs scripts/release.sh as a release would and checks what it wrote:
// an archive per target holding one folder with the binary of that platform and
// architecture (static, its version stamped), README.md and LICENSE; SHA256SUMS naming each
// archive's digest; fixed owners, modes and times; the binary of this machine answering
// --version with the version from git; and the same bytes again from a second run.
func TestReleaseArchives(t *testing.T) {
	needReleaseTests(t)
	root := repoRoot(t)
	out := t.TempDir()
	start := time.Now()
	runRelease(t, root, out, "")
	t.Logf("scripts/release.sh (six targets) took %v", time.Since(start).Round(time.Second))

	ver := checkVersion(t, root, out)
	epoch, err := strconv.ParseInt(git(t, root, "log", "-1", "--format=%ct", "HEAD"), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	sums := checkSums(t, out)
	if len(sums) != len(releaseTargets) {
		t.Errorf("SHA256SUMS names %d archives, want %d: %v", len(sums), len(releaseTargets), sums)
	}
	readme, _ := os.ReadFile(filepath.Join(root, "README.md"))
	license, _ := os.ReadFile(filepath.Join(root, "LICENSE"))
	for _, tg := range releaseTargets {
		name := "gocodex-" + ver + "-" + tg.goos + "-" + tg.goarch
		file := name + tg.ext()
		if _, ok := sums[file]; !ok {
			t.Errorf("%s: no %s in SHA256SUMS", tg, file)
			continue
		}
		entries := readArchive(t, filepath.Join(out, file))
		want := []string{name + "/", name + "/LICENSE", name + "/README.md", name + "/" + tg.exe()}
		if got := names(entries); !slices.Equal(got, want) {
			t.Errorf("%s: entries %v, want %v (in this order)", file, got, want)
			continue
		}
		for _, e := range entries {
			wantMode := fs.FileMode(0o644)
			switch {
			case strings.HasSuffix(e.name, "/"):
				wantMode = fs.ModeDir | 0o755
			case strings.HasSuffix(e.name, "/"+tg.exe()):
				wantMode = 0o755
			}
			if e.mode != wantMode {
				t.Errorf("%s %s: mode %v, want %v", file, e.name, e.mode, wantMode)
			}
			// zip keeps MS-DOS times, in steps of two seconds.
			lag := int64(0)
			if tg.ext() == ".zip" {
				lag = 1
			}
			if d := e.mtime.Unix() - epoch; d < 0 || d > lag {
				t.Errorf("%s %s: time %v, want the commit's %v", file, e.name, e.mtime.UTC(), time.Unix(epoch, 0).UTC())
			}
			if e.uid != 0 || e.gid != 0 {
				t.Errorf("%s %s: owner %d:%d, want 0:0", file, e.name, e.uid, e.gid)
			}
		}
		if !bytes.Equal(entries[1].data, license) || !bytes.Equal(entries[2].data, readme) {
			t.Errorf("%s: LICENSE or README.md is not the repository's", file)
		}
		bin := entries[3].data
		checkBinary(t, tg, bin)
		if !bytes.Contains(bin, []byte(ver)) {
			t.Errorf("%s: the binary does not hold its version %q", file, ver)
		}
		if tg.goos == runtime.GOOS && tg.goarch == runtime.GOARCH {
			runVersion(t, bin, ver)
		}
	}

	// The same commit gives the same bytes: a tarball and a zip built again.
	again := t.TempDir()
	runRelease(t, root, again, "linux/amd64 windows/amd64")
	for _, file := range []string{"gocodex-" + ver + "-linux-amd64.tar.gz", "gocodex-" + ver + "-windows-amd64.zip"} {
		a, _ := os.ReadFile(filepath.Join(out, file))
		b, err := os.ReadFile(filepath.Join(again, file))
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs between two runs on the same commit (%v)", file, err)
		}
	}
}

// runRelease runs scripts/release.sh OUTDIR, for the targets named (all when "").
func runRelease(t *testing.T, root, out, targets string) {
	t.Helper()
	cmd := exec.Command("scripts/release.sh", out)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "TARGETS="+targets)
	if output, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("scripts/release.sh %s: %v\n%s", out, err, output)
	}
}

// checkVersion reads the version from the archives' names, all of which must share it, and
// checks it is git's: the tag's (without its v) when one describes the commit, else the
// tree's version.Base and the commit.
func checkVersion(t *testing.T, root, out string) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(out, "gocodex-*"))
	pattern := regexp.MustCompile(`^gocodex-(.+)-(linux|darwin|windows)-(amd64|arm64)\.(tar\.gz|zip)$`)
	var ver string
	for _, f := range files {
		m := pattern.FindStringSubmatch(filepath.Base(f))
		if m == nil {
			t.Fatalf("unexpected file %s", f)
		}
		if ver != "" && m[1] != ver {
			t.Fatalf("archives of two versions: %s and %s", ver, m[1])
		}
		ver = m[1]
	}
	if ver == "" {
		t.Fatalf("no archives in %s", out)
	}
	cmd := exec.Command("git", "describe", "--tags", "--match", "v[0-9]*", "--dirty")
	cmd.Dir = root
	if desc, err := cmd.Output(); err == nil {
		if want := strings.TrimPrefix(strings.TrimSpace(string(desc)), "v"); ver != want {
			t.Errorf("version %q, want git describe's %q", ver, want)
		}
	} else if want := version.Base + "-dev-g" + git(t, root, "rev-parse", "--short=12", "HEAD"); ver != want && ver != want+"-dirty" {
		t.Errorf("version %q, want %q (no tag describes the commit)", ver, want)
	}
	return ver
}

// checkSums checks SHA256SUMS against the files beside it and returns the names it lists.
func checkSums(t *testing.T, out string) map[string]string {
	t.Helper()
	f, err := os.Open(filepath.Join(out, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sums := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			t.Fatalf("SHA256SUMS line %q is not `sha256sum` output", sc.Text())
		}
		data, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatalf("SHA256SUMS names %s: %v", name, err)
		}
		if got := sha256.Sum256(data); hex.EncodeToString(got[:]) != sum {
			t.Errorf("%s: SHA256SUMS says %s, the file's is %x", name, sum, got)
		}
		sums[name] = sum
	}
	return sums
}

// entry is one member of an archive.
type entry struct {
	name     string
	mode     fs.FileMode
	mtime    time.Time
	uid, gid int
	data     []byte
}

func names(entries []entry) []string {
	var out []string
	for _, e := range entries {
		out = append(out, e.name)
	}
	return out
}

// readArchive reads every member of a .tar.gz or a .zip, in the archive's order.
func readArchive(t *testing.T, path string) []entry {
	t.Helper()
	var entries []entry
	if strings.HasSuffix(path, ".zip") {
		zr, err := zip.OpenReader(path)
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		for _, f := range zr.File {
			rc, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			data, err := io.ReadAll(rc)
			rc.Close()
			if err != nil {
				t.Fatalf("%s %s: %v", path, f.Name, err)
			}
			// zip -X stores no owner: 0 stands for none.
			entries = append(entries, entry{name: f.Name, mode: f.Mode(), mtime: f.Modified, data: data})
		}
		return entries
	}
	file, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	gz, err := gzip.NewReader(file)
	if err != nil {
		t.Fatal(err)
	}
	if !gz.ModTime.IsZero() || gz.Name != "" {
		t.Errorf("%s: gzip header keeps a time or name (%v, %q)", path, gz.ModTime, gz.Name)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return entries
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatalf("%s %s: %v", path, h.Name, err)
		}
		entries = append(entries, entry{name: h.Name, mode: h.FileInfo().Mode(), mtime: h.ModTime, uid: h.Uid, gid: h.Gid, data: data})
	}
}

// checkBinary checks that bin is an executable of the target's format and architecture and,
// on Linux, static (no program interpreter).
func checkBinary(t *testing.T, tg target, bin []byte) {
	t.Helper()
	r := bytes.NewReader(bin)
	switch tg.goos {
	case "linux":
		f, err := elf.NewFile(r)
		if err != nil {
			t.Errorf("%s: not an ELF executable: %v", tg, err)
			return
		}
		want := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[tg.goarch]
		if f.Machine != want {
			t.Errorf("%s: ELF machine %v, want %v", tg, f.Machine, want)
		}
		for _, p := range f.Progs {
			if p.Type == elf.PT_INTERP {
				t.Errorf("%s: the binary has a program interpreter: it is not static", tg)
			}
		}
	case "darwin":
		f, err := macho.NewFile(r)
		if err != nil {
			t.Errorf("%s: not a Mach-O executable: %v", tg, err)
			return
		}
		want := map[string]macho.Cpu{"amd64": macho.CpuAmd64, "arm64": macho.CpuArm64}[tg.goarch]
		if f.Cpu != want {
			t.Errorf("%s: Mach-O CPU %v, want %v", tg, f.Cpu, want)
		}
	case "windows":
		f, err := pe.NewFile(r)
		if err != nil {
			t.Errorf("%s: not a PE executable: %v", tg, err)
			return
		}
		want := map[string]uint16{"amd64": pe.IMAGE_FILE_MACHINE_AMD64, "arm64": pe.IMAGE_FILE_MACHINE_ARM64}[tg.goarch]
		if f.Machine != want {
			t.Errorf("%s: PE machine %#x, want %#x", tg, f.Machine, want)
		}
	}
}

// runVersion runs this machine's binary from the archive: --version names the stamped version.
func runVersion(t *testing.T, bin []byte, ver string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "gocodex")
	if err := os.WriteFile(path, bin, 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(path, "--version").Output()
	want := "gocodex " + ver + " (codex " + version.CodexProtocol + " compatible)\n"
	if err != nil || string(out) != want {
		t.Errorf("gocodex --version = %q, %v; want %q", out, err, want)
	}
}
