package schematest

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// referenceFile is dir's combined schema under ../shared/reference, from the main checkout
// or a worktree beside it.
func referenceFile(dir string) string {
	for _, up := range []string{"../../../..", "../../../../.."} {
		p := filepath.Join(up, "shared/reference", dir, "codex_app_server_protocol.schemas.json")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

func newValidator(t *testing.T) *Validator {
	t.Helper()
	return ForTest(t)
}

// The embedded copy is the reference file, byte for byte.
func TestEmbeddedSchemaMatchesReference(t *testing.T) {
	ref, err := os.ReadFile(referenceFile("app-server-schema-0.171"))
	if err != nil {
		t.Skipf("reference schemas not present: %v", err)
	}
	if !bytes.Equal(ref, schemaJSON) {
		t.Fatal("schema/codex_app_server_protocol.schemas.json differs from ../shared/reference; copy it again")
	}
}

// Every method of every union has a schema that compiles, and every request a result type.
func TestEveryMethodCompiles(t *testing.T) {
	v := newValidator(t)
	for kind, methods := range v.locs {
		for method, loc := range methods {
			if loc == noParams {
				continue
			}
			if _, err := v.schema(loc); err != nil {
				t.Errorf("%s %s: %v", kind, method, err)
			}
		}
	}
	for _, k := range []Kind{ClientRequestParams, ClientRequestResult, ServerRequestParams, ServerRequestResult, ServerNotificationParams} {
		if len(v.locs[k]) == 0 {
			t.Errorf("no methods for %s", k)
		}
	}
	if len(v.locs[ClientRequestParams]) != len(v.locs[ClientRequestResult]) {
		t.Errorf("%d request methods but %d result types", len(v.locs[ClientRequestParams]), len(v.locs[ClientRequestResult]))
	}
}

func TestSession(t *testing.T) {
	tests := []struct {
		name    string
		client  []string
		server  []string
		wantErr string // substring of the first failure; "" means all valid
	}{
		{
			name:   "initialize",
			client: []string{`{"id":1,"method":"initialize","params":{"clientInfo":{"name":"c","version":"1"}}}`},
			server: []string{`{"id":1,"result":{"userAgent":"c/0.169.0 (x; y) z (c; 1)","codexHome":"/h","platformFamily":"unix","platformOs":"linux"}}`},
		},
		{
			name:    "initialize result missing a field",
			client:  []string{`{"id":1,"method":"initialize","params":{"clientInfo":{"name":"c","version":"1"}}}`},
			server:  []string{`{"id":1,"result":{"userAgent":"c","codexHome":"/h","platformFamily":"unix"}}`},
			wantErr: "client request result of \"initialize\" is invalid",
		},
		{
			name:    "result for an id never used",
			server:  []string{`{"id":7,"result":{}}`},
			wantErr: "never used",
		},
		{
			name:   "errors for any id, and a parse error without one",
			client: []string{`{"id":"a","method":"nope"}`},
			server: []string{`{"error":{"code":-32601,"message":"Method not found: nope"},"id":"a"}`, `{"error":{"code":-32700,"message":"Parse error"},"id":null}`},
		},
		{
			name:    "internal error without id",
			server:  []string{`{"error":{"code":-32603,"message":"x"},"id":null}`},
			wantErr: "without id",
		},
		{
			name:    "jsonrpc member",
			server:  []string{`{"jsonrpc":"2.0","method":"thread/started","params":{}}`},
			wantErr: "jsonrpc",
		},
		{
			name:    "notification params",
			server:  []string{`{"method":"item/agentMessage/delta","params":{"threadId":"t","turnId":"u","itemId":"i"}}`},
			wantErr: "server notification params of \"item/agentMessage/delta\" is invalid",
		},
		{
			name:   "valid delta",
			server: []string{`{"method":"item/agentMessage/delta","params":{"threadId":"t","turnId":"u","itemId":"i","delta":"hi"}}`},
		},
		{
			name:    "unknown notification",
			server:  []string{`{"method":"made/up","params":{}}`},
			wantErr: "no schema",
		},
		{
			name:   "unschematized prefix",
			server: []string{`{"method":"codex/event/agent_message","params":{"anything":1}}`},
		},
		{
			name:    "server request params",
			server:  []string{`{"id":0,"method":"item/fileChange/requestApproval","params":{}}`},
			wantErr: "server request params",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newValidator(t).NewSession(nil)
			for _, c := range tt.client {
				s.ClientSent([]byte(c))
			}
			var first error
			for _, m := range tt.server {
				if err := s.ServerSent([]byte(m)); err != nil && first == nil {
					first = err
				}
			}
			switch {
			case tt.wantErr == "" && first != nil:
				t.Fatalf("unexpected failure: %v", first)
			case tt.wantErr != "" && first == nil:
				t.Fatalf("no failure, want %q", tt.wantErr)
			case tt.wantErr != "" && !strings.Contains(first.Error(), tt.wantErr):
				t.Fatalf("failure %q, want it to contain %q", first, tt.wantErr)
			}
		})
	}
}

// The experimental schema loads, every experimental request compiles and has a result type.
func TestExperimentalSchemaLoads(t *testing.T) {
	ref, err := os.ReadFile(referenceFile("app-server-schema-0.171-experimental"))
	if err == nil && !bytes.Equal(ref, experimentalSchemaJSON) {
		t.Fatal("schema/codex_app_server_protocol.experimental.schemas.json differs from ../shared/reference; copy it again")
	}
	v, err := NewExperimental(Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"fuzzyFileSearch/sessionStart", "thread/backgroundTerminals/clean", "collaborationMode/list"} {
		if !v.Known(ClientRequestParams, m) || !v.Known(ClientRequestResult, m) {
			t.Errorf("%s: not in the experimental schema", m)
		}
	}
	for method, loc := range v.locs[ClientRequestResult] {
		if _, err := v.schema(loc); err != nil {
			t.Errorf("%s: %v", method, err)
		}
	}
}
