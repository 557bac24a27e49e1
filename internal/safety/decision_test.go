package safety

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/internal/safety/execpolicy"
	"github.com/gocodex/gocodex/protocol"
)

func TestDecidePatchEmptyAndCache(t *testing.T) {
	cwd := t.TempDir()
	in := PatchInput{Cwd: cwd, Approval: protocol.ApprovalNever, Sandbox: sandboxFor(t, "danger-full-access")}
	if got := render(DecidePatch(in)); got != "forbidden:empty patch" {
		t.Errorf("empty patch: %s", got)
	}
	if got := PatchRejectedMessage(ReasonOutsideProject); got != "patch rejected: writing outside of the project; rejected by user approval settings" {
		t.Errorf("PatchRejectedMessage = %q", got)
	}

	// Approved for the session file by file: a later patch touching a subset is not asked
	// about; one touching a new file is.
	cache := NewApprovalCache()
	in = PatchInput{
		Paths:    []string{"a.txt", "/elsewhere/b.txt"},
		Cwd:      cwd,
		Approval: protocol.ApprovalUntrusted,
		Sandbox:  sandboxFor(t, "workspace-write"),
		Cache:    cache,
	}
	if d := DecidePatch(in); d.Kind != Prompt {
		t.Fatalf("first patch: %+v", d)
	}
	cache.Record(protocol.ReviewDecision{Kind: protocol.DecisionApprovedForSession}, in.CacheKeys()...)
	in.Paths = []string{filepath.Join(cwd, "a.txt")}
	if d := DecidePatch(in); d.Kind != Allow || !d.ApprovedForSession || !d.Sandboxed {
		t.Errorf("subset after approved_for_session: %+v", d)
	}
	in.Paths = []string{"a.txt", "c.txt"}
	if d := DecidePatch(in); d.Kind != Prompt {
		t.Errorf("new file after approved_for_session: %+v", d)
	}
}

func TestWritableRootsDefaultFromPolicy(t *testing.T) {
	cwd := t.TempDir()
	extra := t.TempDir()
	p := protocol.SandboxPolicy{Mode: protocol.SandboxWorkspaceWrite, WritableRoots: []string{extra}, ExcludeSlashTmp: true, ExcludeTmpdirEnvVar: true}
	in := PatchInput{Paths: []string{filepath.Join(extra, "x"), "y"}, Cwd: cwd, Approval: protocol.ApprovalNever, Sandbox: p}
	if d := DecidePatch(in); d.Kind != Allow {
		t.Errorf("configured writable root: %+v", d)
	}
	in.Paths = []string{"../escape.txt"}
	if d := DecidePatch(in); render(d) != "forbidden:"+ReasonOutsideProject {
		t.Errorf("path traversal: %+v", d)
	}
}

func TestDecideExecWithRules(t *testing.T) {
	p := execpolicy.NewParser()
	if err := p.Parse("test.rules", []byte(`
prefix_rule(pattern=["git", "push"], decision="prompt", justification="pushing publishes work")
prefix_rule(pattern=["git", "reset", "--hard"], decision="forbidden")
prefix_rule(pattern=["docker"], decision="forbidden", justification="use podman")
prefix_rule(pattern=["npm", "install"], decision="prompt")
prefix_rule(pattern=["cargo", "build"])
prefix_rule(pattern=["rm"])
`)); err != nil {
		t.Fatal(err)
	}
	policy := p.Policy()
	ws := sandboxFor(t, "workspace-write")
	tests := []struct {
		name     string
		cmd      []string
		approval protocol.AskForApproval
		want     Decision
	}{
		{"prompt rule with justification", []string{"git", "push", "origin"}, protocol.ApprovalOnRequest,
			Decision{Kind: Prompt, Sandboxed: true, Reason: "`git push origin` requires approval: pushing publishes work"}},
		{"prompt rule without justification", []string{"npm", "install", "left-pad"}, protocol.ApprovalOnRequest,
			Decision{Kind: Prompt, Sandboxed: true, Reason: "`npm install left-pad` requires approval by policy"}},
		{"prompt rule under never", []string{"git", "push"}, protocol.ApprovalNever,
			Decision{Kind: Forbidden, Reason: "approval required by policy, but AskForApproval is set to Never"}},
		{"prompt rule under granular without rules", []string{"git", "push"},
			protocol.AskForApproval{Mode: protocol.ApprovalModeGranular, Granular: &protocol.GranularApproval{SandboxApproval: true}},
			Decision{Kind: Forbidden, Reason: "approval required by policy rule, but AskForApproval::Granular.rules is false"}},
		{"prompt rule under granular with rules", []string{"git", "push"},
			protocol.AskForApproval{Mode: protocol.ApprovalModeGranular, Granular: &protocol.GranularApproval{Rules: true}},
			Decision{Kind: Prompt, Sandboxed: true, Reason: "`git push` requires approval: pushing publishes work"}},
		{"forbidden rule names the prefix", []string{"git", "reset", "--hard", "HEAD~1"}, protocol.ApprovalOnRequest,
			Decision{Kind: Forbidden, Reason: "`git reset --hard 'HEAD~1'` rejected: policy forbids commands starting with `git reset --hard`"}},
		{"forbidden rule justification", []string{"docker", "run", "x"}, protocol.ApprovalOnRequest,
			Decision{Kind: Forbidden, Reason: "`docker run x` rejected: use podman"}},
		{"forbidden wins inside a script", []string{"bash", "-lc", "cargo build && docker ps"}, protocol.ApprovalOnRequest,
			Decision{Kind: Forbidden, Reason: "`bash -lc 'cargo build && docker ps'` rejected: use podman"}},
		{"allow rule skips the sandbox", []string{"cargo", "build", "--release"}, protocol.ApprovalUntrusted,
			Decision{Kind: Allow}},
		{"allow rule beats the dangerous heuristic", []string{"rm", "-rf", "target"}, protocol.ApprovalNever,
			Decision{Kind: Allow}},
		{"allow rule plus known-safe asks under untrusted", []string{"bash", "-lc", "cargo build && ls"}, protocol.ApprovalUntrusted,
			Decision{Kind: Prompt, Sandboxed: true, ProposedAmendment: []string{"ls"}}},
		{"allow rule plus known-safe runs sandboxed under on-request", []string{"bash", "-lc", "cargo build && ls"}, protocol.ApprovalOnRequest,
			Decision{Kind: Allow, Sandboxed: true, ProposedAmendment: nil}},
		{"allow rule plus unknown prompts", []string{"bash", "-lc", "cargo build && make"}, protocol.ApprovalUntrusted,
			Decision{Kind: Prompt, Sandboxed: true, ProposedAmendment: []string{"make"}}},
		{"absolute path through basename", []string{"/usr/bin/docker", "ps"}, protocol.ApprovalOnRequest,
			Decision{Kind: Forbidden, Reason: "`/usr/bin/docker ps` rejected: use podman"}},
		{"heuristic prompt proposes the command", []string{"make", "test"}, protocol.ApprovalUntrusted,
			Decision{Kind: Prompt, Sandboxed: true, ProposedAmendment: []string{"make", "test"}}},
		// Codex 0.169 matches no rule inside a script that is not a plain sequence, here-documents
		// included; such a script is judged as a whole.
		{"heredoc: rule does not apply", []string{"bash", "-lc", "npm install <<EOF\ny\nEOF"}, protocol.ApprovalOnRequest,
			Decision{Kind: Allow, Sandboxed: true, ProposedAmendment: []string{"bash", "-lc", "npm install <<EOF\ny\nEOF"}}},
		{"redirect: rule does not apply", []string{"bash", "-lc", "docker ps > out.txt"}, protocol.ApprovalOnRequest,
			Decision{Kind: Allow, Sandboxed: true, ProposedAmendment: []string{"bash", "-lc", "docker ps > out.txt"}}},
		{"forced rm inside control flow", []string{"bash", "-lc", "for x in a; do rm -rf $x; done"}, protocol.ApprovalOnRequest,
			Decision{Kind: Prompt, Sandboxed: true, ProposedAmendment: []string{"bash", "-lc", "for x in a; do rm -rf $x; done"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := DecideExec(ExecInput{Command: tt.cmd, Cwd: "/w", Approval: tt.approval, Sandbox: ws, Policy: policy})
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("decision (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecideExecPromptReasonFromJustification(t *testing.T) {
	in := ExecInput{
		Command:            []string{"bash", "-lc", "echo hi"},
		Cwd:                "/w",
		Approval:           protocol.ApprovalOnRequest,
		Sandbox:            sandboxFor(t, "workspace-write"),
		SandboxPermissions: RequireEscalated,
		Justification:      "need it",
	}
	want := Decision{Kind: Prompt, Reason: "need it", ProposedAmendment: []string{"echo", "hi"}}
	if diff := cmp.Diff(want, DecideExec(in)); diff != "" {
		t.Errorf("decision (-want +got):\n%s", diff)
	}
	// A forced rm under granular without sandbox_approval is still asked about, with no
	// amendment on offer.
	in = ExecInput{Command: []string{"rm", "-rf", "x"}, Cwd: "/w", Approval: granularDeny, Sandbox: sandboxFor(t, "workspace-write")}
	want = Decision{Kind: Prompt, Sandboxed: true}
	if diff := cmp.Diff(want, DecideExec(in)); diff != "" {
		t.Errorf("granular-deny rm (-want +got):\n%s", diff)
	}
}

func TestDecideExecAmendmentSuggestions(t *testing.T) {
	ws := sandboxFor(t, "workspace-write")
	base := ExecInput{Cwd: "/w", Approval: protocol.ApprovalUntrusted, Sandbox: ws}

	in := base
	in.Command = []string{"make", "test", "-j4"}
	in.PrefixRule = []string{"make", "test"}
	if got := DecideExec(in).ProposedAmendment; !cmp.Equal(got, []string{"make", "test"}) {
		t.Errorf("model's prefix: %q", got)
	}
	in.PrefixRule = []string{"python3"} // too broad: fall back to the command itself
	in.Command = []string{"python3", "x.py"}
	if got := DecideExec(in).ProposedAmendment; !cmp.Equal(got, []string{"python3", "x.py"}) {
		t.Errorf("banned prefix: %q", got)
	}
	in.PrefixRule = []string{"make"} // would not cover the second command
	in.Command = []string{"bash", "-lc", "make && curl x"}
	if got := DecideExec(in).ProposedAmendment; !cmp.Equal(got, []string{"make"}) {
		t.Errorf("partial prefix: %q", got)
	}
}

func TestDecideExecSessionCache(t *testing.T) {
	cache := NewApprovalCache()
	in := ExecInput{
		Command:  []string{"cargo", "test"},
		Cwd:      "/w",
		Approval: protocol.ApprovalUntrusted,
		Sandbox:  sandboxFor(t, "workspace-write"),
		Cache:    cache,
	}
	if d := DecideExec(in); d.Kind != Prompt {
		t.Fatalf("first: %+v", d)
	}
	// A one-time approval is not remembered.
	if cache.Record(protocol.ReviewDecision{Kind: protocol.DecisionApproved}, in.CacheKey()) {
		t.Error("approved once was cached")
	}
	if d := DecideExec(in); d.Kind != Prompt {
		t.Fatalf("after approved: %+v", d)
	}
	cache.Record(protocol.ReviewDecision{Kind: protocol.DecisionApprovedForSession}, in.CacheKey())
	if d := DecideExec(in); d.Kind != Allow || !d.ApprovedForSession || !d.Sandboxed {
		t.Errorf("after approved_for_session: %+v", d)
	}
	// The key covers argv, cwd and sandbox_permissions.
	other := in
	other.Cwd = "/elsewhere"
	if d := DecideExec(other); d.Kind != Prompt {
		t.Errorf("other cwd: %+v", d)
	}
	other = in
	other.Tty = true
	if d := DecideExec(other); d.Kind != Prompt {
		t.Errorf("tty: %+v", d)
	}
	other = in
	other.Command = []string{"cargo", "test", "--all"}
	if d := DecideExec(other); d.Kind != Prompt {
		t.Errorf("other argv: %+v", d)
	}
	// Forbidden stays forbidden whatever was approved.
	never := in
	never.Approval = protocol.ApprovalNever
	never.Command = []string{"rm", "-rf", "x"}
	cache.Record(protocol.ReviewDecision{Kind: protocol.DecisionApprovedForSession}, never.CacheKey())
	if d := DecideExec(never); d.Kind != Forbidden {
		t.Errorf("never + dangerous after caching: %+v", d)
	}
}

func TestCommandKey(t *testing.T) {
	a := CommandKey([]string{"ls"}, "/w", false, "", []byte(`{"network": true}`))
	b := CommandKey([]string{"ls"}, "/w", false, UseDefault, []byte(`{"network":true}`))
	if a != b {
		t.Errorf("keys differ:\n%s\n%s", a, b)
	}
	want := `exec:{"command":["ls"],"cwd":"/w","tty":false,"sandbox_permissions":"use_default","additional_permissions":{"network":true}}`
	if a != want {
		t.Errorf("key = %s\nwant %s", a, want)
	}
	if CommandKey([]string{"ls"}, "/w", false, RequireEscalated, nil) == CommandKey([]string{"ls"}, "/w", false, UseDefault, nil) {
		t.Error("sandbox_permissions not part of the key")
	}
	if CommandKey([]string{"ls"}, "/w", true, "", nil) == CommandKey([]string{"ls"}, "/w", false, "", nil) {
		t.Error("tty not part of the key")
	}
}

func TestEscalationRejection(t *testing.T) {
	tests := []struct {
		approval protocol.AskForApproval
		perms    SandboxPermissions
		want     string
	}{
		{protocol.ApprovalOnRequest, RequireEscalated, ""},
		{protocol.ApprovalOnRequest, WithAdditionalPermissions, ""},
		{protocol.ApprovalNever, UseDefault, ""},
		{protocol.ApprovalNever, "", ""},
		{protocol.ApprovalNever, RequireEscalated, "approval policy is Never; reject command — you cannot ask for escalated permissions if the approval policy is Never"},
		// Untrusted and granular with sandbox_approval can ask, so the request goes on.
		{protocol.ApprovalUntrusted, RequireEscalated, ""},
		{granularAsk, RequireEscalated, ""},
		{protocol.ApprovalOnFailure, WithAdditionalPermissions, "approval policy is OnFailure; reject command — you cannot request additional permissions unless the approval policy is OnRequest"},
		// Observed verbatim from Codex 0.169's app-server.
		{granularDeny, RequireEscalated, "approval policy is Granular(GranularApprovalConfig { sandbox_approval: false, rules: false, skill_approval: false, request_permissions: false, mcp_elicitations: false }); reject command — you cannot ask for escalated permissions if the approval policy is Granular(GranularApprovalConfig { sandbox_approval: false, rules: false, skill_approval: false, request_permissions: false, mcp_elicitations: false })"},
	}
	for _, tt := range tests {
		if got := EscalationRejection(tt.approval, tt.perms); got != tt.want {
			t.Errorf("EscalationRejection(%v, %q) = %q, want %q", tt.approval, tt.perms, got, tt.want)
		}
	}
}

func TestEscalateOnFailure(t *testing.T) {
	tests := []struct {
		approval protocol.AskForApproval
		want     bool
	}{
		{protocol.ApprovalOnFailure, true},
		{protocol.ApprovalUntrusted, true},
		{granularAsk, true},
		{granularDeny, false},
		{protocol.ApprovalOnRequest, false},
		{protocol.ApprovalNever, false},
		{protocol.AskForApproval{}, false}, // zero value is on-request
	}
	for _, tt := range tests {
		if got := ShouldEscalateOnFailure(tt.approval); got != tt.want {
			t.Errorf("ShouldEscalateOnFailure(%v) = %v, want %v", tt.approval, got, tt.want)
		}
	}

	cache := NewApprovalCache()
	in := ExecInput{Command: []string{"make"}, Cwd: "/w", Approval: protocol.ApprovalOnFailure, Cache: cache}
	if !RetryNeedsPrompt(in, false) {
		t.Error("fresh command: retry should ask")
	}
	if RetryNeedsPrompt(in, true) {
		t.Error("already approved: retry should not ask again")
	}
	cache.Approve(in.CacheKey())
	if RetryNeedsPrompt(in, false) {
		t.Error("approved for session: retry should not ask")
	}
}
