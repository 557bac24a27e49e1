package appserver_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

func TestV1Conversation(t *testing.T) {
	w := newWorld(t, tk.ConfigOptions{ApprovalPolicy: "untrusted"})
	cl := w.connect(w.Srv)
	var conv struct {
		ConversationID string `json:"conversationId"`
		Model          string `json:"model"`
		RolloutPath    string `json:"rolloutPath"`
	}
	cl.call("newConversation", map[string]any{"cwd": w.Work}, &conv)
	if conv.ConversationID == "" || conv.Model != "gpt-5.5" {
		t.Fatalf("newConversation = %+v", conv)
	}
	var sub struct {
		SubscriptionID string `json:"subscriptionId"`
	}
	cl.call("addConversationListener", map[string]any{"conversationId": conv.ConversationID}, &sub)

	w.Model.Enqueue(streamed("hi ", "there"))
	cl.call("sendUserMessage", map[string]any{"conversationId": conv.ConversationID, "items": []any{map[string]any{"type": "text", "data": map[string]any{"text": "hello"}}}}, nil)
	got := cl.until("codex/event/task_complete")
	if !contains(methods(got), "codex/event/agent_message_delta") || !contains(methods(got), "codex/event/task_started") {
		t.Errorf("events = %v", methods(got))
	}
	ev := find(got, "codex/event/agent_message")
	if len(ev) != 1 || ev[0]["conversationId"] != conv.ConversationID || ev[0]["msg"].(map[string]any)["message"] != "hi there" {
		t.Errorf("agent_message = %v", ev)
	}
	for _, n := range got {
		// remoteControl/status/changed follows every initialize, before any v1 call.
		if !strings.HasPrefix(n.Method, "codex/event/") && n.Method != "remoteControl/status/changed" {
			t.Errorf("v2 notification %s sent to a v1 client", n.Method)
		}
	}

	// An approval through execCommandApproval.
	cl.answer = func(method string, _ json.RawMessage) any {
		if method != "execCommandApproval" {
			t.Errorf("server request %s, want execCommandApproval", method)
		}
		return map[string]any{"decision": "approved"}
	}
	w.Model.Enqueue(commandCall("call_1", "touch v1marker"), answer("done"))
	cl.call("sendUserTurn", map[string]any{"conversationId": conv.ConversationID, "items": []any{map[string]any{"type": "text", "data": map[string]any{"text": "touch"}}},
		"cwd": w.Work, "approvalPolicy": "untrusted", "sandboxPolicy": map[string]any{"mode": "danger-full-access"}, "model": "gpt-5.5", "summary": "auto"}, nil)
	cl.until("codex/event/task_complete")
	if _, err := os.Stat(filepath.Join(w.Work, "v1marker")); err != nil {
		t.Errorf("approved command did not run: %v", err)
	}

	// Interrupt waits for the abort.
	w.Model.Enqueue(tk.Stall(2, tk.Created(), tk.TextDelta("slow"), tk.Completed(tk.Usage{})))
	cl.call("sendUserMessage", map[string]any{"conversationId": conv.ConversationID, "items": []any{map[string]any{"type": "text", "data": map[string]any{"text": "slow"}}}}, nil)
	cl.until("codex/event/agent_message_delta")
	var ab struct {
		AbortReason string `json:"abortReason"`
	}
	cl.call("interruptConversation", map[string]any{"conversationId": conv.ConversationID}, &ab)
	if ab.AbortReason != "interrupted" {
		t.Errorf("abortReason = %q", ab.AbortReason)
	}
	cl.call("removeConversationListener", map[string]any{"subscriptionId": sub.SubscriptionID}, nil)

	var list struct {
		Items []map[string]any `json:"items"`
	}
	cl.call("listConversations", map[string]any{}, &list)
	if len(list.Items) != 1 || list.Items[0]["conversationId"] != conv.ConversationID || list.Items[0]["preview"] != "hello" {
		t.Errorf("listConversations = %v", list.Items)
	}
	var sum struct {
		Summary map[string]any `json:"summary"`
	}
	cl.call("getConversationSummary", map[string]any{"conversationId": conv.ConversationID}, &sum)
	if sum.Summary["conversationId"] != conv.ConversationID {
		t.Errorf("summary = %v", sum.Summary)
	}
	cl.call("archiveConversation", map[string]any{"conversationId": conv.ConversationID, "rolloutPath": conv.RolloutPath}, nil)
	cl.call("listConversations", map[string]any{}, &list)
	if len(list.Items) != 0 {
		t.Errorf("archived conversation still listed: %v", list.Items)
	}
}

func TestV1Misc(t *testing.T) {
	w := newWorld(t, tk.ConfigOptions{})
	cl := w.connect(w.Srv)
	var auth map[string]any
	cl.call("getAuthStatus", map[string]any{"includeToken": true}, &auth)
	cl.call("loginApiKey", map[string]any{"apiKey": "sk-v1"}, nil)
	cl.call("setDefaultModel", map[string]any{"model": "gpt-6", "reasoningEffort": "high"}, nil)
	var saved struct {
		Config map[string]any `json:"config"`
	}
	cl.call("getUserSavedConfig", nil, &saved)
	if saved.Config["model"] != "gpt-6" || saved.Config["modelReasoningEffort"] != "high" {
		t.Errorf("saved config = %v", saved.Config)
	}
	var info map[string]any
	cl.call("userInfo", nil, &info)
	var out struct {
		ExitCode int    `json:"exitCode"`
		Stdout   string `json:"stdout"`
	}
	cl.call("execOneOffCommand", map[string]any{"command": []string{"echo", "one-off"}, "cwd": w.Work}, &out)
	if out.ExitCode != 0 || out.Stdout != "one-off\n" {
		t.Errorf("execOneOffCommand = %+v", out)
	}

	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-c", "user.email=t@t", "-c", "user.name=t"}, args...)...)
		cmd.Dir = w.Work
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, b)
		}
	}
	git("init", "-q")
	os.WriteFile(filepath.Join(w.Work, "f.txt"), []byte("one\n"), 0o644)
	git("add", ".")
	git("commit", "-qm", "c")
	os.WriteFile(filepath.Join(w.Work, "f.txt"), []byte("two\n"), 0o644)
	var diff struct {
		Sha  string `json:"sha"`
		Diff string `json:"diff"`
	}
	cl.call("gitDiffToRemote", map[string]any{"cwd": w.Work}, &diff)
	if len(diff.Sha) != 40 || !strings.Contains(diff.Diff, "+two") {
		t.Errorf("gitDiffToRemote = %+v", diff)
	}
}

// newConversation's profile selects a [profiles.<name>] table, as Codex's v1 server did.
func TestV1NewConversationProfile(t *testing.T) {
	w := newWorld(t, tk.ConfigOptions{})
	f, err := os.OpenFile(filepath.Join(w.Home, "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("\n[profiles.fast]\nmodel = \"gpt-5.4-mini\"\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	cl := w.connect(w.Srv)
	var conv struct {
		Model string `json:"model"`
	}
	cl.call("newConversation", map[string]any{"cwd": w.Work, "profile": "fast"}, &conv)
	if conv.Model != "gpt-5.4-mini" {
		t.Fatalf("model = %q, want the profile's gpt-5.4-mini", conv.Model)
	}
}
