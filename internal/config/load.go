package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gocodex/gocodex/protocol"
	"github.com/pelletier/go-toml/v2"
)

// LoadOptions says where configuration comes from. Everything has a default
// except what only the caller can know (flags).
type LoadOptions struct {
	// CodexHome overrides $CODEX_HOME / ~/.codex.
	CodexHome string
	// Cwd is the session's working directory (-C/--cd); default: the process's.
	Cwd string
	// Env reads environment variables; nil means os.Getenv.
	Env func(string) string
	// Profile is -p/--profile; empty falls back to the `profile` key.
	Profile string
	// CLIOverrides are the raw `-c key=value` arguments, in order.
	CLIOverrides []string
	// Overrides are the typed flags, which beat every file and -c.
	Overrides Overrides
	// IgnoreUserConfig skips $CODEX_HOME/config.toml (--ignore-user-config).
	IgnoreUserConfig bool
}

// Overrides are values set by dedicated flags or by a face's request
// (app-server thread/start, the mcp-server `codex` tool). Nil or empty means
// "not set".
type Overrides struct {
	Model                 *string
	ModelProvider         *string
	ApprovalPolicy        *protocol.AskForApproval
	SandboxMode           *protocol.SandboxMode
	OSS                   bool   // --oss: use the local open-source provider
	LocalProvider         string // --local-provider: "ollama" or "lmstudio"
	BaseInstructions      *string
	DeveloperInstructions *string
	CompactPrompt         *string
	ReasoningEffort       *string
	ReasoningSummary      *string
	ShowRawAgentReasoning *bool
	// AdditionalWritableRoots are --add-dir directories (relative to Cwd).
	AdditionalWritableRoots []string
}

// LayerSource names where a layer came from, lowest precedence first.
type LayerSource string

// The layer sources, in the order they are applied.
const (
	SourceUser         LayerSource = "user"          // $CODEX_HOME/config.toml
	SourceProfileFile  LayerSource = "profile-file"  // $CODEX_HOME/<profile>.config.toml
	SourceProject      LayerSource = "project"       // <dir>/.codex/config.toml, trusted projects only
	SourceProfileTable LayerSource = "profile-table" // [profiles.<name>] of the merged files
	SourceCLI          LayerSource = "cli"           // -c key=value
)

// Layer is one source of configuration, as loaded.
type Layer struct {
	Source LayerSource
	// Path is the file (for file layers and the profile table, the file that
	// defined the profile); empty for -c.
	Path string
	Data map[string]any
	src  []byte
	// prefix is where Data lives inside src (["profiles", name] for a
	// profile table), for error positions.
	prefix []string
	// raw is the -c argument for overrides.
	raw []string
}

// DefaultModel is used when nothing names a model: the highest-priority
// listed model of Codex 0.169's bundled catalog.
const DefaultModel = "gpt-6.1-sol"

// DefaultOSSModel is the model --oss uses when none is configured.
const DefaultOSSModel = "gpt-oss:20b"

// Load reads and layers the configuration (lowest precedence first):
// $CODEX_HOME/config.toml < $CODEX_HOME/<profile>.config.toml < trusted
// project .codex/config.toml files (outermost first) < [profiles.<name>] <
// -c overrides < typed Overrides. Unknown keys give warnings; malformed TOML
// and bad values give a *ParseError naming file, line and column.
func Load(opts LoadOptions) (*Config, []Warning, error) {
	env := opts.Env
	if env == nil {
		env = os.Getenv
	}
	home := opts.CodexHome
	if home == "" {
		var err error
		if home, err = CodexHome(env); err != nil {
			return nil, nil, err
		}
	}
	home = absClean(home)
	cwd := opts.Cwd
	if cwd == "" {
		var err error
		if cwd, err = os.Getwd(); err != nil {
			return nil, nil, fmt.Errorf("resolve cwd: %w", err)
		}
	}
	cwd = absClean(cwd)

	l := loader{env: env, home: home, cwd: cwd}
	if err := l.load(opts); err != nil {
		return nil, l.warnings, err
	}
	cfg, err := l.resolve(opts.Overrides)
	if err != nil {
		return nil, l.warnings, err
	}
	return cfg, l.warnings, nil
}

type loader struct {
	env      func(string) string
	home     string
	cwd      string
	warnings []Warning

	layers      []*Layer
	merged      map[string]any
	file        File
	profile     string
	projectRoot string
	trust       string // trust_level of the nearest [projects] entry
}

func (l *loader) load(opts LoadOptions) error {
	if !opts.IgnoreUserConfig {
		user, err := l.readFileLayer(SourceUser, filepath.Join(l.home, "config.toml"))
		if err != nil {
			return err
		}
		if user != nil {
			l.layers = append(l.layers, user)
		}
	}
	cli, err := l.cliLayer(opts.CLIOverrides)
	if err != nil {
		return err
	}
	early := l.mergeLayers(cli)

	l.profile = opts.Profile
	fromFlag := l.profile != ""
	if !fromFlag {
		if s, ok := early["profile"].(string); ok {
			l.profile = s
		}
	}
	// The name becomes part of a file name: keep it inside CODEX_HOME.
	if strings.ContainsAny(l.profile, `/\`) || l.profile == "." || l.profile == ".." {
		msg := fmt.Sprintf("invalid --profile value `%s`", l.profile)
		if fromFlag {
			return errors.New(msg)
		}
		l.layers = append(l.layers, cli)
		return l.attribute([]string{"profile"}, msg)
	}
	profileFileFound := false
	if l.profile != "" {
		pf, err := l.readFileLayer(SourceProfileFile, filepath.Join(l.home, l.profile+".config.toml"))
		if err != nil {
			return err
		}
		if pf != nil {
			profileFileFound = true
			l.layers = append(l.layers, pf)
		}
	}

	if err := l.loadProjects(l.mergeLayers(cli)); err != nil {
		return err
	}

	if l.profile != "" {
		table := l.profileTable(cli)
		if table != nil {
			l.layers = append(l.layers, table)
		} else if !profileFileFound {
			l.warnings = append(l.warnings, Warning{
				Message: fmt.Sprintf("config profile `%s` not found: no [profiles.%s] table and no %s",
					l.profile, quoteKey(l.profile), filepath.Join(l.home, l.profile+".config.toml")),
			})
		}
	}
	if cli != nil {
		l.layers = append(l.layers, cli)
	}
	l.merged = l.mergeLayers(nil)
	return l.decodeMerged()
}

// mergeLayers merges the layers loaded so far plus extra.
func (l *loader) mergeLayers(extra *Layer) map[string]any {
	out := map[string]any{}
	for _, layer := range l.layers {
		mergeInto(out, layer.Data)
	}
	if extra != nil {
		mergeInto(out, extra.Data)
	}
	return out
}

// readFileLayer parses one config file. A missing file is not an error.
func (l *loader) readFileLayer(source LayerSource, path string) (*Layer, error) {
	src, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read config %s: %w", path, err)
	}
	data, err := parseLayer(path, src)
	if err != nil {
		return nil, err
	}
	resolvePaths(data, filepath.Dir(path), l.env)
	for _, key := range unknownKeys(data) {
		l.warnings = append(l.warnings, unknownKeyWarning(path, src, key))
	}
	return &Layer{Source: source, Path: path, Data: data, src: src}, nil
}

// parseLayer decodes a file twice: into a generic map for layering, and into
// the typed schema so a wrong type is reported against this file's lines.
func parseLayer(path string, src []byte) (map[string]any, error) {
	data := map[string]any{}
	if err := toml.Unmarshal(src, &data); err != nil {
		return nil, fromTOMLError(path, err)
	}
	var typed File
	if err := toml.Unmarshal(src, &typed); err != nil {
		return nil, typeError(fromTOMLError(path, err))
	}
	return data, nil
}

// typeError rewrites go-toml's reflection-flavoured message into one a user
// can act on.
func typeError(pe *ParseError) *ParseError {
	if i := strings.Index(pe.Message, "cannot decode TOML "); i >= 0 {
		rest := pe.Message[i+len("cannot decode TOML "):]
		got, _, _ := strings.Cut(rest, " ")
		want := rest[strings.LastIndex(rest, " ")+1:]
		pe.Message = fmt.Sprintf("invalid type: %s, expected %s", got, friendlyType(want))
	}
	return pe
}

func friendlyType(goType string) string {
	switch strings.TrimLeft(goType, "*") {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "int64", "int":
		return "an integer"
	case "float64":
		return "a number"
	case "[]string":
		return "an array of strings"
	}
	if strings.HasPrefix(goType, "map[") || strings.Contains(goType, "config.") || strings.Contains(goType, "model.") {
		return "a table"
	}
	return goType
}

func (l *loader) cliLayer(args []string) (*Layer, error) {
	if len(args) == 0 {
		return nil, nil
	}
	overrides, err := ParseOverrides(args)
	if err != nil {
		return nil, err
	}
	data := map[string]any{}
	for _, o := range overrides {
		setPath(data, o.Path, o.Value)
	}
	resolvePaths(data, l.cwd, l.env)
	for _, key := range unknownKeys(data) {
		l.warnings = append(l.warnings, Warning{
			File: "-c", Key: key,
			Message: fmt.Sprintf("unknown key `%s` ignored (gocodex does not know it)", strings.Join(key, ".")),
		})
	}
	return &Layer{Source: SourceCLI, Data: data, raw: args}, nil
}

// profileTable picks [profiles.<name>] from the merged files (and -c, so
// `-c profiles.fast.model=x` works).
func (l *loader) profileTable(cli *Layer) *Layer {
	all := l.mergeLayers(cli)
	t, ok := getPath(all, []string{"profiles", l.profile})
	table, isTable := t.(map[string]any)
	if !ok || !isTable {
		return nil
	}
	layer := &Layer{Source: SourceProfileTable, Data: table, prefix: []string{"profiles", l.profile}}
	// Attribute positions to the highest file that defines the profile.
	for i := len(l.layers) - 1; i >= 0; i-- {
		if _, ok := getPath(l.layers[i].Data, layer.prefix); ok {
			layer.Path, layer.src = l.layers[i].Path, l.layers[i].src
			break
		}
	}
	if layer.Path == "" && cli != nil {
		layer.raw = cli.raw
	}
	return layer
}

// decodeMerged decodes the merged layers into the typed schema. Files were
// already checked one by one, so an error here comes from a -c override (or
// a profile table whose keys are valid TOML but of the wrong type).
func (l *loader) decodeMerged() error {
	text, err := toml.Marshal(l.merged)
	if err != nil {
		return fmt.Errorf("encode merged config: %w", err)
	}
	if err := toml.Unmarshal(text, &l.file); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			pe := typeError(fromTOMLError("", err))
			return l.attribute(pe.Key, pe.Message)
		}
		return err
	}
	return nil
}

// attribute builds a ParseError for a bad value at key, naming the layer
// that supplied the winning value and where in it.
func (l *loader) attribute(key []string, msg string) *ParseError {
	for i := len(l.layers) - 1; i >= 0; i-- {
		layer := l.layers[i]
		if _, ok := getPath(layer.Data, key); !ok {
			continue
		}
		pe := &ParseError{File: layer.Path, Key: key, Message: msg}
		if layer.Source == SourceCLI || (layer.Path == "" && layer.raw != nil) {
			pe.File = "-c " + findOverride(layer.raw, key)
			return pe
		}
		full := append(append([]string(nil), layer.prefix...), key...)
		if line, col, ok := locateValue(layer.src, full); ok {
			pe.Line, pe.Column = line, col
		}
		return pe
	}
	return &ParseError{File: "config", Key: key, Message: msg}
}

func findOverride(raw []string, key []string) string {
	dotted := strings.Join(key, ".")
	for i := len(raw) - 1; i >= 0; i-- {
		k, _, _ := strings.Cut(raw[i], "=")
		k = strings.TrimSpace(k)
		if k == dotted || strings.HasPrefix(dotted, k+".") || strings.HasPrefix(k, dotted+".") {
			return raw[i]
		}
	}
	return dotted
}

// locateValue finds the value of key (falling back to the key itself).
func locateValue(src []byte, key []string) (int, int, bool) {
	d, err := parseDocument(src)
	if err == nil {
		for _, e := range d.entries {
			if e.kind == kvEntry && equalPath(e.path, key) {
				line, col := position(src, e.valStart)
				return line, col, true
			}
		}
	}
	return locate(src, key)
}

// pathKeys are keys holding file-system paths; a relative path is taken
// relative to the directory of the file that sets it (the cwd for -c), and
// `~/` is expanded, as Codex does for its absolute-path settings.
var pathKeys = [][]string{
	{"model_instructions_file"}, {"experimental_instructions_file"}, {"experimental_compact_prompt_file"},
	{"sqlite_home"}, {"log_dir"},
}

func resolvePaths(data map[string]any, base string, env func(string) string) {
	fix := func(m map[string]any) {
		for _, k := range pathKeys {
			if s, ok := m[k[0]].(string); ok && s != "" {
				m[k[0]] = absPath(s, base, env)
			}
		}
		if sww, ok := m["sandbox_workspace_write"].(map[string]any); ok {
			if roots, ok := sww["writable_roots"].([]any); ok {
				for i, r := range roots {
					if s, ok := r.(string); ok {
						roots[i] = absPath(s, base, env)
					}
				}
			}
		}
	}
	fix(data)
	if profiles, ok := data["profiles"].(map[string]any); ok {
		for _, p := range profiles {
			if pm, ok := p.(map[string]any); ok {
				fix(pm)
			}
		}
	}
}

func absPath(p, base string, env func(string) string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home := env("HOME"); home != "" {
			p = filepath.Join(home, p[1:])
		}
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
	}
	return filepath.Clean(p)
}

func absClean(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	return filepath.Clean(p)
}

// loadProjects finds the project root, decides trust, and loads the
// .codex/config.toml files between the root and cwd when trusted.
func (l *loader) loadProjects(merged map[string]any) error {
	markers := []string{".git"}
	if raw, ok := merged["project_root_markers"].([]any); ok {
		markers = markers[:0]
		for _, m := range raw {
			if s, ok := m.(string); ok && s != "" {
				markers = append(markers, s)
			}
		}
	}
	l.projectRoot = findProjectRoot(l.cwd, markers)
	l.trust = trustLevel(merged, l.cwd, l.projectRoot)

	var dirs []string
	for dir := l.cwd; ; dir = filepath.Dir(dir) {
		dirs = append(dirs, dir)
		if dir == l.projectRoot || dir == filepath.Dir(dir) {
			break
		}
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		codexDir := filepath.Join(dirs[i], ".codex")
		if sameDir(codexDir, l.home) {
			continue // that is the user layer, already loaded
		}
		path := filepath.Join(codexDir, "config.toml")
		if _, err := os.Stat(path); err != nil {
			continue
		}
		if l.trust != TrustTrusted {
			l.warnings = append(l.warnings, Warning{File: path,
				Message: fmt.Sprintf("project config ignored: %s is not a trusted project (set [projects.%s] trust_level = \"trusted\")",
					l.projectRoot, quoteKey(l.projectRoot))})
			continue
		}
		layer, err := l.readFileLayer(SourceProject, path)
		if err != nil {
			return err
		}
		if layer != nil {
			l.layers = append(l.layers, layer)
		}
	}
	return nil
}

// Trust levels of [projects."<path>"] entries.
const (
	TrustTrusted   = "trusted"
	TrustUntrusted = "untrusted"
)

// findProjectRoot walks up from cwd to the nearest directory holding one of
// the markers; with none found (or no markers) cwd is its own root.
func findProjectRoot(cwd string, markers []string) string {
	if len(markers) == 0 {
		return cwd
	}
	for dir := cwd; ; dir = filepath.Dir(dir) {
		for _, m := range markers {
			if _, err := os.Lstat(filepath.Join(dir, m)); err == nil {
				return dir
			}
		}
		if dir == filepath.Dir(dir) {
			return cwd
		}
	}
}

// trustLevel returns the trust_level of cwd's nearest [projects] entry: cwd,
// its ancestors, and the project root (so trusting a repository covers its
// sub-directories).
func trustLevel(merged map[string]any, cwd, root string) string {
	projects, _ := merged["projects"].(map[string]any)
	if len(projects) == 0 {
		return ""
	}
	levels := map[string]string{}
	for k, v := range projects {
		t, _ := v.(map[string]any)
		if lvl, ok := t["trust_level"].(string); ok {
			levels[canonical(k)] = lvl
		}
	}
	for dir := canonical(cwd); ; dir = filepath.Dir(dir) {
		if lvl, ok := levels[dir]; ok {
			return lvl
		}
		if dir == filepath.Dir(dir) {
			break
		}
	}
	return levels[canonical(root)]
}

func canonical(p string) string {
	p = absClean(p)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

func sameDir(a, b string) bool {
	if canonical(a) == canonical(b) {
		return true
	}
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}
