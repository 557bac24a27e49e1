package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"github.com/gocodex/gocodex/internal/writejournal"
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
	// ValueOverrides are dotted keys with already-typed values, as the
	// app-server (thread/start `config`) and the mcp-server `codex` tool
	// receive them in JSON. They apply with -c precedence, after it.
	ValueOverrides map[string]any
	// Overrides are the typed flags, which beat every file and -c.
	Overrides Overrides
	// IgnoreUserConfig skips $CODEX_HOME/config.toml (--ignore-user-config).
	IgnoreUserConfig bool
	// StrictConfig refuses a key neither gocodex nor Codex knows instead of warning about it
	// (--strict-config, Codex 0.171).
	StrictConfig bool
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
	SourceCLI          LayerSource = "cli"           // -c key=value (app-server: sessionFlags)
	SourceManaged      LayerSource = "managed"       // $CODEX_HOME/managed_config.toml (legacy managed layer)
)

// Layer is one source of configuration, as loaded. In app-server terms
// (ConfigLayerSource): user and profile-file are `user` (the latter with
// its profile), project is `project` with the .codex folder, cli is
// `sessionFlags`, managed is `legacyManagedConfigTomlFromFile`; a
// profile-table is part of the user file.
type Layer struct {
	Source LayerSource
	// Profile names the profile for profile-file and profile-table layers.
	Profile string
	// Path is the file (for file layers and the profile table, the file that
	// defined the profile); empty for -c.
	Path string
	Data map[string]any
	// Version is LayerVersion of the layer as written (file layers only).
	Version string
	src     []byte
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

	l := loader{env: env, home: home, cwd: cwd, journal: writejournal.Open(home)}
	if err := l.load(opts); err != nil {
		return nil, l.warnings, err
	}
	if opts.StrictConfig {
		if err := strictError(l.warnings); err != nil {
			return nil, l.warnings, err
		}
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
	trust       string // the session's trust_level (see trustContext)
	trustRoot   string // where a trust decision for the session is recorded
	// projectFolders are the project's .codex folders, root first, with their trust.
	projectFolders []ProjectFolder
	journal        *writejournal.Journal
	overrides      Overrides
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
	cli, err := l.cliLayer(opts.CLIOverrides, opts.ValueOverrides)
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
	if !validProfileName(l.profile) {
		msg := fmt.Sprintf("invalid --profile value `%s`", l.profile)
		if fromFlag {
			return errors.New(msg)
		}
		if cli != nil {
			l.layers = append(l.layers, cli)
		}
		return l.attribute([]string{"profile"}, msg)
	}
	profileFileFound := false
	if l.profile != "" {
		pf, err := l.readFileLayer(SourceProfileFile, filepath.Join(l.home, l.profile+".config.toml"))
		var pe *ParseError
		if err != nil && !fromFlag && !errors.As(err, &pe) {
			// The file could not be read because of the name the
			// config chose: point at that key.
			if cli != nil {
				l.layers = append(l.layers, cli)
			}
			return l.attribute([]string{"profile"}, err.Error())
		}
		if err != nil {
			return err
		}
		if pf != nil {
			profileFileFound = true
			pf.Profile = l.profile
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
			// Codex 0.169 refuses the legacy form; we still honour it so
			// older configs keep working, but say where it is going.
			w := Warning{File: table.Path, Key: table.prefix, Message: fmt.Sprintf(
				"legacy [profiles.%s] table used; Codex 0.169 no longer accepts it: move these settings into %s",
				quoteKey(l.profile), filepath.Join(l.home, l.profile+".config.toml"))}
			if table.src != nil {
				w.Line, w.Column, _ = locate(table.src, table.prefix)
			}
			l.warnings = append(l.warnings, w)
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
	// Legacy managed_config.toml (set by administrators) sits on top of
	// everything from files and -c, as in Codex.
	managed, err := l.readFileLayer(SourceManaged, filepath.Join(l.home, "managed_config.toml"))
	if err != nil {
		return err
	}
	if managed != nil {
		l.layers = append(l.layers, managed)
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
	version := LayerVersion(data) // of the tree as written, before paths are resolved
	resolvePaths(data, filepath.Dir(path), l.env)
	for _, f := range checkKeys(data) {
		l.warnings = append(l.warnings, keyWarning(path, src, f))
	}
	return &Layer{Source: source, Path: path, Data: data, Version: version, src: src}, nil
}

// parseLayer decodes a file twice: into a generic map for layering, and into
// the typed schema so a wrong type is reported against this file's lines.
func parseLayer(path string, src []byte) (map[string]any, error) {
	data := map[string]any{}
	if err := toml.Unmarshal(src, &data); err != nil {
		return nil, fromTOMLError(path, err)
	}
	if _, err := decodeFile(data); err != nil {
		pe := typeError(fromTOMLError(path, err), data)
		pe.Line, pe.Column, _ = locateValue(src, pe.Key)
		if pe.Line == 0 {
			pe.Line, pe.Column = 1, 1
		}
		return nil, pe
	}
	return data, nil
}

// decodeFile decodes a tree into the schema. go-toml matches field names
// case-insensitively, Codex does not, so keys not spelled exactly as the
// schema has them are pruned first (they were reported as unknown).
func decodeFile(data map[string]any) (File, error) {
	var f File
	text, err := toml.Marshal(pruneUnknown(reflect.TypeOf(f), data))
	if err != nil {
		return f, fmt.Errorf("encode config: %w", err)
	}
	return f, toml.Unmarshal(text, &f)
}

// typeError rewrites go-toml's reflection-flavoured message into the form
// Codex users know: "invalid type: string "big", expected an integer". data
// is the layer's tree, to show the offending value.
func typeError(pe *ParseError, data map[string]any) *ParseError {
	i := strings.Index(pe.Message, "cannot decode TOML ")
	if i < 0 {
		return pe
	}
	rest := pe.Message[i+len("cannot decode TOML "):]
	got, _, _ := strings.Cut(rest, " ")
	if v, ok := getPath(data, pe.Key); ok {
		got = describeValue(v)
	}
	want := rest[strings.LastIndex(rest, " ")+1:]
	pe.Message = fmt.Sprintf("invalid type: %s, expected %s", got, friendlyType(want))
	return pe
}

func describeValue(v any) string {
	switch x := v.(type) {
	case string:
		return fmt.Sprintf("string %q", x)
	case bool:
		return fmt.Sprintf("boolean `%t`", x)
	case int64:
		return fmt.Sprintf("integer `%d`", x)
	case float64:
		return fmt.Sprintf("floating point `%v`", x)
	case []any:
		return "sequence"
	case map[string]any:
		return "map"
	}
	return fmt.Sprintf("%T", v)
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
	}
	if strings.HasPrefix(goType, "[]") {
		return "a sequence"
	}
	if strings.HasPrefix(goType, "map[") || strings.Contains(goType, "config.") || strings.Contains(goType, "model.") {
		return "a map"
	}
	return goType
}

func (l *loader) cliLayer(args []string, values map[string]any) (*Layer, error) {
	if len(args) == 0 && len(values) == 0 {
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
	keys := make([]string, 0, len(values))
	for k := range values {
		keys = append(keys, k)
	}
	sort.Strings(keys) // a parent before its children, whatever the map order
	for _, k := range keys {
		path, err := ParseKeyPath(k)
		if err != nil {
			return nil, fmt.Errorf("config override %q: %w", k, err)
		}
		v, err := fromJSONValue(values[k])
		if err != nil {
			return nil, fmt.Errorf("config override %q: %w", k, err)
		}
		if v == nil {
			continue // null means "leave as configured"
		}
		setPath(data, path, v)
		args = append(args, k+"="+fmt.Sprint(values[k]))
	}
	resolvePaths(data, l.cwd, l.env)
	for _, f := range checkKeys(data) {
		l.warnings = append(l.warnings, keyWarning("-c", nil, f))
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
	layer := &Layer{Source: SourceProfileTable, Profile: l.profile, Data: table, prefix: []string{"profiles", l.profile}}
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
	var err error
	if l.file, err = decodeFile(l.merged); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			pe := typeError(fromTOMLError("", err), l.merged)
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

// validProfileName keeps a profile name a plain file name inside
// CODEX_HOME: no separators, no control characters, not "." or "..".
func validProfileName(name string) bool {
	if name == "" {
		return true // no profile
	}
	if name == "." || name == ".." || len(name) > 200 {
		return false // 200: room for ".config.toml" within a file name
	}
	for _, r := range name {
		if r == '/' || r == '\\' || r < 0x20 || r == 0x7f {
			return false
		}
	}
	return true
}
