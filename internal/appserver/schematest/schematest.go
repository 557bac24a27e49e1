// Package schematest checks app-server traffic against the JSON schemas Codex 0.171 generates
// (`codex app-server generate-json-schema`; draft-07). Every app-server test wraps its client
// connection in a Session, so every message the server sends is validated by method:
// notification params, server-request params, and response results by the method of the
// request they answer. The first invalid message fails the test.
//
// The schema is the combined codex_app_server_protocol.schemas.json, copied verbatim from
// ../shared/reference/app-server-schema-0.171/ and embedded, so the check needs no files.
package schematest

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

//go:embed schema/codex_app_server_protocol.schemas.json
var schemaJSON []byte

const schemaURL = "mem:///codex_app_server_protocol.schemas.json"

// experimentalSchemaJSON is Codex 0.171's schema with its experimental methods and fields
// (generate-json-schema --experimental), for tests of the methods behind experimentalApi.
//
//go:embed schema/codex_app_server_protocol.experimental.schemas.json
var experimentalSchemaJSON []byte

const experimentalSchemaURL = "mem:///codex_app_server_protocol.experimental.schemas.json"

// Kind says which side of the protocol a schema describes.
type Kind int

const (
	ClientRequestParams Kind = iota
	ClientRequestResult
	ServerRequestParams
	ServerRequestResult
	ServerNotificationParams
	ClientNotificationParams
)

func (k Kind) String() string {
	return [...]string{"client request params", "client request result", "server request params",
		"server request result", "server notification params", "client notification params"}[k]
}

// Options tune a Validator.
type Options struct {
	// Unschematized lists method prefixes without a schema in Codex 0.169 (e.g. the 0.63 v1
	// conversation API and its "codex/event/" notifications): their messages are checked for
	// envelope only.
	Unschematized []string
}

// Validator compiles schemas lazily, per method, and is safe for concurrent use.
type Validator struct {
	opts Options
	doc  []byte // the schema document
	url  string // its location for the compiler

	mu    sync.Mutex
	c     *jsonschema.Compiler
	cache map[string]*jsonschema.Schema
	// method -> schema location, per kind
	locs map[Kind]map[string]string
	// definitions that live at the top level (the rest are under definitions/v2)
	topDefs map[string]bool
	v2Defs  map[string]bool
}

// responseOverrides are the results whose type is not the params name with "Params" changed
// to "Response" (methods without params, shared response types).
var responseOverrides = map[string]string{
	"account/gatewayOAuth/cancel":              "GatewayOAuthCancelResponse",
	"config/mcpServer/reload":                  "McpServerRefreshResponse",
	"windowsSandbox/readiness":                 "WindowsSandboxReadinessResponse",
	"account/logout":                           "LogoutAccountResponse",
	"account/securitySetup/read":               "GetAccountSecuritySetupResponse",
	"account/workspaceMessages/read":           "GetWorkspaceMessagesResponse",
	"externalAgentConfig/import/readHistories": "ExternalAgentConfigImportHistoriesReadResponse",
	"configRequirements/read":                  "ConfigRequirementsReadResponse",
	"config/value/write":                       "ConfigWriteResponse",
	"config/batchWrite":                        "ConfigWriteResponse",
	"modelProvider/default/set":                "ConfigWriteResponse", // Codex 0.171 answers a config write
	// experimental methods without params
	"memory/reset":              "MemoryResetResponse",
	"rollout/compress":          "RolloutCompressResponse",
	"remoteControl/status/read": "RemoteControlStatusReadResponse",
	"accountSession/list":       "AccountSessionsResponse",
}

// New loads the embedded schema.
func New(opts Options) (*Validator, error) { return loadValidator(opts, schemaJSON, schemaURL) }

// NewExperimental loads the embedded experimental schema (stable methods and the experimental
// ones).
func NewExperimental(opts Options) (*Validator, error) {
	return loadValidator(opts, experimentalSchemaJSON, experimentalSchemaURL)
}

func loadValidator(opts Options, schema []byte, url string) (*Validator, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, fmt.Errorf("parse schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft7)
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	v := &Validator{opts: opts, doc: schema, url: url, c: c, cache: make(map[string]*jsonschema.Schema),
		locs: make(map[Kind]map[string]string), topDefs: make(map[string]bool), v2Defs: make(map[string]bool)}
	if err := v.index(); err != nil {
		return nil, err
	}
	return v, nil
}

type rawSchema struct {
	Definitions map[string]json.RawMessage `json:"definitions"`
}

type unionSchema struct {
	OneOf []struct {
		Properties struct {
			Method struct {
				Enum []string `json:"enum"`
			} `json:"method"`
			Params json.RawMessage `json:"params"`
		} `json:"properties"`
	} `json:"oneOf"`
}

// index maps every method of the four unions to the location of its params schema, and each
// request method to its result schema.
func (v *Validator) index() error {
	var root rawSchema
	if err := json.Unmarshal(v.doc, &root); err != nil {
		return err
	}
	for name := range root.Definitions {
		v.topDefs[name] = true
	}
	var v2 map[string]json.RawMessage
	if err := json.Unmarshal(root.Definitions["v2"], &v2); err != nil {
		return fmt.Errorf("schema has no definitions/v2: %w", err)
	}
	for name := range v2 {
		v.v2Defs[name] = true
	}
	unions := []struct {
		name   string
		params Kind
		result Kind
	}{
		{"ClientRequest", ClientRequestParams, ClientRequestResult},
		{"ServerRequest", ServerRequestParams, ServerRequestResult},
		{"ServerNotification", ServerNotificationParams, -1},
		{"ClientNotification", ClientNotificationParams, -1},
	}
	for _, u := range unions {
		var us unionSchema
		if err := json.Unmarshal(root.Definitions[u.name], &us); err != nil {
			return fmt.Errorf("schema %s: %w", u.name, err)
		}
		v.locs[u.params] = make(map[string]string)
		if u.result >= 0 {
			v.locs[u.result] = make(map[string]string)
		}
		for i, branch := range us.OneOf {
			if len(branch.Properties.Method.Enum) != 1 {
				return fmt.Errorf("schema %s branch %d: no single method", u.name, i)
			}
			method := branch.Properties.Method.Enum[0]
			if len(branch.Properties.Params) == 0 { // no params member at all
				v.locs[u.params][method] = noParams
				continue
			}
			v.locs[u.params][method] = fmt.Sprintf("%s#/definitions/%s/oneOf/%d/properties/params", v.url, u.name, i)
			if u.result < 0 {
				continue
			}
			resp := responseOverrides[method]
			if resp == "" {
				resp = strings.TrimSuffix(paramsTypeName(branch.Properties.Params), "Params") + "Response"
			}
			loc, ok := v.definition(resp)
			if !ok {
				return fmt.Errorf("schema %s: no result type %s for %s", u.name, resp, method)
			}
			v.locs[u.result][method] = loc
		}
	}
	return nil
}

// paramsTypeName is the definition a params schema refers to (directly or as nullable).
func paramsTypeName(raw json.RawMessage) string {
	var s struct {
		Ref   string `json:"$ref"`
		AnyOf []struct {
			Ref string `json:"$ref"`
		} `json:"anyOf"`
	}
	json.Unmarshal(raw, &s)
	ref := s.Ref
	for _, a := range s.AnyOf {
		if ref == "" {
			ref = a.Ref
		}
	}
	name := ref[strings.LastIndex(ref, "/")+1:]
	return strings.TrimPrefix(name, "Nullable")
}

func (v *Validator) definition(name string) (string, bool) {
	if v.topDefs[name] {
		return v.url + "#/definitions/" + name, true
	}
	if v.v2Defs[name] {
		return v.url + "#/definitions/v2/" + name, true
	}
	return "", false
}

// Methods lists the methods of one kind's union, sorted.
func (v *Validator) Methods(kind Kind) []string {
	out := make([]string, 0, len(v.locs[kind]))
	for m := range v.locs[kind] {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}

// Known reports whether the schema defines method for kind.
func (v *Validator) Known(kind Kind, method string) bool {
	_, ok := v.locs[kind][method]
	return ok
}

func (v *Validator) unschematized(method string) bool {
	for _, p := range v.opts.Unschematized {
		if strings.HasPrefix(method, p) {
			return true
		}
	}
	return false
}

func (v *Validator) schema(loc string) (*jsonschema.Schema, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if s, ok := v.cache[loc]; ok {
		return s, nil
	}
	s, err := v.c.Compile(loc)
	if err != nil {
		return nil, fmt.Errorf("compile %s: %w", loc, err)
	}
	v.cache[loc] = s
	return s, nil
}

// Validate checks raw (params or result; nil means absent, checked as null) of method.
func (v *Validator) Validate(kind Kind, method string, raw json.RawMessage) error {
	loc, ok := v.locs[kind][method]
	if !ok {
		if v.unschematized(method) {
			return nil
		}
		return fmt.Errorf("%s of %q: no schema for this method", kind, method)
	}
	what := fmt.Sprintf("%s of %q", kind, method)
	if loc == noParams {
		if raw != nil {
			return fmt.Errorf("%s: the method takes no params, got %s", what, clip(raw))
		}
		return nil
	}
	return v.validateAt(loc, raw, what)
}

// noParams marks a method whose schema has no params member.
const noParams = "-"

// shared is the one Validator of a test binary: parsing the 760 kB schema and compiling its
// parts takes a noticeable fraction of a second, and a Validator never changes once built.
var shared struct {
	once sync.Once
	v    *Validator
	err  error
}

// ForTest returns the test binary's shared Validator (with the v1 "codex/event/" prefix left
// unschematized), failing tb if the schema cannot be loaded.
func ForTest(tb testing.TB) *Validator {
	tb.Helper()
	shared.once.Do(func() { shared.v, shared.err = New(Options{Unschematized: DefaultUnschematized}) })
	if shared.err != nil {
		tb.Fatalf("schematest: %v", shared.err)
	}
	return shared.v
}

var sharedExperimental struct {
	once sync.Once
	v    *Validator
	err  error
}

// ForTestExperimental is ForTest with the experimental schema: for a client that initialized
// with the experimentalApi capability.
func ForTestExperimental(tb testing.TB) *Validator {
	tb.Helper()
	sharedExperimental.once.Do(func() {
		sharedExperimental.v, sharedExperimental.err = NewExperimental(Options{Unschematized: DefaultUnschematized})
	})
	if sharedExperimental.err != nil {
		tb.Fatalf("schematest: %v", sharedExperimental.err)
	}
	return sharedExperimental.v
}

// WrapExperimental is Wrap with the experimental schema.
func WrapExperimental(tb testing.TB) *Session { return ForTestExperimental(tb).NewSession(tb) }

// DefaultUnschematized are the method prefixes Codex 0.169's schema does not describe: the
// per-event notifications of the 0.63 conversation API.
var DefaultUnschematized = []string{"codex/event/"}

// Wrap follows one connection for tb: wrap the client's writer (to the server) and reader
// (from the server) with the returned session's WrapWriter and WrapReader.
func Wrap(tb testing.TB) *Session { return ForTest(tb).NewSession(tb) }

// ValidateDefinition checks raw against a named definition (top level or v2), e.g.
// "ThreadItem" or "JSONRPCErrorError".
func (v *Validator) ValidateDefinition(name string, raw json.RawMessage) error {
	loc, ok := v.definition(name)
	if !ok {
		return fmt.Errorf("no definition %s", name)
	}
	return v.validateAt(loc, raw, name)
}

func (v *Validator) validateAt(loc string, raw json.RawMessage, what string) error {
	s, err := v.schema(loc)
	if err != nil {
		return err
	}
	if raw == nil {
		raw = json.RawMessage("null")
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return fmt.Errorf("%s: not JSON: %w", what, err)
	}
	if err := s.Validate(doc); err != nil {
		return fmt.Errorf("%s is invalid: %w\nmessage: %s", what, err, clip(raw))
	}
	return nil
}

func clip(b []byte) string {
	if len(b) > 2000 {
		return string(b[:2000]) + "…"
	}
	return string(b)
}
