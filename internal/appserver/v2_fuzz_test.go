package appserver

import (
	"encoding/json"
	"testing"
)

// FuzzApprovalDecision feeds arbitrary answers to the approval decoders: they return a
// decision or an error, never panic.
func FuzzApprovalDecision(f *testing.F) {
	for _, s := range []string{`{"decision":"accept"}`, `{"decision":"acceptForSession"}`, `{"decision":"decline"}`, `{"decision":"cancel"}`,
		`{"decision":{"acceptWithExecpolicyAmendment":{"execpolicy_amendment":["touch"]}}}`, `{"decision":"approved"}`, `{}`, `null`, `[]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if d, err := v2Decision(json.RawMessage(b)); err == nil && d.Kind == "" {
			t.Errorf("v2Decision(%s) accepted with no decision", b)
		}
		_, _ = v1Decision(json.RawMessage(b))
	})
}

// FuzzSandboxPolicy: turn/start's sandboxPolicy is read or refused, never a panic.
func FuzzSandboxPolicy(f *testing.F) {
	for _, s := range []string{`{"type":"readOnly"}`, `{"type":"workspaceWrite","writableRoots":["/tmp"],"networkAccess":true}`, `{"type":"dangerFullAccess"}`, `null`, `{"type":7}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := sandboxFromV2(json.RawMessage(b))
		if err == nil && p != nil && p.Mode == "" {
			t.Errorf("sandboxFromV2(%s) gave a policy without a mode", b)
		}
	})
}
