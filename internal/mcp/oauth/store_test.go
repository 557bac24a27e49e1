package oauth

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The key Codex 0.171 wrote for `codex mcp add linear --url http://127.0.0.1:37147/mcp`.
func TestKeyIsCodexs(t *testing.T) {
	if got := Key("linear", "http://127.0.0.1:37147/mcp", nil); got != "linear|291acbec4ec492e9" {
		t.Fatalf("Key = %q", got)
	}
	if Key("linear", "http://127.0.0.1:37147/mcp", map[string]string{"X-Team": "core"}) == Key("linear", "http://127.0.0.1:37147/mcp", nil) {
		t.Fatal("headers do not change the key")
	}
}

func TestFileStore(t *testing.T) {
	s := FileStore{Home: t.TempDir()}
	if c, err := s.Load("a|1"); c != nil || err != nil {
		t.Fatalf("empty store: %v %v", c, err)
	}
	if err := s.Save("a|1", Credentials{ServerName: "a", AccessToken: "at"}); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(s.Home, ".credentials.json"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("file: %v %v", fi, err)
	}
	if c, _ := s.Load("a|1"); c == nil || c.AccessToken != "at" {
		t.Fatalf("load: %v", c)
	}
	if found, err := s.Delete("a|1"); !found || err != nil {
		t.Fatalf("delete: %v %v", found, err)
	}
	if _, err := os.Stat(filepath.Join(s.Home, ".credentials.json")); !os.IsNotExist(err) {
		t.Fatalf("the empty store's file is still there: %v", err)
	}
	if found, _ := s.Delete("a|1"); found {
		t.Fatal("deleted twice")
	}
}

// A credentials file that is not JSON is named, never echoed (it may hold tokens), and is
// left as it is.
func TestFileStoreGarbage(t *testing.T) {
	s := FileStore{Home: t.TempDir()}
	path := filepath.Join(s.Home, ".credentials.json")
	if err := os.WriteFile(path, []byte(`{"a|1": {"access_token": "secret-token"`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := s.Load("a|1")
	if err == nil || strings.Contains(err.Error(), "secret-token") || !strings.Contains(err.Error(), path) {
		t.Fatalf("err = %v", err)
	}
	if err := s.Save("b|2", Credentials{}); err == nil {
		t.Fatal("saved over a file it could not read")
	}
	if b, _ := os.ReadFile(path); !strings.Contains(string(b), "secret-token") {
		t.Fatal("the unreadable file was changed")
	}
}
