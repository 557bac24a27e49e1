package appserver_test

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

func TestConfigReadAndWrite(t *testing.T) {
	w := newWorld(t, tk.ConfigOptions{Extra: "# how chatty\nmodel_verbosity = \"low\"\n"})
	cl := w.connect(w.Srv)
	var read struct {
		Config  map[string]any            `json:"config"`
		Origins map[string]map[string]any `json:"origins"`
	}
	cl.call("config/read", map[string]any{}, &read)
	if read.Config["model_provider"] != "mock" {
		t.Errorf("config = %v", read.Config)
	}
	if o := read.Origins["model_verbosity"]; o == nil || o["name"].(map[string]any)["type"] != "user" {
		t.Errorf("origin of model = %v", o)
	}

	var res struct {
		Status   string `json:"status"`
		FilePath string `json:"filePath"`
		Version  string `json:"version"`
	}
	cl.call("config/value/write", map[string]any{"keyPath": "model_verbosity", "value": "high", "mergeStrategy": "replace"}, &res)
	cl.call("config/batchWrite", map[string]any{"edits": []map[string]any{
		{"keyPath": "model_reasoning_effort", "value": "high", "mergeStrategy": "replace"},
		{"keyPath": "tools.web_search", "value": true, "mergeStrategy": "upsert"},
	}, "expectedVersion": res.Version}, &res)
	b, err := os.ReadFile(filepath.Join(w.Home, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	for _, want := range []string{"# how chatty\nmodel_verbosity = \"high\"", `model_reasoning_effort = "high"`, "web_search = true"} {
		if !strings.Contains(text, want) {
			t.Errorf("config.toml lacks %q:\n%s", want, text)
		}
	}
	if e := cl.callErr("config/value/write", map[string]any{"keyPath": "model", "value": "x", "mergeStrategy": "replace", "expectedVersion": "stale"}); e.Code != -32600 {
		t.Errorf("stale version: %v", e)
	}
}

func TestCommandExec(t *testing.T) {
	w := newWorld(t, tk.ConfigOptions{})
	cl := w.connect(w.Srv)
	var res struct {
		ExitCode int    `json:"exitCode"`
		Stdout   string `json:"stdout"`
		Stderr   string `json:"stderr"`
	}
	cl.call("command/exec", map[string]any{"command": []string{"sh", "-c", "echo out; echo err >&2; exit 3"}, "cwd": w.Work}, &res)
	if diff := cmp.Diff(struct {
		ExitCode       int
		Stdout, Stderr string
	}{3, "out\n", "err\n"}, struct {
		ExitCode       int
		Stdout, Stderr string
	}{res.ExitCode, res.Stdout, res.Stderr}); diff != "" {
		t.Errorf("command/exec (-want +got):\n%s", diff)
	}

	// Streamed, with stdin written by the client.
	done := make(chan struct{})
	go func() {
		defer close(done)
		cl.call("command/exec", map[string]any{"command": []string{"sh", "-c", "read l; echo got $l"}, "processId": "p1",
			"streamStdin": true, "streamStdoutStderr": true}, &res)
	}()
	// The process registers once command/exec has started it; until then writes are refused.
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := cl.c.Call(t.Context(), "command/exec/write", map[string]any{"processId": "p1", "deltaBase64": base64.StdEncoding.EncodeToString([]byte("hi\n"))}, nil)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("write: %v", err)
		}
		time.Sleep(time.Millisecond)
	}
	got := cl.until("command/exec/outputDelta")
	d := find(got, "command/exec/outputDelta")[0]
	if out, _ := base64.StdEncoding.DecodeString(d["deltaBase64"].(string)); string(out) != "got hi\n" {
		t.Errorf("streamed output = %q", out)
	}
	<-done
	if res.ExitCode != 0 || res.Stdout != "" {
		t.Errorf("streamed result = %+v", res)
	}
	if e := cl.callErr("command/exec/terminate", map[string]any{"processId": "nope"}); e.Code != -32600 {
		t.Errorf("terminate unknown: %v", e)
	}
}

func TestFS(t *testing.T) {
	w := newWorld(t, tk.ConfigOptions{})
	cl := w.connect(w.Srv)
	dir := filepath.Join(w.Work, "d", "e")
	cl.call("fs/createDirectory", map[string]any{"path": dir, "recursive": true}, nil)
	f := filepath.Join(dir, "a.txt")
	cl.call("fs/writeFile", map[string]any{"path": f, "dataBase64": base64.StdEncoding.EncodeToString([]byte("hello"))}, nil)
	var rf struct {
		DataBase64 string `json:"dataBase64"`
	}
	cl.call("fs/readFile", map[string]any{"path": f}, &rf)
	if b, _ := base64.StdEncoding.DecodeString(rf.DataBase64); string(b) != "hello" {
		t.Errorf("readFile = %q", b)
	}
	var md map[string]any
	cl.call("fs/getMetadata", map[string]any{"path": f}, &md)
	if md["isFile"] != true || md["isDirectory"] != false {
		t.Errorf("metadata = %v", md)
	}
	cl.call("fs/copy", map[string]any{"sourcePath": filepath.Join(w.Work, "d"), "destinationPath": filepath.Join(w.Work, "copy"), "recursive": true}, nil)
	var rd struct {
		Entries []map[string]any `json:"entries"`
	}
	cl.call("fs/readDirectory", map[string]any{"path": filepath.Join(w.Work, "copy", "e")}, &rd)
	if len(rd.Entries) != 1 || rd.Entries[0]["fileName"] != "a.txt" {
		t.Errorf("readDirectory = %v", rd.Entries)
	}
	var fz struct {
		Files []map[string]any `json:"files"`
	}
	cl.call("fuzzyFileSearch", map[string]any{"query": "cea", "roots": []string{w.Work}}, &fz)
	if len(fz.Files) == 0 || fz.Files[0]["file_name"] != "a.txt" {
		t.Errorf("fuzzy = %v", fz.Files)
	}
	cl.call("fs/remove", map[string]any{"path": filepath.Join(w.Work, "d")}, nil)
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("remove left %s", dir)
	}
	if e := cl.callErr("fs/readFile", map[string]any{"path": "relative.txt"}); e.Code != -32602 {
		t.Errorf("relative path: %v", e)
	}
}

func TestModelsAndAccount(t *testing.T) {
	w := newWorld(t, tk.ConfigOptions{})
	cl := w.connect(w.Srv)
	var models struct {
		Data       []map[string]any `json:"data"`
		NextCursor *string          `json:"nextCursor"`
	}
	cl.call("model/list", map[string]any{"limit": 2}, &models)
	if len(models.Data) != 2 || models.NextCursor == nil || models.Data[0]["isDefault"] != true {
		t.Errorf("model/list = %v", models)
	}
	var providers struct {
		Data              []map[string]any `json:"data"`
		DefaultProviderID string           `json:"defaultProviderId"`
	}
	cl.call("modelProvider/list", map[string]any{}, &providers)
	if providers.DefaultProviderID != "mock" {
		t.Errorf("providers = %+v", providers)
	}
	cl.call("account/login/start", map[string]any{"type": "apiKey", "apiKey": "sk-test"}, nil)
	b, err := os.ReadFile(filepath.Join(w.Home, "auth.json"))
	var auth map[string]any
	if err != nil || json.Unmarshal(b, &auth) != nil || auth["OPENAI_API_KEY"] != "sk-test" {
		t.Errorf("auth.json = %s, %v", b, err)
	}
	var acct map[string]any
	cl.call("account/read", map[string]any{}, &acct)
	cl.call("account/logout", nil, nil)
	if _, err := os.Stat(filepath.Join(w.Home, "auth.json")); !os.IsNotExist(err) {
		t.Errorf("logout left auth.json")
	}
}

// The start-up methods editors call answer (empty) instead of "method not found".
func TestStartupExtras(t *testing.T) {
	w := newWorld(t, tk.ConfigOptions{})
	cl := w.connect(w.Srv)
	for _, m := range []string{"mcpServerStatus/list", "experimentalFeature/list", "app/list", "permissionProfile/list", "skills/list",
		"hooks/list", "plugin/list", "configRequirements/read"} {
		var res map[string]any
		cl.call(m, map[string]any{}, &res)
	}
	// As Codex 0.169: without a ChatGPT sign-in there are no rate limits to read.
	if e := cl.callErr("account/rateLimits/read", map[string]any{}); e.Code != -32600 || e.Message != "codex account authentication required to read rate limits" {
		t.Errorf("account/rateLimits/read: %d %s", e.Code, e.Message)
	}
}
