package safety

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/internal/safety/execpolicy"
	"github.com/gocodex/gocodex/internal/sandbox"
	"github.com/gocodex/gocodex/protocol"
)

// execMatrix states, for every approval policy × sandbox × kind of command × whether the
// model asked for require_escalated, what must happen. "+sandbox" means the command runs
// (or, once approved, will run) inside the sandbox. Cells are written out rather than
// computed so that a change of behaviour shows up as a change of this table.
//
// The cells follow §5.3 except where Codex 0.169 itself behaves otherwise (checked by driving
// the binary through exec and app-server with the scripted model): a known-safe command gets
// no special treatment (untrusted asks even for `ls`), a forced rm under never is refused
// whatever the sandbox, granular-deny still asks about a forced rm, and untrusted may ask
// for escalation.
//
// granular-ask is granular{sandbox_approval: true, rules: true}; granular-deny has every flag
// false. The commands: safe = `ls -la`, dangerous = `rm -rf build`, other = `cargo build`.
const execMatrix = `
untrusted     read-only           safe       default    prompt+sandbox
untrusted     read-only           safe       escalated  prompt
untrusted     read-only           dangerous  default    prompt+sandbox
untrusted     read-only           dangerous  escalated  prompt
untrusted     read-only           other      default    prompt+sandbox
untrusted     read-only           other      escalated  prompt
untrusted     workspace-write     safe       default    prompt+sandbox
untrusted     workspace-write     safe       escalated  prompt
untrusted     workspace-write     dangerous  default    prompt+sandbox
untrusted     workspace-write     dangerous  escalated  prompt
untrusted     workspace-write     other      default    prompt+sandbox
untrusted     workspace-write     other      escalated  prompt
untrusted     danger-full-access  safe       default    prompt
untrusted     danger-full-access  safe       escalated  prompt
untrusted     danger-full-access  dangerous  default    prompt
untrusted     danger-full-access  dangerous  escalated  prompt
untrusted     danger-full-access  other      default    prompt
untrusted     danger-full-access  other      escalated  prompt
on-failure    read-only           safe       default    allow+sandbox
on-failure    read-only           safe       escalated  forbidden:escalation
on-failure    read-only           dangerous  default    prompt+sandbox
on-failure    read-only           dangerous  escalated  forbidden:escalation
on-failure    read-only           other      default    allow+sandbox
on-failure    read-only           other      escalated  forbidden:escalation
on-failure    workspace-write     safe       default    allow+sandbox
on-failure    workspace-write     safe       escalated  forbidden:escalation
on-failure    workspace-write     dangerous  default    prompt+sandbox
on-failure    workspace-write     dangerous  escalated  forbidden:escalation
on-failure    workspace-write     other      default    allow+sandbox
on-failure    workspace-write     other      escalated  forbidden:escalation
on-failure    danger-full-access  safe       default    allow
on-failure    danger-full-access  safe       escalated  forbidden:escalation
on-failure    danger-full-access  dangerous  default    prompt
on-failure    danger-full-access  dangerous  escalated  forbidden:escalation
on-failure    danger-full-access  other      default    allow
on-failure    danger-full-access  other      escalated  forbidden:escalation
on-request    read-only           safe       default    allow+sandbox
on-request    read-only           safe       escalated  prompt
on-request    read-only           dangerous  default    prompt+sandbox
on-request    read-only           dangerous  escalated  prompt
on-request    read-only           other      default    allow+sandbox
on-request    read-only           other      escalated  prompt
on-request    workspace-write     safe       default    allow+sandbox
on-request    workspace-write     safe       escalated  prompt
on-request    workspace-write     dangerous  default    prompt+sandbox
on-request    workspace-write     dangerous  escalated  prompt
on-request    workspace-write     other      default    allow+sandbox
on-request    workspace-write     other      escalated  prompt
on-request    danger-full-access  safe       default    allow
on-request    danger-full-access  safe       escalated  allow
on-request    danger-full-access  dangerous  default    prompt
on-request    danger-full-access  dangerous  escalated  prompt
on-request    danger-full-access  other      default    allow
on-request    danger-full-access  other      escalated  allow
never         read-only           safe       default    allow+sandbox
never         read-only           safe       escalated  forbidden:escalation
never         read-only           dangerous  default    forbidden:rm-f
never         read-only           dangerous  escalated  forbidden:escalation
never         read-only           other      default    allow+sandbox
never         read-only           other      escalated  forbidden:escalation
never         workspace-write     safe       default    allow+sandbox
never         workspace-write     safe       escalated  forbidden:escalation
never         workspace-write     dangerous  default    forbidden:rm-f
never         workspace-write     dangerous  escalated  forbidden:escalation
never         workspace-write     other      default    allow+sandbox
never         workspace-write     other      escalated  forbidden:escalation
never         danger-full-access  safe       default    allow
never         danger-full-access  safe       escalated  forbidden:escalation
never         danger-full-access  dangerous  default    forbidden:rm-f
never         danger-full-access  dangerous  escalated  forbidden:escalation
never         danger-full-access  other      default    allow
never         danger-full-access  other      escalated  forbidden:escalation
granular-ask  read-only           safe       default    allow+sandbox
granular-ask  read-only           safe       escalated  prompt
granular-ask  read-only           dangerous  default    prompt+sandbox
granular-ask  read-only           dangerous  escalated  prompt
granular-ask  read-only           other      default    allow+sandbox
granular-ask  read-only           other      escalated  prompt
granular-ask  workspace-write     safe       default    allow+sandbox
granular-ask  workspace-write     safe       escalated  prompt
granular-ask  workspace-write     dangerous  default    prompt+sandbox
granular-ask  workspace-write     dangerous  escalated  prompt
granular-ask  workspace-write     other      default    allow+sandbox
granular-ask  workspace-write     other      escalated  prompt
granular-ask  danger-full-access  safe       default    allow
granular-ask  danger-full-access  safe       escalated  allow
granular-ask  danger-full-access  dangerous  default    prompt
granular-ask  danger-full-access  dangerous  escalated  prompt
granular-ask  danger-full-access  other      default    allow
granular-ask  danger-full-access  other      escalated  allow
granular-deny read-only           safe       default    allow+sandbox
granular-deny read-only           safe       escalated  forbidden:escalation
granular-deny read-only           dangerous  default    prompt+sandbox
granular-deny read-only           dangerous  escalated  forbidden:escalation
granular-deny read-only           other      default    allow+sandbox
granular-deny read-only           other      escalated  forbidden:escalation
granular-deny workspace-write     safe       default    allow+sandbox
granular-deny workspace-write     safe       escalated  forbidden:escalation
granular-deny workspace-write     dangerous  default    prompt+sandbox
granular-deny workspace-write     dangerous  escalated  forbidden:escalation
granular-deny workspace-write     other      default    allow+sandbox
granular-deny workspace-write     other      escalated  forbidden:escalation
granular-deny danger-full-access  safe       default    allow
granular-deny danger-full-access  safe       escalated  forbidden:escalation
granular-deny danger-full-access  dangerous  default    prompt
granular-deny danger-full-access  dangerous  escalated  forbidden:escalation
granular-deny danger-full-access  other      default    allow
granular-deny danger-full-access  other      escalated  forbidden:escalation
`

// patchMatrix does the same for apply_patch: a patch writing a file inside the workspace,
// outside it, or under the workspace's protected .git folder.
const patchMatrix = `
untrusted     read-only           inside   prompt+sandbox
untrusted     read-only           outside  prompt+sandbox
untrusted     read-only           dot-git  prompt+sandbox
untrusted     workspace-write     inside   prompt+sandbox
untrusted     workspace-write     outside  prompt+sandbox
untrusted     workspace-write     dot-git  prompt+sandbox
untrusted     danger-full-access  inside   prompt
untrusted     danger-full-access  outside  prompt
untrusted     danger-full-access  dot-git  prompt
on-failure    read-only           inside   allow+sandbox
on-failure    read-only           outside  allow+sandbox
on-failure    read-only           dot-git  allow+sandbox
on-failure    workspace-write     inside   allow+sandbox
on-failure    workspace-write     outside  allow+sandbox
on-failure    workspace-write     dot-git  allow+sandbox
on-failure    danger-full-access  inside   allow
on-failure    danger-full-access  outside  allow
on-failure    danger-full-access  dot-git  allow
on-request    read-only           inside   prompt+sandbox
on-request    read-only           outside  prompt+sandbox
on-request    read-only           dot-git  prompt+sandbox
on-request    workspace-write     inside   allow+sandbox
on-request    workspace-write     outside  prompt+sandbox
on-request    workspace-write     dot-git  prompt+sandbox
on-request    danger-full-access  inside   allow
on-request    danger-full-access  outside  allow
on-request    danger-full-access  dot-git  allow
never         read-only           inside   forbidden:read-only
never         read-only           outside  forbidden:read-only
never         read-only           dot-git  forbidden:read-only
never         workspace-write     inside   allow+sandbox
never         workspace-write     outside  forbidden:outside
never         workspace-write     dot-git  forbidden:outside
never         danger-full-access  inside   allow
never         danger-full-access  outside  allow
never         danger-full-access  dot-git  allow
granular-ask  read-only           inside   prompt+sandbox
granular-ask  read-only           outside  prompt+sandbox
granular-ask  read-only           dot-git  prompt+sandbox
granular-ask  workspace-write     inside   allow+sandbox
granular-ask  workspace-write     outside  prompt+sandbox
granular-ask  workspace-write     dot-git  prompt+sandbox
granular-ask  danger-full-access  inside   allow
granular-ask  danger-full-access  outside  allow
granular-ask  danger-full-access  dot-git  allow
granular-deny read-only           inside   forbidden:read-only
granular-deny read-only           outside  forbidden:read-only
granular-deny read-only           dot-git  forbidden:read-only
granular-deny workspace-write     inside   allow+sandbox
granular-deny workspace-write     outside  forbidden:outside
granular-deny workspace-write     dot-git  forbidden:outside
granular-deny danger-full-access  inside   allow
granular-deny danger-full-access  outside  allow
granular-deny danger-full-access  dot-git  allow
`

var (
	granularAsk  = protocol.AskForApproval{Mode: protocol.ApprovalModeGranular, Granular: &protocol.GranularApproval{SandboxApproval: true, Rules: true}}
	granularDeny = protocol.AskForApproval{Mode: protocol.ApprovalModeGranular, Granular: &protocol.GranularApproval{}}
)

func approvalFor(t *testing.T, name string) protocol.AskForApproval {
	t.Helper()
	switch name {
	case "untrusted":
		return protocol.ApprovalUntrusted
	case "on-failure":
		return protocol.ApprovalOnFailure
	case "on-request":
		return protocol.ApprovalOnRequest
	case "never":
		return protocol.ApprovalNever
	case "granular-ask":
		return granularAsk
	case "granular-deny":
		return granularDeny
	}
	t.Fatalf("unknown policy %q", name)
	return protocol.AskForApproval{}
}

func sandboxFor(t *testing.T, name string) protocol.SandboxPolicy {
	t.Helper()
	mode, err := protocol.ParseSandboxMode(name)
	if err != nil {
		t.Fatal(err)
	}
	return protocol.SandboxPolicy{Mode: mode, ExcludeSlashTmp: true, ExcludeTmpdirEnvVar: true}
}

// render writes a decision in the matrix's notation.
func render(d Decision) string {
	switch d.Kind {
	case Forbidden:
		return "forbidden:" + d.Reason
	case Prompt:
		if d.Sandboxed {
			return "prompt+sandbox"
		}
		return "prompt"
	}
	if d.Sandboxed {
		return "allow+sandbox"
	}
	return "allow"
}

func matrixRows(t *testing.T, table string, fields int) [][]string {
	t.Helper()
	var rows [][]string
	for _, line := range strings.Split(strings.TrimSpace(table), "\n") {
		f := strings.Fields(line)
		if len(f) != fields {
			t.Fatalf("bad matrix row %q", line)
		}
		rows = append(rows, f)
	}
	return rows
}

func TestExecApprovalMatrix(t *testing.T) {
	commands := map[string][]string{
		"safe":      {"ls", "-la"},
		"dangerous": {"rm", "-rf", "build"},
		"other":     {"cargo", "build"},
	}
	rows := matrixRows(t, execMatrix, 5)
	if len(rows) != 6*3*3*2 {
		t.Fatalf("matrix has %d cells, want %d", len(rows), 6*3*3*2)
	}
	for _, row := range rows {
		policy, sb, kind, esc, want := row[0], row[1], row[2], row[3], row[4]
		in := ExecInput{
			Command:  commands[kind],
			Cwd:      "/work",
			Approval: approvalFor(t, policy),
			Sandbox:  sandboxFor(t, sb),
		}
		if esc == "escalated" {
			in.SandboxPermissions = RequireEscalated
		}
		// The reasons are abbreviated in the table; spell them out.
		switch want {
		case "forbidden:escalation":
			name := approvalDebugName(in.Approval)
			want = "forbidden:approval policy is " + name + "; reject command — you cannot ask for escalated permissions if the approval policy is " + name
		case "forbidden:rm-f":
			want = "forbidden:`rm -rf build` rejected: rm -f style commands are not permitted. Use a safer approach"
		case "forbidden:granular-sandbox":
			want = "forbidden:approval required by policy, but AskForApproval::Granular.sandbox_approval is false"
		}
		if got := render(DecideExec(in)); got != want {
			t.Errorf("%s %s %s %s: got %s, want %s", policy, sb, kind, esc, got, want)
		}
		// The same command wrapped in `bash -lc` gets the same decision.
		in.Command = []string{"bash", "-lc", ShellJoin(commands[kind])}
		got := render(DecideExec(in))
		want = strings.ReplaceAll(want, "`rm -rf build`", "`bash -lc 'rm -rf build'`")
		if got != want {
			t.Errorf("bash -lc %s %s %s %s: got %s, want %s", policy, sb, kind, esc, got, want)
		}
	}
}

func TestPatchApprovalMatrix(t *testing.T) {
	cwd := t.TempDir()
	outside := t.TempDir()
	roots := []sandbox.WritableRoot{{Root: cwd, ReadOnlySubpaths: []string{filepath.Join(cwd, ".git")}}}
	paths := map[string][]string{
		"inside":  {"src/main.go", filepath.Join(cwd, "README.md")},
		"outside": {"src/main.go", filepath.Join(outside, "x.txt")},
		"dot-git": {".git/hooks/pre-commit"},
	}
	rows := matrixRows(t, patchMatrix, 4)
	if len(rows) != 6*3*3 {
		t.Fatalf("matrix has %d cells, want %d", len(rows), 6*3*3)
	}
	for _, row := range rows {
		policy, sb, where, want := row[0], row[1], row[2], row[3]
		switch want {
		case "forbidden:read-only":
			want = "forbidden:" + ReasonReadOnlySandbox
		case "forbidden:outside":
			want = "forbidden:" + ReasonOutsideProject
		}
		in := PatchInput{
			Paths:         paths[where],
			Cwd:           cwd,
			Approval:      approvalFor(t, policy),
			Sandbox:       sandboxFor(t, sb),
			WritableRoots: roots,
		}
		if got := render(DecidePatch(in)); got != want {
			t.Errorf("%s %s %s: got %s, want %s", policy, sb, where, got, want)
		}
	}
}

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
		{"heredoc: rule applies, no amendment", []string{"bash", "-lc", "npm install <<EOF\ny\nEOF"}, protocol.ApprovalOnRequest,
			Decision{Kind: Prompt, Sandboxed: true, Reason: "`bash -lc 'npm install <<EOF\ny\nEOF'` requires approval by policy"}},
		{"heredoc: known-safe is not trusted", []string{"bash", "-lc", "cat <<EOF\nhi\nEOF"}, protocol.ApprovalUntrusted,
			Decision{Kind: Prompt, Sandboxed: true}},
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

func TestShellJoin(t *testing.T) {
	tests := []struct {
		argv []string
		want string
	}{
		{[]string{"git", "push", "origin", "main"}, "git push origin main"},
		{[]string{"bash", "-lc", "ls && pwd"}, "bash -lc 'ls && pwd'"},
		{[]string{"echo", ""}, "echo ''"},
		{[]string{"echo", "it's"}, `echo "it's"`},
		{[]string{`C:\bin\x.exe`, "$HOME"}, `"C:\\bin\\x.exe" '$HOME'`},
		{[]string{"--format=%H", "a,b", "u@h:/p"}, "--format=%H a,b u@h:/p"},
	}
	for _, tt := range tests {
		if got := ShellJoin(tt.argv); got != tt.want {
			t.Errorf("ShellJoin(%q) = %s, want %s", tt.argv, got, tt.want)
		}
	}
}
