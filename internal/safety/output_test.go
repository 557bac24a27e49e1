package safety

import (
	"testing"

	"github.com/gocodex/gocodex/internal/shellquote"
)

// The expected strings are tool outputs recorded from Codex 0.169 (app-server, exec_command).
func TestExecRejectedOutput(t *testing.T) {
	tests := []struct {
		reason string
		want   string
	}{
		{ReasonRejectedByUser, `exec_command failed: CreateProcess { message: "Rejected(\"rejected by user\")" }`},
		{"`/bin/bash -lc 'rm -rf zzz'` rejected: rm -f style commands are not permitted. Use a safer approach",
			`exec_command failed: CreateProcess { message: "Rejected(\"` + "`/bin/bash -lc 'rm -rf zzz'`" + ` rejected: rm -f style commands are not permitted. Use a safer approach\")" }`},
		{"`/bin/bash -lc \"docker ps --all 'a b'\"` rejected: policy forbids commands starting with `docker`",
			`exec_command failed: CreateProcess { message: "Rejected(\"` + "`/bin/bash -lc " + `\\\"docker ps --all 'a b'\\\"` + "`" + ` rejected: policy forbids commands starting with ` + "`docker`" + `\")" }`},
		{"approval required by policy rule, but AskForApproval::Granular.rules is false",
			`exec_command failed: CreateProcess { message: "Rejected(\"approval required by policy rule, but AskForApproval::Granular.rules is false\")" }`},
		{"a\nb\x01", `exec_command failed: CreateProcess { message: "Rejected(\"a\\nb\\u{1}\")" }`},
	}
	for _, tt := range tests {
		if got := ExecRejectedOutput("exec_command", tt.reason); got != tt.want {
			t.Errorf("ExecRejectedOutput(%q)\n got %s\nwant %s", tt.reason, got, tt.want)
		}
	}
	// The reason inside the docker case is what DecideExec produces for that command.
	got := shellquote.Join([]string{"/bin/bash", "-lc", "docker ps --all 'a b'"})
	if want := `/bin/bash -lc "docker ps --all 'a b'"`; got != want {
		t.Errorf("ShellJoin = %s, want %s", got, want)
	}
}
