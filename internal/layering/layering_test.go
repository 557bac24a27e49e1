// Package layering holds the tests that keep the architecture honest: every package of the
// module has a layer in one explicit table, each layer may import only the layers below it,
// the public packages name no internal package in their API, and nothing uses cgo.
package layering

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/gocodex/gocodex"

// layer is a package's room in the architecture (docs/architecture.md).
type layer int

const (
	// thirdParty is other projects' code kept inside the module (third_party/): it imports
	// only itself, and anything may import it.
	thirdParty layer = iota
	// protocolLayer is the public SQ/EQ wire: it imports nothing of ours.
	protocolLayer
	// vocabulary is the public vocabulary the engine's API needs (model stream, tools).
	vocabulary
	// edge is the outside world: model wires, tools, sandbox, rollout, config...
	edge
	// engine is package agent: threads and the turn loop.
	engine
	// host is the one-per-process owner of config, providers, MCP and the thread manager.
	host
	// face is an adapter speaking one wire (exec, app-server, proto, mcp-server, ACP, TUI).
	face
	// command is a main package wiring the faces.
	command
	// testing is test support: the scripted model, end-to-end tests, these checks.
	testSupport
)

func (l layer) String() string {
	return [...]string{"third party", "protocol", "public vocabulary", "edge", "engine", "host", "face", "command", "test support"}[l]
}

// room is one table entry: the layer, and for a face the face it belongs to (a face's
// sub-packages may import their own face, never another).
type room struct {
	layer layer
	face  string
}

// packages is the layer of every package of the module, by path relative to the module. A
// path ending in "/..." covers a whole subtree (for packages other issues are adding). A
// package missing here fails TestLayering: add it with the layer it belongs to.
var packages = map[string]room{
	"protocol":    {layer: protocolLayer},
	"modelstream": {layer: vocabulary},
	"tool":        {layer: vocabulary},

	"agent": {layer: engine},

	"internal/atomicfile":        {layer: edge},
	"internal/auth":              {layer: edge},
	"internal/keyring":           {layer: edge},
	"internal/config":            {layer: edge},
	"internal/features":          {layer: edge},
	"internal/gitmarker":         {layer: edge},
	"internal/safegit":           {layer: edge},
	"internal/review":            {layer: edge},
	"internal/review/reviewout":  {layer: edge},
	"internal/commands":          {layer: edge},
	"internal/guard":             {layer: edge},
	"internal/history":           {layer: edge},
	"internal/hooks":             {layer: edge},
	"internal/items":             {layer: edge},
	"internal/jsonrpc":           {layer: edge},
	"internal/logging":           {layer: edge},
	"internal/mcp":               {layer: edge},
	"internal/mcp/oauth":         {layer: edge},
	"internal/model":             {layer: edge},
	"internal/model/...":         {layer: edge},
	"internal/patch":             {layer: edge},
	"internal/pathstyle":         {layer: edge},
	"internal/process":           {layer: edge},
	"internal/proctree":          {layer: edge},
	"internal/lsp":               {layer: edge},
	"internal/lsp/diagreport":    {layer: edge},
	"internal/usershell":         {layer: edge},
	"internal/prompt":            {layer: edge},
	"internal/rollout":           {layer: edge},
	"internal/safety":            {layer: edge},
	"internal/safety/execpolicy": {layer: edge},
	"internal/sandbox":           {layer: edge},
	"internal/sandbox/seccomp":   {layer: edge},
	"internal/shellquote":        {layer: edge},
	"internal/snapshot":          {layer: edge},
	"internal/filelock":          {layer: edge},
	"internal/memlimit":          {layer: edge},
	"internal/codexstate":        {layer: edge},
	"internal/sessionindex":      {layer: edge},
	"internal/skills":            {layer: edge},
	"internal/tools":             {layer: edge},
	"internal/tools/...":         {layer: edge},
	"internal/version":           {layer: edge},
	"internal/iostreams":         {layer: edge},
	"internal/writejournal":      {layer: edge},

	// internal/app builds threads from config today; it becomes (or gives way to) the host.
	"internal/app":       {layer: host},
	"internal/host":      {layer: host},
	"internal/host/...":  {layer: host},
	"internal/faceopts":  {layer: host},
	"internal/appserver": {layer: face, face: "app-server"},
	// The app-server's own wire types (generated from the reference schema).
	"internal/appserver/...": {layer: face, face: "app-server"},
	"internal/execcli":       {layer: face, face: "exec"},
	"internal/proto":         {layer: face, face: "proto"},
	"internal/acp":           {layer: face, face: "acp"},
	"internal/tui":           {layer: face, face: "tui"},
	"internal/tui/...":       {layer: face, face: "tui"},
	"internal/mcpserver":     {layer: face, face: "mcp-server"},
	"internal/mcpserver/...": {layer: face, face: "mcp-server"},
	"cmd/gocodex":            {layer: command},
	// The command-line front ends of the edge tools (execpolicy check, sandbox, mcp list).
	"internal/cli": {layer: command},
	// gocodex fleet: many tasks on a batch engine (the engine-neutral logic, the engines,
	// the commands); it starts gocodex exec as a program, never the host.
	"internal/fleet":            {layer: command},
	"internal/fleet/...":        {layer: command},
	"e2e":                       {layer: testSupport},
	"internal/layering":         {layer: testSupport},
	"internal/releasetest":      {layer: testSupport},
	"internal/testkit":          {layer: testSupport},
	"internal/testkit/cmd/...":  {layer: testSupport},
	"internal/testkit/oauthmcp": {layer: testSupport},

	// Forks of bubbletea and the bubbles the terminal UI uses, under their own import paths so
	// that go.mod needs no replace (third_party/README.md).
	"third_party/...": {layer: thirdParty},
}

// roomOf finds the table entry of a package path relative to the module: its own entry, else
// the nearest "/..." subtree entry.
func roomOf(rel string) (room, bool) {
	if r, ok := packages[rel]; ok {
		return r, true
	}
	for p := rel; strings.Contains(p, "/"); {
		p = p[:strings.LastIndex(p, "/")]
		if r, ok := packages[p+"/..."]; ok {
			return r, true
		}
	}
	return room{}, false
}

// mayImport says whether a package in room from may import one in room to, and if not why.
func mayImport(from, to room) (bool, string) {
	if to.layer == testSupport && from.layer != testSupport {
		return false, "only tests may use test support"
	}
	switch from.layer {
	case thirdParty:
		return to.layer == thirdParty, "third-party code imports nothing of ours but itself"
	case protocolLayer:
		return false, "protocol imports nothing of ours"
	case vocabulary:
		return to.layer <= vocabulary, "the public vocabulary imports only protocol and itself"
	case edge:
		return to.layer <= edge, "edges import no engine, host or face"
	case engine:
		return to.layer <= edge, "agent imports no host and no face"
	case host:
		return to.layer <= host, "the host imports no face"
	case face:
		if to.layer == face {
			return to.face == from.face, "faces do not import each other"
		}
		return to.layer <= host, "faces import no command"
	}
	return true, ""
}

type pkgInfo struct {
	ImportPath string
	Name       string
	Imports    []string
	GoFiles    []string
	CgoFiles   []string
}

func listPackages(t *testing.T) []pkgInfo {
	t.Helper()
	out, err := exec.Command("go", "list", "-json", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkgInfo
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p pkgInfo
		if err := dec.Decode(&p); err != nil {
			t.Fatalf("decode go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

func relative(path string) (string, bool) {
	if path == module {
		return ".", true
	}
	rel, ok := strings.CutPrefix(path, module+"/")
	return rel, ok
}

// TestLayering checks every import between our packages against the layer table (direct
// imports: each package answers for its own). go list's Imports leave out test files, so
// tests may reach across layers.
func TestLayering(t *testing.T) {
	for _, p := range listPackages(t) {
		if len(p.CgoFiles) > 0 {
			t.Errorf("%s uses cgo (%v); the binary must stay cgo-free", p.ImportPath, p.CgoFiles)
		}
		rel, _ := relative(p.ImportPath)
		from, ok := roomOf(rel)
		if !ok {
			t.Errorf("%s has no layer: add it to the packages table in internal/layering/layering_test.go (see docs/architecture.md)", rel)
			continue
		}
		for _, imp := range p.Imports {
			irel, ours := relative(imp)
			if !ours {
				continue
			}
			to, ok := roomOf(irel)
			if !ok {
				continue // reported as a package of its own
			}
			if allowed, why := mayImport(from, to); !allowed {
				t.Errorf("%s (%s) imports %s (%s): %s", rel, from.layer, irel, to.layer, why)
			}
		}
	}
}

// TestLayerRules pins the rules themselves, including for packages other issues add
// (the host, the moved mcp-server face, the app-server's wire types).
func TestLayerRules(t *testing.T) {
	for _, tc := range []struct {
		from, to string
		ok       bool
	}{
		{"protocol", "tool", false},
		{"tool", "protocol", true},
		{"modelstream", "internal/model", false},
		{"agent", "internal/model", true},
		{"agent", "internal/host", false},
		{"agent", "internal/appserver", false},
		{"internal/model", "agent", false},
		{"internal/config", "internal/host", false},
		{"internal/mcp", "internal/mcpserver", false},
		{"internal/host", "agent", true},
		{"internal/host", "internal/config", true},
		{"internal/host", "internal/execcli", false},
		{"internal/mcpserver", "internal/host", true},
		{"internal/appserver", "internal/appserver/protocol", true},
		{"internal/execcli", "internal/appserver/protocol", false},
		{"internal/execcli", "internal/tui", false},
		{"internal/tui", "internal/testkit", false},
		{"cmd/gocodex", "internal/tui", true},
		{"e2e", "internal/testkit", true},
		{"internal/tui", "third_party/bubbletea", true},
		{"third_party/bubbles/textarea", "third_party/bubbletea", true},
		{"third_party/bubbletea", "protocol", false},
	} {
		from, ok1 := roomOf(tc.from)
		to, ok2 := roomOf(tc.to)
		if !ok1 || !ok2 {
			t.Fatalf("%s or %s has no entry", tc.from, tc.to)
		}
		if got, why := mayImport(from, to); got != tc.ok {
			t.Errorf("%s -> %s allowed = %v (%s), want %v", tc.from, tc.to, got, why, tc.ok)
		}
	}
}

// TestPublicAPINamesNoInternalPackage is the `go doc -all` check: the documentation of every
// package outside internal/ names none of the internal packages it imports, so a program in
// another module can use everything the API shows.
func TestPublicAPINamesNoInternalPackage(t *testing.T) {
	pkgs := listPackages(t)
	names := map[string]string{}
	for _, p := range pkgs {
		names[p.ImportPath] = p.Name
	}
	for _, p := range pkgs {
		rel, _ := relative(p.ImportPath)
		if strings.HasPrefix(rel, "internal/") || p.Name == "main" || len(p.GoFiles) == 0 {
			continue
		}
		if r, _ := roomOf(rel); r.layer == thirdParty {
			continue // imports nothing of ours (TestLayering)
		}
		out, err := exec.Command("go", "doc", "-all", p.ImportPath).CombinedOutput()
		if err != nil {
			t.Fatalf("go doc -all %s: %v\n%s", p.ImportPath, err, out)
		}
		if leaks := internalNames(string(out), p.Imports, names); len(leaks) > 0 {
			t.Errorf("go doc -all %s names internal packages: %s", rel, strings.Join(leaks, "; "))
		}
	}
}

// internalNames returns the lines of doc that use an identifier of an imported internal
// package (name.Exported) or spell an internal import path.
func internalNames(doc string, imports []string, names map[string]string) []string {
	var internal []string
	for _, imp := range imports {
		if strings.HasPrefix(imp, module+"/internal/") {
			internal = append(internal, names[imp])
		}
	}
	var leaks []string
	for i, line := range strings.Split(doc, "\n") {
		if strings.Contains(line, module+"/internal/") {
			leaks = append(leaks, fmt.Sprintf("line %d: %s", i+1, strings.TrimSpace(line)))
			continue
		}
		for _, name := range internal {
			if usesPackage(line, name) {
				leaks = append(leaks, fmt.Sprintf("line %d (%s): %s", i+1, name, strings.TrimSpace(line)))
				break
			}
		}
	}
	sort.Strings(leaks)
	return leaks
}

// usesPackage reports whether line has name.X with X exported and name not part of a longer
// identifier.
func usesPackage(line, name string) bool {
	for i := 0; ; {
		j := strings.Index(line[i:], name+".")
		if j < 0 {
			return false
		}
		at := i + j
		after := at + len(name) + 1
		before := at == 0 || !isIdent(line[at-1])
		if before && after < len(line) && line[after] >= 'A' && line[after] <= 'Z' {
			return true
		}
		i = at + 1
	}
}

func isIdent(c byte) bool {
	return c == '_' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func TestUsesPackage(t *testing.T) {
	for _, tc := range []struct {
		line, name string
		want       bool
	}{
		{"func ClientStreamer(c *model.Client) ModelStreamer", "model", true},
		{"Tools tools.Options", "tools", true},
		{"Tools tools.Options", "tool", false},
		{"the message history (history.jsonl)", "history", false},
		{"mymodel.Client", "model", false},
		{"x.model.Client", "model", false},
	} {
		if got := usesPackage(tc.line, tc.name); got != tc.want {
			t.Errorf("usesPackage(%q, %q) = %v, want %v", tc.line, tc.name, got, tc.want)
		}
	}
}
