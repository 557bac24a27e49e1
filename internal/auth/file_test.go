package auth

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gocodex/gocodex/internal/keyring"
)

// The two files Codex 0.169 writes (testdata, as observed in
// ../shared/reference/codex-0.169-observed/signin.md §1) read and write back byte for byte.
func TestFileRoundTripsCodexFiles(t *testing.T) {
	for _, name := range []string{"codex_apikey.json", "codex_chatgpt.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		f, err := ParseFile(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out, err := f.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out, data) {
			t.Errorf("%s written back differs:\n%s\nwant\n%s", name, out, data)
		}
	}
}

func TestFileModesAndClaims(t *testing.T) {
	f, err := ParseFile([]byte(`{"OPENAI_API_KEY":"sk-legacy"}`))
	if err != nil || f.Mode != ModeAPIKey || *f.APIKey != "sk-legacy" {
		t.Fatalf("legacy file = %+v, %v", f, err)
	}
	data, _ := os.ReadFile("testdata/codex_chatgpt.json")
	f, err = ParseFile(data)
	if err != nil || f.Mode != ModeChatGPT || f.Tokens.Provenance.Issuer != "https://127.0.0.1:4444" {
		t.Fatalf("chatgpt file = %+v, %v", f, err)
	}
	c, err := IDClaims(f.Tokens.IDToken)
	if err != nil || c != (Claims{Email: "user@example.com", PlanType: "plus", UserID: "user-abc", AccountID: "acct-123"}) {
		t.Errorf("claims = %+v, %v", c, err)
	}
	if exp, ok := Expiry(f.Tokens.AccessToken); !ok || exp.Year() != 2100 {
		t.Errorf("expiry = %v %v", exp, ok)
	}
	// Members this version does not know survive a rewrite.
	f, err = ParseFile([]byte(`{"auth_mode":"chatgpt","tokens":{"id_token":"a.b.c","access_token":"x","refresh_token":"r","future":1},"agent":{"k":[1]}}`))
	if err != nil {
		t.Fatal(err)
	}
	out, _ := f.Marshal()
	if !strings.Contains(string(out), `"future": 1`) || !strings.Contains(string(out), `"agent": {`) {
		t.Errorf("unknown members lost:\n%s", out)
	}
}

func TestFileRejectsMalformed(t *testing.T) {
	for _, bad := range []string{``, `not json`, `{"auth_mode":"apikey"`, `{"auth_mode":"magic","OPENAI_API_KEY":"k"}`, `{}`, `{"auth_mode":1}`, `{"tokens":{"id_token":5}}`, `{"OPENAI_API_KEY":"k"} x`} {
		if f, err := ParseFile([]byte(bad)); err == nil {
			t.Errorf("%q parsed as %+v", bad, f)
		}
	}
}

func TestMaskKey(t *testing.T) {
	for key, want := range map[string]string{"sk-12345678901": "sk-12345***78901", "sk-1234567890": "***", "sk-test-abc123": "sk-test-***bc123"} {
		if got := MaskKey(key); got != want {
			t.Errorf("MaskKey(%q) = %q, want %q", key, got, want)
		}
	}
}

// A malformed auth.json is reported with its path and never overwritten.
func TestStoreMalformedFileLeftAlone(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, "auth.json")
	os.WriteFile(path, []byte("{broken"), 0o600)
	s := NewStore(home, StoreFile, nil)
	if _, err := s.Load(); err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("Load error = %v, want one naming %s", err, path)
	}
	key := "sk-new"
	if err := s.Save(&File{Mode: ModeAPIKey, APIKey: &key}); err == nil {
		t.Error("Save over a malformed file succeeded")
	}
	if data, _ := os.ReadFile(path); string(data) != "{broken" {
		t.Errorf("file now %q", data)
	}
}

// Update holds the lock across read and write: concurrent increments lose nothing.
func TestStoreUpdateSerializes(t *testing.T) {
	home := t.TempDir()
	s := NewStore(home, StoreFile, nil)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := NewStore(home, StoreFile, nil).Update(func(cur *File) (*File, error) {
				n := ""
				if cur != nil {
					n = *cur.APIKey
				}
				n += "x"
				return &File{Mode: ModeAPIKey, APIKey: &n}, nil
			})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	f, err := s.Load()
	if err != nil || *f.APIKey != "xxxxxxxx" {
		t.Fatalf("after 8 updates: %v %v", f, err)
	}
}

type memKeyring struct {
	mu      sync.Mutex
	entries map[string]string
	down    error
}

func (k *memKeyring) Available() error { return k.down }
func (k *memKeyring) Get(s, a string) (string, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	v, ok := k.entries[s+"/"+a]
	if !ok {
		return "", keyring.ErrNotFound
	}
	return v, nil
}
func (k *memKeyring) Set(s, a, v string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.entries[s+"/"+a] = v
	return nil
}
func (k *memKeyring) Delete(s, a string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if _, ok := k.entries[s+"/"+a]; !ok {
		return keyring.ErrNotFound
	}
	delete(k.entries, s+"/"+a)
	return nil
}

// keyring mode keeps the credentials out of the file; auto falls back to the file when no
// keyring answers; keyring mode without one is an error, never a silent file.
func TestStoreKeyringModes(t *testing.T) {
	home := t.TempDir()
	kr := &memKeyring{entries: map[string]string{}}
	s := NewStore(home, StoreKeyring, kr)
	key := "sk-kr"
	if err := s.Save(&File{Mode: ModeAPIKey, APIKey: &key}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.Path()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("keyring mode wrote auth.json: %v", err)
	}
	if f, err := s.Load(); err != nil || *f.APIKey != "sk-kr" {
		t.Fatalf("keyring load = %v %v", f, err)
	}
	if len(kr.entries) != 1 {
		t.Fatalf("entries = %v", kr.entries)
	}
	for k := range kr.entries {
		if !strings.HasPrefix(k, "Codex Auth/cli|") || len(k) != len("Codex Auth/cli|")+16 {
			t.Errorf("keyring entry %q, want Codex's service and account", k)
		}
	}
	if ok, err := s.Delete(); !ok || err != nil {
		t.Errorf("delete = %v %v", ok, err)
	}

	down := &memKeyring{entries: map[string]string{}, down: errors.New("no D-Bus session")}
	if err := NewStore(home, StoreKeyring, down).Save(&File{Mode: ModeAPIKey, APIKey: &key}); err == nil || !strings.Contains(err.Error(), "no keyring") {
		t.Errorf("keyring mode without a keyring: %v", err)
	}
	auto := NewStore(home, StoreAuto, down)
	if err := auto.Save(&File{Mode: ModeAPIKey, APIKey: &key}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(auto.Path()); err != nil {
		t.Errorf("auto without a keyring did not use the file: %v", err)
	}
	if _, err := ParseStoreMode("vault"); err == nil {
		t.Error("unknown store mode accepted")
	}
}
