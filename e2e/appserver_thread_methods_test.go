package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// The thread methods of issue 18 (sections, attachments, goals, metadata, revert,
// inject_items, Guardian approval) and the thread result keys, called in one session
// against the scripted model. Each call is summed up as the shape of its result (keys,
// nested where the object is the method's own) or its error (code and message with ids
// masked), plus the notifications it caused, in order. The transcript Codex 0.169 gave is
// in testdata/appserver_thread_methods.golden.json (GOCODEX_RECORD_THREAD_GOLDEN=1 with
// GOCODEX_REFERENCE_CODEX set records it again).

const threadMethodsGolden = "testdata/appserver_thread_methods.golden.json"

const zeroID = "00000000-0000-0000-0000-000000000000"

// threadStep is one line of the transcript.
type threadStep struct {
	Step          string   `json:"step"`
	Result        string   `json:"result,omitempty"`
	Error         string   `json:"error,omitempty"`
	Notifications []string `json:"notifications,omitempty"`
}

// threadMethodGaps are the differences from Codex 0.169 this implementation keeps, by step;
// the golden comparison expects ours to differ there exactly as written.
// (Codex 0.169 refuses to delete a thread a fork still references; gocodex's forks copy
// their history, so the transcript deletes the fork first, where both agree.)
var threadMethodGaps = map[string]string{}

var idPattern = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// ignoredResultKeys are keys of Codex's experimental API it sends to every client that
// gocodex does not send.
var ignoredResultKeys = map[string]bool{"initialTurnsPage": true}

// opaqueKeys are not descended into: Thread, Turn and item objects carry experimental
// fields in Codex's answers (compared elsewhere).
var opaqueKeys = map[string]bool{"thread": true, "turns": true, "items": true, "item": true, "sandbox": true, "collaborationMode": true}

// shapeOf sums up a JSON value: objects as their sorted keys (with nested shapes), arrays
// by their first element and length class, scalars as nothing.
func threadShapeOf(v any, opaqueData bool) string {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			if !ignoredResultKeys[k] {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		var b strings.Builder
		b.WriteString("{")
		for i, k := range keys {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(idPattern.ReplaceAllString(k, "<id>")) // a map by thread id
			if opaqueKeys[k] || (k == "data" && opaqueData) {
				if arr, ok := x[k].([]any); ok {
					b.WriteString(":" + countClass(len(arr)))
				}
				continue
			}
			if s := threadShapeOf(x[k], opaqueData); s != "" {
				b.WriteString(":" + s)
			}
		}
		b.WriteString("}")
		return b.String()
	case []any:
		if len(x) == 0 {
			return "[]"
		}
		return "[" + countClass(len(x)) + " " + threadShapeOf(x[0], opaqueData) + "]"
	}
	return ""
}

func countClass(n int) string {
	switch n {
	case 0:
		return "0"
	case 1:
		return "1"
	}
	return "n"
}

// threadMethodsTranscript runs the session against bin.
func threadMethodsTranscript(t *testing.T, bin string) []threadStep {
	e := appServerEnv(t, "never")
	e.Model.Enqueue(answer("one"), answer("two"), answer("three"), answer("four"))
	c, stop := e.startAppServerOf(bin)
	defer stop()
	var out []threadStep
	vars := map[string]string{}
	id := c.startThread(map[string]any{"cwd": e.Workdir})
	vars["T"] = id
	runTurn := func(name string) {
		tid := c.turn(id, "hello")
		c.until("turn/completed")
		vars[name] = tid
	}
	runTurn("TURN1")
	runTurn("TURN2")
	runTurn("TURN3")
	c.drain()
	call := func(step, method string, params map[string]any) map[string]any {
		t.Helper()
		for k, v := range params {
			if s, ok := v.(string); ok && strings.HasPrefix(s, "$") {
				params[k] = vars[s[1:]]
			}
		}
		rec := threadStep{Step: step}
		res, er := c.call(method, params)
		var m map[string]any
		if er != nil {
			rec.Error = errorClass(er.Error.Code, er.Error.Message)
		} else {
			_ = json.Unmarshal(res, &m)
			opaque := method == "thread/list" || method == "thread/turns/list" || method == "thread/items/list"
			rec.Result = threadShapeOf(m, opaque)
		}
		// Codex sends some notifications a while after its answer: wait for a quiet spell.
		// deprecationNotice goes out when a session starts, racing its thread/started inside
		// Codex 0.169: it lands in whichever step is listening; the recorded sequences
		// check it.
		for _, n := range c.settle(250 * time.Millisecond) {
			if !ignoredMethods[n.Method] && n.Method != "deprecationNotice" && n.Method != "remoteControl/status/changed" {
				rec.Notifications = append(rec.Notifications, n.Method)
			}
		}
		out = append(out, rec)
		return m
	}
	// Sections.
	call("sections listed", "threadSection/list", map[string]any{})
	created := call("section created", "threadSection/create", map[string]any{"name": "Work", "appearance": map[string]any{"color": "red", "icon": "star"}})
	if sec, ok := created["section"].(map[string]any); ok {
		vars["SEC"], _ = sec["id"].(string)
	}
	call("section with no name", "threadSection/create", map[string]any{"name": ""})
	call("sections paged", "threadSection/list", map[string]any{"limit": 1})
	call("section updated", "threadSection/update", map[string]any{"sectionId": "$SEC", "name": "Work2", "appearance": map[string]any{"color": "blue"}})
	call("unknown section updated", "threadSection/update", map[string]any{"sectionId": zeroID, "name": "x"})
	call("thread moved into section", "thread/section/move", map[string]any{"threadId": "$T", "sectionId": "$SEC"})
	call("threads of the section", "thread/list", map[string]any{"sectionId": "$SEC"})
	call("threads in no section", "thread/list", map[string]any{"sectionId": nil})
	call("thread moved to unknown section", "thread/section/move", map[string]any{"threadId": "$T", "sectionId": zeroID})
	call("unknown thread moved", "thread/section/move", map[string]any{"threadId": zeroID, "sectionId": nil})
	call("section deleted", "threadSection/delete", map[string]any{"sectionId": "$SEC"})
	call("section deleted twice", "threadSection/delete", map[string]any{"sectionId": "$SEC"})
	// Attachments.
	call("no attachments", "thread/attachment/list", map[string]any{"threadId": "$T"})
	call("attachment added", "thread/attachment/add", map[string]any{"threadId": "$T", "attachmentType": "pr", "identityKey": "gh/1", "payload": map[string]any{"url": "x"}})
	call("attachment added again", "thread/attachment/add", map[string]any{"threadId": "$T", "attachmentType": "pr", "identityKey": "gh/1", "payload": map[string]any{"url": "y"}})
	call("attachment with null payload", "thread/attachment/add", map[string]any{"threadId": "$T", "attachmentType": "pr", "identityKey": "gh/2", "payload": nil})
	call("attachment without type", "thread/attachment/add", map[string]any{"threadId": "$T", "attachmentType": "", "identityKey": "gh/3", "payload": 1})
	call("attachment without key", "thread/attachment/add", map[string]any{"threadId": "$T", "attachmentType": "pr", "identityKey": "", "payload": 1})
	call("attachment to unknown thread", "thread/attachment/add", map[string]any{"threadId": zeroID, "attachmentType": "pr", "identityKey": "gh/1", "payload": 1})
	call("attachments paged", "thread/attachment/list", map[string]any{"threadId": "$T", "limit": 1})
	call("attachment owners", "thread/attachmentOwner/list", map[string]any{"attachmentType": "pr", "identityKey": "gh/1"})
	call("archived attachment owners", "thread/attachmentOwner/list", map[string]any{"attachmentType": "pr", "identityKey": "gh/1", "archived": true})
	call("attachment removed", "thread/attachment/remove", map[string]any{"threadId": "$T", "attachmentType": "pr", "identityKey": "gh/1"})
	call("attachment removed twice", "thread/attachment/remove", map[string]any{"threadId": "$T", "attachmentType": "pr", "identityKey": "gh/1"})
	call("attachments of unknown thread", "thread/attachment/list", map[string]any{"threadId": zeroID})
	// Goals (not active ones: Codex pursues those with turns of its own).
	call("no goal", "thread/goal/get", map[string]any{"threadId": "$T"})
	call("paused goal set", "thread/goal/set", map[string]any{"threadId": "$T", "objective": "ship it", "status": "paused"})
	call("goal completed", "thread/goal/set", map[string]any{"threadId": "$T", "status": "complete", "tokenBudget": 1000})
	call("goal with empty objective", "thread/goal/set", map[string]any{"threadId": "$T", "objective": ""})
	call("goal read", "thread/goal/get", map[string]any{"threadId": "$T"})
	call("goal cleared", "thread/goal/clear", map[string]any{"threadId": "$T"})
	call("goal cleared twice", "thread/goal/clear", map[string]any{"threadId": "$T"})
	call("goal of unknown thread", "thread/goal/get", map[string]any{"threadId": zeroID})
	// Metadata.
	call("git metadata set", "thread/metadata/update", map[string]any{"threadId": "$T", "gitInfo": map[string]any{"branch": "feat", "sha": "abc"}})
	call("git branch cleared", "thread/metadata/update", map[string]any{"threadId": "$T", "gitInfo": map[string]any{"branch": nil}})
	call("metadata without fields", "thread/metadata/update", map[string]any{"threadId": "$T"})
	call("gitInfo without fields", "thread/metadata/update", map[string]any{"threadId": "$T", "gitInfo": map[string]any{}})
	call("empty branch", "thread/metadata/update", map[string]any{"threadId": "$T", "gitInfo": map[string]any{"branch": ""}})
	call("metadata of unknown thread", "thread/metadata/update", map[string]any{"threadId": zeroID, "gitInfo": map[string]any{"branch": "x"}})
	// Lists and their backwards cursors.
	call("turns paged", "thread/turns/list", map[string]any{"threadId": "$T", "limit": 1})
	call("items paged", "thread/items/list", map[string]any{"threadId": "$T", "limit": 1})
	call("threads listed", "thread/list", map[string]any{})
	call("loaded thread resumed", "thread/resume", map[string]any{"threadId": "$T"})
	// Revert and injection change what the model sees next.
	call("reverted before the second turn", "thread/revert", map[string]any{"threadId": "$T", "beforeTurnId": "$TURN2"})
	call("turns after revert", "thread/turns/list", map[string]any{"threadId": "$T"})
	call("revert to unknown turn", "thread/revert", map[string]any{"threadId": "$T", "beforeTurnId": "nope"})
	call("revert of unknown thread", "thread/revert", map[string]any{"threadId": zeroID, "beforeTurnId": "x"})
	call("items injected", "thread/inject_items", map[string]any{"threadId": "$T", "items": []any{
		map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": "injected question"}}},
		map[string]any{"type": "message", "role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": "injected answer"}}}}})
	call("no items injected", "thread/inject_items", map[string]any{"threadId": "$T", "items": []any{}})
	call("items injected into unknown thread", "thread/inject_items", map[string]any{"threadId": zeroID, "items": []any{map[string]any{"type": "message"}}})
	runTurn("TURN4")
	out = append(out, threadStep{Step: "next request's history", Result: historySummary(e.Model.Requests())})
	call("Guardian approval without event id", "thread/approveGuardianDeniedAction", map[string]any{"threadId": "$T", "event": map[string]any{}})
	call("interrupt of a finished turn", "turn/interrupt", map[string]any{"threadId": "$T", "turnId": "$TURN4"})
	// The other thread methods on a thread that does not exist.
	for _, m := range []string{"thread/read", "thread/turns/list", "thread/items/list", "thread/unsubscribe", "thread/compact/start",
		"thread/archive", "thread/unarchive", "thread/delete", "thread/fork", "thread/resume"} {
		call(m+" of unknown thread", m, map[string]any{"threadId": zeroID})
	}
	call("thread/shellCommand of unknown thread", "thread/shellCommand", map[string]any{"threadId": zeroID, "command": "true"})
	call("turn/start of unknown thread", "turn/start", map[string]any{"threadId": zeroID, "input": []any{map[string]any{"type": "text", "text": "x"}}})
	call("turn/steer of unknown thread", "turn/steer", map[string]any{"threadId": zeroID, "expectedTurnId": "x", "input": []any{map[string]any{"type": "text", "text": "x"}}})
	call("turn/interrupt of unknown thread", "turn/interrupt", map[string]any{"threadId": zeroID, "turnId": "x"})
	call("thread/read of malformed id", "thread/read", map[string]any{"threadId": "nope"})
	call("read state update without experimentalApi", "thread/readState/update", map[string]any{"threadId": "$T", "expectedRevision": "x", "operation": map[string]any{"type": "read"}})
	// Names.
	call("thread named", "thread/name/set", map[string]any{"threadId": "$T", "name": "Lighthouse keeper"})
	call("empty name", "thread/name/set", map[string]any{"threadId": "$T", "name": ""})
	call("unknown thread named", "thread/name/set", map[string]any{"threadId": zeroID, "name": "x"})
	call("threads found by name", "thread/list", map[string]any{"searchTerm": "Lighthouse"})
	call("search is case-sensitive", "thread/list", map[string]any{"searchTerm": "lighthouse"})
	call("threads found by first message", "thread/list", map[string]any{"searchTerm": "hello"})
	// What a restart keeps.
	kept := call("section kept", "threadSection/create", map[string]any{"name": "Kept"})
	if sec, ok := kept["section"].(map[string]any); ok {
		vars["SEC2"], _ = sec["id"].(string)
	}
	call("thread moved into kept section", "thread/section/move", map[string]any{"threadId": "$T", "sectionId": "$SEC2"})
	call("attachment kept", "thread/attachment/add", map[string]any{"threadId": "$T", "attachmentType": "pr", "identityKey": "gh/9", "payload": "kept"})
	call("paused goal kept", "thread/goal/set", map[string]any{"threadId": "$T", "objective": "keep it", "status": "paused"})
	call("thread read", "thread/read", map[string]any{"threadId": "$T"})
	forked := call("thread forked", "thread/fork", map[string]any{"threadId": "$T"})
	if th, ok := forked["thread"].(map[string]any); ok {
		vars["F"], _ = th["id"].(string)
	}
	call("fork's attachments", "thread/attachment/list", map[string]any{"threadId": "$F"})
	call("fork's goal", "thread/goal/get", map[string]any{"threadId": "$F"})
	stop()
	c, stop = e.startAppServerOf(bin)
	defer stop()
	call("thread resumed after restart", "thread/resume", map[string]any{"threadId": "$T"})
	out = append(out, threadStep{Step: "state after restart", Result: keptState(t, c, vars["T"])})
	call("thread archived", "thread/archive", map[string]any{"threadId": "$T"})
	call("owners of an archived thread's attachment", "thread/attachmentOwner/list", map[string]any{"attachmentType": "pr", "identityKey": "gh/9", "archived": true})
	call("all owners of an archived thread's attachment", "thread/attachmentOwner/list", map[string]any{"attachmentType": "pr", "identityKey": "gh/9"})
	call("goal of an archived thread", "thread/goal/get", map[string]any{"threadId": "$T"})
	call("archived thread moved", "thread/section/move", map[string]any{"threadId": "$T", "sectionId": nil})
	call("fork deleted", "thread/delete", map[string]any{"threadId": "$F"})
	call("owners after the fork's deletion", "thread/attachmentOwner/list", map[string]any{"attachmentType": "pr", "identityKey": "gh/9"})
	call("attachments of a deleted thread", "thread/attachment/list", map[string]any{"threadId": "$F"})
	call("goal of a deleted thread", "thread/goal/get", map[string]any{"threadId": "$F"})
	call("forked-from thread deleted", "thread/delete", map[string]any{"threadId": "$T"})
	return out
}

// keptState sums up what a restarted server knows of thread id: its section, git edits,
// goal, attachments and the section names.
func keptState(t *testing.T, c *asClient, id string) string {
	var read struct {
		Thread struct {
			Name    *string `json:"name"`
			Section *struct {
				Name string `json:"name"`
			} `json:"section"`
			GitInfo *struct {
				Sha    *string `json:"sha"`
				Branch *string `json:"branch"`
			} `json:"gitInfo"`
		} `json:"thread"`
	}
	c.mustCall("thread/read", map[string]any{"threadId": id}, &read)
	var goal struct {
		Goal *struct {
			Objective string `json:"objective"`
			Status    string `json:"status"`
		} `json:"goal"`
	}
	c.mustCall("thread/goal/get", map[string]any{"threadId": id}, &goal)
	var atts, secs struct {
		Data []struct {
			IdentityKey string `json:"identityKey"`
			Name        string `json:"name"`
		} `json:"data"`
	}
	c.mustCall("thread/attachment/list", map[string]any{"threadId": id}, &atts)
	c.mustCall("threadSection/list", map[string]any{}, &secs)
	str := func(p *string) string {
		if p == nil {
			return "null"
		}
		return *p
	}
	var b strings.Builder
	b.WriteString("name=" + str(read.Thread.Name) + " section=")
	if read.Thread.Section != nil {
		b.WriteString(read.Thread.Section.Name)
	}
	if g := read.Thread.GitInfo; g != nil {
		b.WriteString(" sha=" + str(g.Sha) + " branch=" + str(g.Branch))
	}
	if goal.Goal != nil {
		b.WriteString(" goal=" + goal.Goal.Objective + "/" + goal.Goal.Status)
	}
	b.WriteString(" attachments=")
	for _, a := range atts.Data {
		b.WriteString(a.IdentityKey + ";")
	}
	b.WriteString(" sections=")
	for _, s := range secs.Data {
		b.WriteString(s.Name + ";")
	}
	return b.String()
}

// historySummary names the assistant answers and injected texts the last model request
// carried: after the revert only the first turn's answer and the injected pair remain.
func historySummary(reqs []tk.Request) string {
	if len(reqs) == 0 {
		return "no request"
	}
	body := string(reqs[len(reqs)-1].Body)
	var seen []string
	for _, s := range []string{`"one"`, `"two"`, `"three"`, `"injected question"`, `"injected answer"`} {
		if strings.Contains(body, s) {
			seen = append(seen, s)
		}
	}
	return strings.Join(seen, " ")
}

// errorClass is an error's code and message with ids masked.
func errorClass(code int, msg string) string {
	msg = idPattern.ReplaceAllString(msg, "<id>")
	return strconv.Itoa(code) + " " + msg
}

// settle returns the notifications that arrive until none has for quiet.
func (c *asClient) settle(quiet time.Duration) []rpcMsg {
	var out []rpcMsg
	for {
		select {
		case m := <-c.msgs:
			out = append(out, m)
		case <-time.After(quiet):
			return out
		}
	}
}

// drain returns the notifications that have arrived, without waiting.
func (c *asClient) drain() []rpcMsg {
	var out []rpcMsg
	for {
		select {
		case m := <-c.msgs:
			out = append(out, m)
		default:
			return out
		}
	}
}

func readThreadGolden(t *testing.T) []threadStep {
	b, err := os.ReadFile(threadMethodsGolden)
	if err != nil {
		t.Fatal(err)
	}
	var steps []threadStep
	if err := json.Unmarshal(b, &steps); err != nil {
		t.Fatal(err)
	}
	return steps
}

// Ours against the transcript recorded from Codex 0.169 (no reference needed).
func TestAppServerThreadMethodsGolden(t *testing.T) {
	want := readThreadGolden(t)
	got := threadMethodsTranscript(t, binary)
	compareThreadSteps(t, want, got)
}

// Ours against Codex 0.169 live; with GOCODEX_RECORD_THREAD_GOLDEN=1 Codex's transcript is
// written as the new golden file.
func TestAppServerThreadMethodsMatchReference(t *testing.T) {
	ref := referenceBinary(t)
	theirs := threadMethodsTranscript(t, ref)
	if os.Getenv("GOCODEX_RECORD_THREAD_GOLDEN") == "1" {
		b, _ := json.MarshalIndent(theirs, "", "  ")
		if err := os.WriteFile(filepath.FromSlash(threadMethodsGolden), append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("recorded %s", threadMethodsGolden)
	}
	compareThreadSteps(t, theirs, threadMethodsTranscript(t, binary))
}

func compareThreadSteps(t *testing.T, codex, ours []threadStep) {
	t.Helper()
	byStep := map[string]threadStep{}
	for _, s := range ours {
		byStep[s.Step] = s
	}
	if len(codex) != len(ours) {
		t.Errorf("%d steps, Codex %d", len(ours), len(codex))
	}
	for _, want := range codex {
		got, ok := byStep[want.Step]
		if !ok {
			t.Errorf("%s: missing", want.Step)
			continue
		}
		if gap, known := threadMethodGaps[want.Step]; known {
			t.Logf("%s: known gap (%s)", want.Step, gap)
			continue
		}
		// Codex 0.169 sometimes says a thread's status twice in a row (notLoaded on
		// archive, observed live): on both sides a repeat counts once.
		want.Notifications, got.Notifications = collapseStatusRepeats(want.Notifications), collapseStatusRepeats(got.Notifications)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-codex +ours):\n%s", want.Step, diff)
		}
	}
}

func collapseStatusRepeats(ns []string) []string {
	var out []string
	for _, n := range ns {
		if n == "thread/status/changed" && len(out) > 0 && out[len(out)-1] == n {
			continue
		}
		out = append(out, n)
	}
	return out
}
