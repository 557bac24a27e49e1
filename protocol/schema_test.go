package protocol

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The app-server v1 schemas of Codex 0.169 (testdata/schema, copied from the shared
// reference) embed core protocol types: ReviewDecision, FileChange, ParsedCommand. Our
// encodings of those must validate against them.

func compileDef(t *testing.T, file, def string) *jsonschema.Schema {
	t.Helper()
	path, err := filepath.Abs(filepath.Join("testdata", "schema", file))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	url := "file://" + filepath.ToSlash(path)
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(url + "#/definitions/" + def)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func validate(t *testing.T, s *jsonschema.Schema, v any) {
	t.Helper()
	b, err := Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(inst); err != nil {
		t.Errorf("%s does not match the Codex 0.169 schema: %v", b, err)
	}
}

func TestSchemaReviewDecision(t *testing.T) {
	s := compileDef(t, "ExecCommandApprovalResponse.json", "ReviewDecision")
	for _, d := range []ReviewDecision{
		{Kind: DecisionApproved},
		{Kind: DecisionApprovedForSession},
		{Kind: DecisionApprovedExecpolicyAmendment, ExecpolicyAmendment: []string{"npm", "test"}},
		{Kind: DecisionApprovedMcpPolicyAmendment},
		{Kind: DecisionNetworkPolicyAmendment, NetworkPolicyAmendment: &NetworkPolicyAmendment{Host: "example.com", Action: "deny"}},
		{Kind: DecisionDenied, Rejection: "no"},
		{Kind: DecisionTimedOut},
		{Kind: DecisionAbort},
		// The plain "denied" (the zero value) predates the schema's object form and is
		// still what older clients send; it is deliberately not checked here.
	} {
		validate(t, s, d)
	}
}

func TestSchemaFileChange(t *testing.T) {
	s := compileDef(t, "ApplyPatchApprovalParams.json", "FileChange")
	for _, fc := range []FileChange{
		{Kind: FileAdd, Content: "x\n"},
		{Kind: FileDelete, Content: "y\n"},
		{Kind: FileUpdate, UnifiedDiff: "@@\n"},
		{Kind: FileUpdate, UnifiedDiff: "@@\n", MovePath: ptr("/b")},
	} {
		validate(t, s, fc)
	}
}

func TestSchemaParsedCommand(t *testing.T) {
	s := compileDef(t, "ExecCommandApprovalParams.json", "ParsedCommand")
	for _, pc := range []ParsedCommand{
		{Type: "read", Cmd: "cat a", Name: "a", Path: ptr("/a")},
		{Type: "read", Cmd: "cat a", Name: "a"},
		{Type: "list_files", Cmd: "ls"},
		{Type: "search", Cmd: "rg x", Query: ptr("x")},
		{Type: "unknown", Cmd: "make"},
		{Cmd: "make"},
	} {
		validate(t, s, pc)
	}
}
