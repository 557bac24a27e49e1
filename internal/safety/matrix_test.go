package safety

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gocodex/gocodex/internal/sandbox"
	"github.com/gocodex/gocodex/internal/shellquote"
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
		in.Command = []string{"bash", "-lc", shellquote.Join(commands[kind])}
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
