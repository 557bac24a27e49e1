package guard

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gocodex/gocodex/internal/patch"
	"github.com/gocodex/gocodex/internal/safety"
	"github.com/gocodex/gocodex/internal/tools"
	"github.com/gocodex/gocodex/internal/tools/applypatch"
	"github.com/gocodex/gocodex/internal/tools/shell"
	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
)

// askRecorder answers every approval request with one decision and remembers the requests.
type askRecorder struct {
	decision protocol.ReviewDecision
	asked    []tool.ApprovalRequest
}

func (a *askRecorder) env(approval protocol.AskForApproval, sandbox protocol.SandboxPolicy, cwd string) *tool.Env {
	return &tool.Env{
		ThreadID: "thread", TurnID: "turn", Cwd: cwd, Approval: approval, Sandbox: sandbox,
		Emit: func(protocol.EventMsg) {},
		RequestApproval: func(_ context.Context, req tool.ApprovalRequest) (protocol.ReviewDecision, error) {
			a.asked = append(a.asked, req)
			return a.decision, nil
		},
	}
}

var fullAccess = protocol.SandboxPolicy{Mode: protocol.SandboxDangerFullAccess}

func decision(kind protocol.ReviewDecisionKind) protocol.ReviewDecision {
	return protocol.ReviewDecision{Kind: kind}
}

func TestExecDecisions(t *testing.T) {
	cwd := t.TempDir()
	req := shell.GateRequest{CallID: "c1", ToolName: tools.NameExecCommand, Argv: []string{"bash", "-lc", "touch x"}, Cwd: cwd}
	cases := []struct {
		name      string
		approval  protocol.AskForApproval
		answer    protocol.ReviewDecisionKind
		wantAsked int
		wantDeny  string
		wantEnd   bool
	}{
		{name: "never runs without asking", approval: protocol.ApprovalNever},
		{name: "untrusted asks, approved runs", approval: protocol.ApprovalUntrusted, answer: protocol.DecisionApproved, wantAsked: 1},
		{name: "untrusted asks, denied is refused", approval: protocol.ApprovalUntrusted, answer: protocol.DecisionDenied, wantAsked: 1,
			wantDeny: safety.ExecRejectedOutput(tools.NameExecCommand, safety.ReasonRejectedByUser)},
		{name: "abort ends the turn", approval: protocol.ApprovalUntrusted, answer: protocol.DecisionAbort, wantAsked: 1,
			wantDeny: safety.ExecRejectedOutput(tools.NameExecCommand, safety.ReasonRejectedByUser), wantEnd: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := New(Options{CodexHome: t.TempDir()})
			a := &askRecorder{decision: decision(tc.answer)}
			d, err := g.Exec(context.Background(), a.env(tc.approval, fullAccess, cwd), req)
			if err != nil {
				t.Fatal(err)
			}
			if len(a.asked) != tc.wantAsked || d.Deny != tc.wantDeny || d.EndTurn != tc.wantEnd {
				t.Errorf("asked %d times, decision %+v; want asked %d, deny %q, end %v", len(a.asked), d, tc.wantAsked, tc.wantDeny, tc.wantEnd)
			}
			if d.Deny == "" && d.Sandboxed {
				t.Errorf("danger-full-access command was sandboxed")
			}
			if tc.wantAsked == 1 {
				ev := a.asked[0].Exec
				if ev == nil || ev.CallID != "c1" || ev.TurnID != "turn" || ev.Cwd != cwd {
					t.Errorf("approval request = %+v", ev)
				}
			}
		})
	}
}

func TestApprovedForSessionIsRemembered(t *testing.T) {
	cwd := t.TempDir()
	g := New(Options{})
	a := &askRecorder{decision: decision(protocol.DecisionApprovedForSession)}
	env := a.env(protocol.ApprovalUntrusted, fullAccess, cwd)
	req := shell.GateRequest{CallID: "c1", ToolName: tools.NameExecCommand, Argv: []string{"bash", "-lc", "make"}, Cwd: cwd}
	for i := 0; i < 3; i++ {
		if _, err := g.Exec(context.Background(), env, req); err != nil {
			t.Fatal(err)
		}
	}
	if len(a.asked) != 1 {
		t.Errorf("asked %d times, want once", len(a.asked))
	}
	// Another working directory is another approval.
	req.Cwd = t.TempDir()
	if _, err := g.Exec(context.Background(), env, req); err != nil {
		t.Fatal(err)
	}
	if len(a.asked) != 2 {
		t.Errorf("asked %d times after a cwd change, want 2", len(a.asked))
	}
}

func TestExecpolicyAmendmentIsSavedAndApplied(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	g := New(Options{CodexHome: home})
	a := &askRecorder{decision: protocol.ReviewDecision{Kind: protocol.DecisionApprovedExecpolicyAmendment, ExecpolicyAmendment: []string{"make"}}}
	env := a.env(protocol.ApprovalUntrusted, fullAccess, cwd)
	req := shell.GateRequest{CallID: "c1", ToolName: tools.NameShell, Argv: []string{"make", "all"}, Cwd: cwd}
	if _, err := g.Exec(context.Background(), env, req); err != nil {
		t.Fatal(err)
	}
	rules, err := os.ReadFile(filepath.Join(home, "rules", "default.rules"))
	if err != nil || !strings.Contains(string(rules), `prefix_rule(pattern=["make"], decision="allow")`) {
		t.Fatalf("default.rules = %q, %v", rules, err)
	}
	req.Argv = []string{"make", "test"}
	if _, err := g.Exec(context.Background(), env, req); err != nil {
		t.Fatal(err)
	}
	if len(a.asked) != 1 {
		t.Errorf("asked %d times; the amended rule should allow `make test`", len(a.asked))
	}
}

func TestRejectedOutputPerTool(t *testing.T) {
	if got := rejectedOutput(tools.NameShell, safety.ReasonRejectedByUser); got != "exec command rejected by user" {
		t.Errorf("shell: %q", got)
	}
	if got := rejectedOutput(tools.NameExecCommand, safety.ReasonRejectedByUser); !strings.HasPrefix(got, "exec_command failed: CreateProcess") {
		t.Errorf("exec_command: %q", got)
	}
}

func verified(t *testing.T, cwd, text string) *patch.Verified {
	t.Helper()
	p, err := patch.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	v, err := patch.Verify(cwd, p)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestPatchDecisions(t *testing.T) {
	cwd := t.TempDir()
	outside := filepath.Join(t.TempDir(), "elsewhere.txt")
	inside := verified(t, cwd, "*** Begin Patch\n*** Add File: in.txt\n+x\n*** End Patch")
	beyond := verified(t, cwd, "*** Begin Patch\n*** Add File: "+outside+"\n+x\n*** End Patch")
	workspace := protocol.SandboxPolicy{Mode: protocol.SandboxWorkspaceWrite, ExcludeSlashTmp: true, ExcludeTmpdirEnvVar: true}
	cases := []struct {
		name     string
		approval protocol.AskForApproval
		v        *patch.Verified
		want     applypatch.Verdict
	}{
		{"inside the work tree runs", protocol.ApprovalOnRequest, inside, applypatch.AutoApprove},
		{"outside the work tree asks", protocol.ApprovalOnRequest, beyond, applypatch.AskUser},
		{"outside under never is refused", protocol.ApprovalNever, beyond, applypatch.Reject},
		{"untrusted always asks", protocol.ApprovalUntrusted, inside, applypatch.AskUser},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := New(Options{})
			a := &askRecorder{}
			if got := g.Patch(context.Background(), a.env(tc.approval, workspace, cwd), tc.v); got.Verdict != tc.want {
				t.Errorf("verdict %v (%q), want %v", got.Verdict, got.Reason, tc.want)
			}
		})
	}
}

func TestPatchApprovedForSessionIsRemembered(t *testing.T) {
	cwd := t.TempDir()
	g := New(Options{})
	a := &askRecorder{decision: decision(protocol.DecisionApprovedForSession)}
	env := a.env(protocol.ApprovalUntrusted, fullAccess, cwd)
	v := verified(t, cwd, "*** Begin Patch\n*** Add File: in.txt\n+x\n*** End Patch")
	if d := g.Patch(context.Background(), env, v); d.Verdict != applypatch.AskUser {
		t.Fatalf("first patch: %+v", d)
	}
	// The handler asks through the remembering env; the answer covers the file from now on.
	wrapped := g.RememberingEnv(env)
	if _, err := wrapped.RequestApproval(context.Background(), tool.ApprovalRequest{Patch: &protocol.ApplyPatchApprovalRequestEvent{
		CallID: "p1", Changes: v.FileChanges()}}); err != nil {
		t.Fatal(err)
	}
	if d := g.Patch(context.Background(), env, v); d.Verdict != applypatch.AutoApprove || !d.UserApproved {
		t.Errorf("second patch: %+v, want approved for the session", d)
	}
}

// BeforeWrite hears of each command about to run under a sandbox that lets it write (and
// not of one under read-only); its error stops the command.
func TestBeforeWrite(t *testing.T) {
	cwd := t.TempDir()
	var heard []string
	var fail error
	g := New(Options{CodexHome: t.TempDir(), BeforeWrite: func(p protocol.SandboxPolicy, policyCwd string) error {
		heard = append(heard, string(p.Mode)+" "+policyCwd)
		return fail
	}})
	req := shell.GateRequest{CallID: "c1", ToolName: tools.NameExecCommand, Argv: []string{"true"}, Cwd: cwd}
	spawn := func(mode protocol.SandboxMode) error {
		t.Helper()
		d, err := g.Exec(context.Background(), (&askRecorder{}).env(protocol.ApprovalNever, protocol.SandboxPolicy{Mode: mode}, cwd), req)
		if err != nil || d.Deny != "" {
			t.Skipf("no sandbox here: %v %s", err, d.Deny)
		}
		_, err = d.Spawner(context.Background(), []string{"true"}, cwd, nil)
		return err
	}
	if err := spawn(protocol.SandboxReadOnly); err != nil || len(heard) != 0 {
		t.Fatalf("read-only: %v, heard %v", err, heard)
	}
	if err := spawn(protocol.SandboxWorkspaceWrite); err != nil || len(heard) != 1 || heard[0] != "workspace-write "+cwd {
		t.Fatalf("workspace-write: %v, heard %v", err, heard)
	}
	fail = os.ErrPermission
	if err := spawn(protocol.SandboxWorkspaceWrite); err == nil || !strings.Contains(err.Error(), "cannot record what this command may write") {
		t.Errorf("a journal that cannot be written: %v", err)
	}
}
