package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// accountTranscript runs the API-key account methods on bin and returns every reply and
// notification (the emittedAtMs stamp aside), in order.
func accountTranscript(t *testing.T, bin string) []string {
	e := newEnv(t)
	if err := os.WriteFile(filepath.Join(e.CodexHome, "config.toml"), []byte("model = \"gpt-5.5\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, stop := e.startAppServerOf(bin)
	defer stop()
	var out []string
	reply := func(method string, p any) {
		raw, errMsg := c.call(method, p)
		if errMsg != nil && errMsg.Error != nil {
			out = append(out, method+" error "+strconv.Itoa(errMsg.Error.Code))
			return
		}
		out = append(out, method+" -> "+string(normalize(t, raw)))
	}
	notes := func(until string) {
		for _, m := range c.until(until) {
			if ignoredMethods[m.Method] || codexEnvironmentNote(m) || m.Method == "remoteControl/status/changed" {
				continue
			}
			out = append(out, m.Method+" "+string(normalize(t, m.Params)))
		}
	}
	reply("account/read", map[string]any{})
	reply("account/login/start", map[string]any{"type": "apiKey", "apiKey": "sk-test"})
	notes("account/updated")
	reply("account/read", map[string]any{})
	reply("account/logout", nil)
	notes("account/updated")
	reply("account/login/start", map[string]any{"type": "apiKey"})
	reply("account/login/start", map[string]any{"type": "magic"})
	return out
}

func normalize(t *testing.T, raw json.RawMessage) []byte {
	var v any
	if len(raw) == 0 {
		return nil
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	b, _ := json.Marshal(v) // sorted keys
	return b
}

// The API-key account traffic of the app-server is Codex 0.171's (the schema the server now
// follows: account/updated carries reason): the same replies, the same notifications with the
// same params, in the same order, the same error codes.
func TestAccountMethodsMatchReference(t *testing.T) {
	ref := reference171()
	if ref == "" {
		t.Skip("GOCODEX_REFERENCE_CODEX_171 is not set")
	}
	ours := accountTranscript(t, binary)
	theirs := accountTranscript(t, ref)
	if diff := cmp.Diff(theirs, ours); diff != "" {
		t.Errorf("account traffic (-codex +ours):\n%s", diff)
	}
}
