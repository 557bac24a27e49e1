package e2e

import (
	"archive/zip"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// The answers of Codex 0.169's app-server to the methods issue 18 adds, called offline with
// valid params, are kept in testdata/appserver-methods-reference.json. With the reference
// installed, GOCODEX_RECORD_METHODS=1 rewrites it:
//
//	GOCODEX_REFERENCE_CODEX=$(../shared/tools/reference-codex) GOCODEX_RECORD_METHODS=1 \
//	  go test ./e2e -run TestRecordMethodsReference -count=1
const methodsGolden = "testdata/appserver-methods-reference.json"

type recordedCall struct {
	Method string          `json:"method"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *recordedError  `json:"error,omitempty"`
}

type recordedError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

type recordedNote struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
}

type methodRecord struct {
	Calls         []recordedCall `json:"calls"`
	Notifications []recordedNote `json:"notifications"`
	// Files: what the case's files hold afterwards (a folder: its entries; absent: "").
	Files map[string]string `json:"files,omitempty"`
}

// recordMethodCase runs one case on bin in a fresh world and returns what it answered and
// sent, with the world's paths put back as $HOME, $CODEX_HOME and $WORK.
func recordMethodCase(t *testing.T, bin string, mc methodCase) methodRecord {
	e := newEnv(t)
	tk.WriteConfig(t, e.CodexHome, e.Model.URL(), tk.ConfigOptions{Extra: "chatgpt_base_url = \"" + offlineBackend + "\""})
	if mc.setup != nil {
		mc.setup(t, e)
	}
	c, stop := e.startAppServerOf(bin)
	defer stop()
	var rec methodRecord
	call := func(method string, params any) {
		raw, em := c.call(method, e.expand(params))
		rc := recordedCall{Method: method}
		if em != nil {
			rc.Error = &recordedError{Code: em.Error.Code, Message: e.unexpand(em.Error.Message)}
		} else {
			rc.Result = json.RawMessage(e.unexpand(string(normalize(t, raw))))
		}
		rec.Calls = append(rec.Calls, rc)
	}
	call(mc.method, mc.params)
	if mc.after != nil {
		if wait := mc.after(t, e); wait != "" {
			rec.Notifications = append(rec.Notifications, e.notes(t, waitNotes(c, wait, 3*time.Second))...)
		}
	}
	for _, tc := range mc.then {
		call(tc.method, tc.params)
	}
	// A last request: whatever the calls sent arrives before its answer.
	c.call("config/read", map[string]any{})
	var rest []rpcMsg
	for len(c.msgs) > 0 {
		rest = append(rest, <-c.msgs)
	}
	rec.Notifications = append(rec.Notifications, e.notes(t, rest)...)
	for _, f := range mc.files {
		if rec.Files == nil {
			rec.Files = map[string]string{}
		}
		rec.Files[f] = e.unexpand(describeFile(e.expand(f).(string)))
	}
	return rec
}

// describeFile is a file's text (cut at 4 KiB; a zip: its entries' names) or a folder's
// entry names.
func describeFile(path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return ""
	}
	if fi.IsDir() {
		var names []string
		filepath.WalkDir(path, func(p string, d os.DirEntry, err error) error {
			if err == nil && p != path {
				rel, _ := filepath.Rel(path, p)
				names = append(names, filepath.ToSlash(rel))
			}
			return nil
		})
		return "folder: " + strings.Join(names, " ")
	}
	if zr, err := zip.OpenReader(path); err == nil {
		defer zr.Close()
		var names []string
		for _, f := range zr.File {
			names = append(names, f.Name)
		}
		return "zip: " + strings.Join(names, " ")
	}
	b, _ := os.ReadFile(path)
	if len(b) > 4096 {
		b = b[:4096]
	}
	return string(b)
}

func (e *env) notes(t *testing.T, ms []rpcMsg) []recordedNote {
	var out []recordedNote
	for _, m := range ms {
		// remoteControl/status/changed follows initialize, not a method: the recorded
		// sequences compare it.
		if m.Method == "" || ignoredMethods[m.Method] || m.Method == "remoteControl/status/changed" {
			continue
		}
		out = append(out, recordedNote{Method: m.Method, Params: json.RawMessage(e.unexpand(string(normalize(t, m.Params))))})
	}
	return out
}

// waitNotes returns the notifications up to the first with method, or those seen when
// timeout passes (an answer that never comes is part of the record).
func waitNotes(c *asClient, method string, timeout time.Duration) []rpcMsg {
	var got []rpcMsg
	deadline := time.After(timeout)
	for {
		select {
		case m := <-c.msgs:
			got = append(got, m)
			if m.Method == method {
				return got
			}
		case <-deadline:
			return got
		}
	}
}

func TestRecordMethodsReference(t *testing.T) {
	ref := referenceBinary(t)
	if os.Getenv("GOCODEX_RECORD_METHODS") == "" {
		t.Skip("set GOCODEX_RECORD_METHODS=1 to rewrite " + methodsGolden)
	}
	// Cases not run (-run) keep their recording.
	out := map[string]methodRecord{}
	if _, err := os.Stat(methodsGolden); err == nil {
		out = loadMethodsGolden(t)
	}
	for _, mc := range allMethodCases() {
		t.Run(mc.name, func(t *testing.T) { out[mc.name] = recordMethodCase(t, ref, mc) })
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(methodsGolden, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// allMethodCases are the recorded cases: the new methods', the bad params', and the
// answer shapes of existing methods (appserver_shape_cases_test.go).
func allMethodCases() []methodCase {
	return append(append(append([]methodCase(nil), newMethodCases...), badParamCases...), shapeCases...)
}

func loadMethodsGolden(t *testing.T) map[string]methodRecord {
	t.Helper()
	b, err := os.ReadFile(filepath.FromSlash(methodsGolden))
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]methodRecord
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// shapeOf sums a JSON value up as its keys and kinds (not its values): two answers with the
// same shape carry the same result keys of the same types.
func shapeOf(raw json.RawMessage) string {
	var v any
	if len(raw) == 0 {
		return ""
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return "invalid"
	}
	var walk func(v any) string
	walk = func(v any) string {
		switch x := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			parts := make([]string, len(keys))
			for i, k := range keys {
				parts[i] = shapeKey(k) + ":" + walk(x[k])
			}
			sort.Strings(parts)
			return "{" + strings.Join(parts, ",") + "}"
		case []any:
			seen := map[string]bool{}
			var parts []string
			for _, el := range x {
				if s := walk(el); !seen[s] {
					seen[s] = true
					parts = append(parts, s)
				}
			}
			sort.Strings(parts)
			return "[" + strings.Join(parts, "|") + "]"
		case string:
			return "string"
		case float64:
			return "number"
		case bool:
			return "bool"
		case nil:
			return "null"
		}
		return "?"
	}
	return walk(v)
}

// shapeKey is a key as a shape names it: a thread id (readStates' keys) or a test's temp
// folder (config's projects, in a key or within an origin's dotted key) differs from run to
// run, so it is named by its kind.
func shapeKey(k string) string {
	switch {
	case uuidKey.MatchString(k):
		return "<id>"
	case filepath.IsAbs(k):
		return "<path>"
	}
	return tempFolder.ReplaceAllString(k, "<path>")
}

var (
	uuidKey    = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	tempFolder = regexp.MustCompile(`/\S*?/\d{3}\b`) // t.TempDir's folders end in /001, /002, …
)

// summary is what the differential test compares: per call its error code or result shape,
// then the notifications' methods.
func (r methodRecord) summary(mc methodCase) []string {
	var out []string
	for i, c := range r.Calls {
		if c.Error != nil {
			e := c.Method + " error " + itoa(c.Error.Code)
			if strings.HasPrefix(mc.name, "bad: ") { // bad input: Codex's very words
				e += " " + c.Error.Message
			}
			out = append(out, e)
			continue
		}
		if i == 0 && mc.probe != nil {
			out = append(out, c.Method+" -> "+mc.probe(c.Result))
			continue
		}
		if i > 0 && i-1 < len(mc.then) && mc.then[i-1].probe != nil {
			out = append(out, c.Method+" -> "+mc.then[i-1].probe(c.Result))
			continue
		}
		out = append(out, c.Method+" -> "+shapeOf(c.Result))
	}
	for _, n := range r.Notifications {
		out = append(out, "notification "+n.Method)
	}
	if mc.sameFiles {
		for _, f := range mc.files {
			out = append(out, "file "+f+": "+r.Files[f])
		}
	}
	return out
}

// Each new method answers as Codex 0.169 did in the recording: the same error class where
// it errs, the same result keys and kinds where it answers, the same notifications in the
// same order.
//
// Where the reference is installed, each case is also run on it live.
func TestAppServerNewMethodsMatchReference(t *testing.T) {
	golden := loadMethodsGolden(t)
	ref := os.Getenv("GOCODEX_REFERENCE_CODEX")
	for _, mc := range allMethodCases() {
		t.Run(mc.name, func(t *testing.T) {
			want, ok := golden[mc.name]
			if !ok {
				t.Fatalf("%s is not in %s: record it", mc.name, methodsGolden)
			}
			got := recordMethodCase(t, binary, mc)
			if diff := cmp.Diff(want.summary(mc), got.summary(mc)); diff != "" {
				t.Errorf("(-codex 0.169 +ours):\n%s\nours: %+v", diff, got)
			}
			if ref != "" {
				live := recordMethodCase(t, ref, mc)
				if diff := cmp.Diff(live.summary(mc), got.summary(mc)); diff != "" {
					t.Errorf("(-live codex +ours):\n%s", diff)
				}
			}
		})
	}
}
