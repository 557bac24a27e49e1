package oauth

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gocodex/gocodex/internal/keyring"
)

const recordedKey = "linear|67795dd6f2eb0189"

// Codex 0.171's keyring entry (testdata/README.md) reads as the credentials it holds, and
// what gocodex writes back has the same fields in the same shape.
func TestKeyringStoreReadsAndWritesCodexsEntry(t *testing.T) {
	recorded, err := os.ReadFile("testdata/codex-0.171-keyring-entry.json")
	if err != nil {
		t.Fatal(err)
	}
	kr := &keyring.Memory{}
	if err := kr.Set(keyringService, recordedKey, strings.TrimSpace(string(recorded))); err != nil {
		t.Fatal(err)
	}
	s := KeyringStore{Keyring: kr}
	c, err := s.Load(recordedKey)
	if err != nil || c == nil {
		t.Fatalf("load of Codex's entry: %v %v", c, err)
	}
	want := Credentials{
		ServerName: "linear", ServerURL: "http://127.0.0.1:39927/mcp", Issuer: "http://127.0.0.1:39927",
		ClientID: "client-87327021d10962a3", AccessToken: "at-b1b7997443162744c62a4efe",
		RefreshToken: "rt-f027589a03288f669e2d95b8", ExpiresAt: 1796689840956, Scopes: []string{"read"},
	}
	if !reflect.DeepEqual(*c, want) {
		t.Errorf("loaded %+v\nwant   %+v", *c, want)
	}

	// A token still valid when written (the recorded one has expired since), so the entry has
	// its expires_in as Codex's had.
	c.ExpiresAt = time.Now().Add(time.Hour).UnixMilli()
	if err := s.Save("other|0123456789abcdef", *c); err != nil {
		t.Fatal(err)
	}
	written, _ := kr.Get(keyringService, "other|0123456789abcdef")
	if got, want := shapeOf(t, written), shapeOf(t, string(recorded)); !reflect.DeepEqual(got, want) {
		t.Errorf("gocodex's entry has the fields %v, Codex's %v", got, want)
	}
}

// shapeOf lists a JSON document's keys, nested ones as "outer.inner".
func shapeOf(t *testing.T, doc string) []string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(doc), &m); err != nil {
		t.Fatalf("%v in %s", err, doc)
	}
	var keys []string
	var walk func(prefix string, m map[string]any)
	walk = func(prefix string, m map[string]any) {
		for k, v := range m {
			keys = append(keys, prefix+k)
			if inner, ok := v.(map[string]any); ok {
				walk(prefix+k+".", inner)
			}
		}
	}
	walk("", m)
	sort.Strings(keys)
	return keys
}

func sample() Credentials {
	return Credentials{ServerName: "linear", ServerURL: "http://127.0.0.1:1/mcp", ClientID: "c", AccessToken: "at-secret", RefreshToken: "rt-secret"}
}

// "keyring" without a keyring is an error naming the setting, and nothing lands in the file.
func TestKeyringModeWithoutKeyring(t *testing.T) {
	home := t.TempDir()
	s := storeFor(home, "keyring", &keyring.Memory{Down: errors.New("no D-Bus session bus")})
	err := s.Save("linear|0123456789abcdef", sample())
	if err == nil || !strings.Contains(err.Error(), `mcp_oauth_credentials_store = "keyring"`) || !strings.Contains(err.Error(), "no D-Bus session bus") {
		t.Fatalf("save without a keyring: %v", err)
	}
	if _, err := os.Stat(filepath.Join(home, ".credentials.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("keyring mode wrote the file: %v", err)
	}
	if _, err := s.Load("linear|0123456789abcdef"); err == nil {
		t.Error("load without a keyring succeeded")
	}
}

// "auto" uses the keyring when it answers (and drops an older file entry, which would
// otherwise come back when the keyring is away), and the file when it does not.
func TestAutoStore(t *testing.T) {
	home := t.TempDir()
	key := "linear|0123456789abcdef"
	file := FileStore{Home: home}
	if err := file.Save(key, sample()); err != nil {
		t.Fatal(err)
	}
	kr := &keyring.Memory{}
	auto := storeFor(home, "auto", kr)
	if c, err := auto.Load(key); err != nil || c == nil || c.AccessToken != "at-secret" {
		t.Fatalf("auto load falls back to the file: %v %v", c, err)
	}
	fresh := sample()
	fresh.AccessToken = "at-fresh"
	if err := auto.Save(key, fresh); err != nil {
		t.Fatal(err)
	}
	if kr.Len() != 1 {
		t.Errorf("auto with a keyring: %d keyring entries", kr.Len())
	}
	if c, _ := file.Load(key); c != nil {
		t.Error("the file still holds the older entry")
	}
	if c, err := auto.Load(key); err != nil || c.AccessToken != "at-fresh" {
		t.Errorf("auto load = %v %v", c, err)
	}
	if found, err := auto.Delete(key); !found || err != nil || kr.Len() != 0 {
		t.Errorf("auto delete = %v %v, %d left", found, err, kr.Len())
	}

	down := storeFor(home, "auto", &keyring.Memory{Down: errors.New("no keyring")})
	if err := down.Save(key, sample()); err != nil {
		t.Fatal(err)
	}
	if c, _ := file.Load(key); c == nil {
		t.Error("auto without a keyring did not use the file")
	}
}

// An entry gocodex cannot read is an error naming the server, never echoing the tokens.
func TestKeyringGarbage(t *testing.T) {
	kr := &keyring.Memory{}
	key := "linear|0123456789abcdef"
	_ = kr.Set(keyringService, key, `{"server_name":"linear","token_response":"at-leaked`)
	_, err := KeyringStore{Keyring: kr}.Load(key)
	if err == nil || !strings.Contains(err.Error(), "linear") || strings.Contains(err.Error(), "at-leaked") {
		t.Errorf("garbage entry: %v", err)
	}
}
