package layering

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestThirdPartyIsUpstreamPlusPatches rebuilds third_party/ from the upstream releases and
// third_party/patches (scripts/rebuild-third-party.sh) and fails on any file that differs, so a
// change to the forks is a reviewable patch file and an upgrade is a re-apply.
func TestThirdPartyIsUpstreamPlusPatches(t *testing.T) {
	if testing.Short() {
		t.Skip("downloads the upstream modules from the Go module proxy")
	}
	root := filepath.Join("..", "..")
	out := t.TempDir()
	cmd := exec.Command("bash", filepath.Join(root, "scripts", "rebuild-third-party.sh"), "--out", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("scripts/rebuild-third-party.sh: %v\n%s", err, b)
	}
	for _, dir := range []string{"bubbletea", "bubbles"} {
		committed := walkFiles(t, filepath.Join(root, "third_party", dir))
		rebuilt := walkFiles(t, filepath.Join(out, dir))
		for name, want := range rebuilt {
			got, ok := committed[name]
			switch {
			case !ok:
				t.Errorf("third_party/%s/%s is in upstream plus the patches but not in the repository", dir, name)
			case !bytes.Equal(got, want):
				t.Errorf("third_party/%s/%s differs from upstream plus the patches: put the change in a patch under third_party/patches/ (scripts/rebuild-third-party.sh)", dir, name)
			}
		}
		for name := range committed {
			if _, ok := rebuilt[name]; !ok && name != "PATCHES.md" {
				t.Errorf("third_party/%s/%s is not upstream's: remove it or add it through a patch", dir, name)
			}
		}
	}
}

func walkFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		files[filepath.ToSlash(rel)] = b
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}
