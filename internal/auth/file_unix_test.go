//go:build unix

package auth

import (
	"os"
	"strings"
	"syscall"
	"testing"
)

// Writes are atomic (a new inode each time) and 0600 whatever the umask and the old mode.
func TestStoreWritesAtomically0600(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	home := t.TempDir()
	s := NewStore(home, StoreFile, nil)
	key := "sk-1"
	if err := s.Save(&File{Mode: ModeAPIKey, APIKey: &key}); err != nil {
		t.Fatal(err)
	}
	os.Chmod(s.Path(), 0o644)
	ino := inode(t, s.Path())
	key = "sk-2"
	if err := s.Save(&File{Mode: ModeAPIKey, APIKey: &key}); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(s.Path())
	if st.Mode().Perm() != 0o600 || inode(t, s.Path()) == ino {
		t.Errorf("mode %v, same inode %v", st.Mode().Perm(), inode(t, s.Path()) == ino)
	}
	if data, _ := os.ReadFile(s.Path()); string(data) != "{\n  \"auth_mode\": \"apikey\",\n  \"OPENAI_API_KEY\": \"sk-2\"\n}" {
		t.Errorf("file = %q", data)
	}
	entries, _ := os.ReadDir(home)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".auth.json.") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
}

func inode(t *testing.T, path string) uint64 {
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Sys().(*syscall.Stat_t).Ino
}
