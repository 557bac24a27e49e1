package safety

import (
	"testing"

	"github.com/gocodex/gocodex/protocol"
)

// Classifying a `bash -lc` script is on every command's path; the target is well under 50 µs.
func BenchmarkIsKnownSafeBashScript(b *testing.B) {
	scripts := map[string]string{
		"safe_short": "ls -la",
		"safe_seq":   `cd src && rg -n "TODO" --glob '*.go' | head -n 20 && git status && sed -n 1,80p main.go`,
		"unsafe_seq": `cd src && rg -n "TODO" | head -n 20 && cargo build --release`,
		"not_plain":  `for f in $(ls); do echo "$f" > out.txt; done`,
	}
	for name, script := range scripts {
		argv := []string{"bash", "-lc", script}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				IsKnownSafe(argv)
			}
		})
	}
}

// The whole decision for one command: split, rules, heuristics (known-safe and dangerous).
func BenchmarkDecideExec(b *testing.B) {
	in := ExecInput{
		Command:  []string{"bash", "-lc", `cd src && rg -n "TODO" | head -n 20 && cargo build --release`},
		Cwd:      "/w",
		Approval: protocol.ApprovalOnRequest,
		Sandbox:  protocol.SandboxPolicy{Mode: protocol.SandboxWorkspaceWrite},
		Cache:    NewApprovalCache(),
	}
	b.ReportAllocs()
	for b.Loop() {
		DecideExec(in)
	}
}

func FuzzIsKnownSafe(f *testing.F) {
	for _, s := range []string{
		"ls && pwd", "echo 'a' | wc -l", "rm -rf /", "find . -delete", "(ls)", "echo $(pwd)",
		"git -c x=y status", "sed -n 1,5p f", `rg --pr\e=x`, "cat <<EOF\nhi\nEOF", "ls # c",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, script string) {
		argv := []string{"bash", "-lc", script}
		safe := IsKnownSafe(argv)
		dangerous := IsDangerous(argv)
		if safe && dangerous {
			t.Fatalf("%q is both known-safe and dangerous", script)
		}
		cmds, plain := ParseWordOnlyScript(script)
		if safe && (!plain || len(cmds) == 0) {
			t.Fatalf("%q is known-safe but not a plain non-empty script", script)
		}
		for _, c := range cmds {
			if len(c) == 0 {
				t.Fatalf("%q produced an empty command", script)
			}
		}
	})
}
