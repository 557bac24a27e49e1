package execpolicy

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// LoadError is a rules file that could not be loaded. Line is 0 when the problem has no
// position (an unreadable file).
type LoadError struct {
	Path string
	Line int
	Msg  string
	// Kind tells a Starlark syntax error and a Starlark evaluation error (a bad argument to
	// prefix_rule, an unknown name) from a failing example; Codex words them differently.
	Kind LoadErrorKind
}

// LoadErrorKind classifies a LoadError.
type LoadErrorKind int

// The kinds of load error.
const (
	ErrOther  LoadErrorKind = iota // unreadable file, failing example
	ErrSyntax                      // the file is not valid Starlark
	ErrEval                        // evaluating the file failed
)

// Display renders the error as Codex prints it when a session cannot start (after a line
// "Error loading rules:"): "path:line: message (problem is on or around line N)".
func (e *LoadError) Display() string {
	msg := e.Msg
	switch e.Kind {
	case ErrSyntax:
		msg = "starlark error: error: Parse error: " + msg
	case ErrEval:
		msg = "error: " + msg
	}
	if e.Line <= 0 {
		return fmt.Sprintf("%s: %s", e.Path, msg)
	}
	return fmt.Sprintf("%s:%d: %s (problem is on or around line %d)", e.Path, e.Line, msg, e.Line)
}

// StartupMessage is what a session prints to stderr, before exiting with status 1, when its
// rules do not load.
func StartupMessage(err error) string {
	var le *LoadError
	if errors.As(err, &le) {
		return "Error loading rules:\n" + le.Display()
	}
	return "Error loading rules:\n" + err.Error()
}

func (e *LoadError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Path, e.Msg)
}

// maxSteps bounds the Starlark work one file may do: rules files are data, and a runaway
// loop must fail the load rather than hang the session.
const maxSteps = 1_000_000

// Parser accumulates rules from several files into one Policy. Files are parsed in order;
// later files see the host_executable entries of earlier ones.
type Parser struct {
	policy *Policy
}

// NewParser returns a parser with no rules yet.
func NewParser() *Parser { return &Parser{policy: Empty()} }

// Policy returns the rules parsed so far. The parser must not be used afterwards.
func (p *Parser) Policy() *Policy { return p.policy }

type pendingExamples struct {
	rules     []*PrefixRule
	matches   [][]string
	notMatch  [][]string
	line      int
	pathLabel string
}

// Parse evaluates one rules file. name labels errors (usually the file's path). On error the
// rules of this file that were already added stay in the policy; callers discard the parser.
func (p *Parser) Parse(name string, src []byte) error {
	var pending []pendingExamples
	thread := &starlark.Thread{Name: name}
	thread.SetMaxExecutionSteps(maxSteps)

	callLine := func(thread *starlark.Thread) int {
		if thread.CallStackDepth() < 2 {
			return 0
		}
		return int(thread.CallFrame(1).Pos.Line)
	}

	prefixRule := func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var (
			pattern       *starlark.List
			decision      starlark.Value = starlark.None
			match         starlark.Value = starlark.None
			notMatch      starlark.Value = starlark.None
			justification starlark.Value = starlark.None
		)
		if err := starlark.UnpackArgs(b.Name(), args, kwargs,
			"pattern", &pattern, "decision?", &decision, "match?", &match,
			"not_match?", &notMatch, "justification?", &justification); err != nil {
			return nil, err
		}
		d := Allow
		if decision != starlark.None {
			s, ok := starlark.AsString(decision)
			if !ok {
				return nil, fmt.Errorf("invalid decision: %s", decision.String())
			}
			var err error
			if d, err = ParseDecision(s); err != nil {
				return nil, err
			}
		}
		just, err := optionalJustification(justification)
		if err != nil {
			return nil, err
		}
		tokens, err := parsePattern(pattern)
		if err != nil {
			return nil, err
		}
		matches, err := parseExamples(match)
		if err != nil {
			return nil, err
		}
		notMatches, err := parseExamples(notMatch)
		if err != nil {
			return nil, err
		}
		line := callLine(thread)
		source := name
		if line > 0 {
			source = fmt.Sprintf("%s:%d", name, line)
		}
		var rules []*PrefixRule
		for _, head := range tokens[0] {
			r := &PrefixRule{Program: head, Rest: tokens[1:], Decision: d, Justification: just, Source: source}
			rules = append(rules, r)
			p.policy.addRule(r)
		}
		if len(matches) > 0 || len(notMatches) > 0 {
			pending = append(pending, pendingExamples{rules, matches, notMatches, line, name})
		}
		return starlark.None, nil
	}

	hostExecutable := func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var (
			name  string
			paths *starlark.List
		)
		if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "paths", &paths); err != nil {
			return nil, err
		}
		if name == "" {
			return nil, fmt.Errorf("invalid rule: host_executable name cannot be empty")
		}
		if strings.ContainsRune(name, '/') || name == "." || name == ".." {
			return nil, fmt.Errorf("invalid rule: host_executable name must be a bare executable name (got %s)", name)
		}
		var list []string
		for i := range paths.Len() {
			raw, ok := starlark.AsString(paths.Index(i))
			if !ok {
				return nil, fmt.Errorf("invalid rule: host_executable paths must be strings (got %s)", paths.Index(i).Type())
			}
			if !filepath.IsAbs(raw) && !strings.HasPrefix(raw, "~/") {
				return nil, fmt.Errorf("invalid rule: host_executable paths must be absolute or use `~/...` home-relative syntax (got %s)", raw)
			}
			if filepath.Base(raw) != name {
				return nil, fmt.Errorf("invalid rule: host_executable path `%s` must have basename `%s`", raw, name)
			}
			if !containsString(list, raw) {
				list = append(list, raw)
			}
		}
		p.policy.hostExec[name] = list
		return starlark.None, nil
	}

	networkRule := func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var (
			host, protocol, decision string
			justification            starlark.Value = starlark.None
		)
		if err := starlark.UnpackArgs(b.Name(), args, kwargs,
			"host", &host, "protocol", &protocol, "decision", &decision, "justification?", &justification); err != nil {
			return nil, err
		}
		host = strings.ToLower(strings.TrimSpace(host))
		if host == "" {
			return nil, fmt.Errorf("invalid rule: network rule host cannot be empty")
		}
		var d Decision
		switch decision {
		case "deny":
			d = Forbidden
		case "ask":
			d = Prompt
		default:
			var err error
			if d, err = ParseDecision(decision); err != nil {
				return nil, err
			}
		}
		just, err := optionalJustification(justification)
		if err != nil {
			return nil, err
		}
		p.policy.network = append(p.policy.network, NetworkRule{Host: host, Protocol: protocol, Decision: d, Justification: just})
		return starlark.None, nil
	}

	predeclared := starlark.StringDict{
		"prefix_rule":     starlark.NewBuiltin("prefix_rule", prefixRule),
		"host_executable": starlark.NewBuiltin("host_executable", hostExecutable),
		"network_rule":    starlark.NewBuiltin("network_rule", networkRule),
	}
	opts := &syntax.FileOptions{Set: true, While: true, TopLevelControl: true, GlobalReassign: true}
	if _, err := starlark.ExecFileOptions(opts, thread, name, src, predeclared); err != nil {
		return starlarkLoadError(name, err)
	}
	for _, pe := range pending {
		if msg := p.validateExamples(pe); msg != "" {
			return &LoadError{Path: name, Line: pe.line, Msg: msg}
		}
	}
	return nil
}

// validateExamples checks a rule's match/not_match examples against that rule alone. It
// returns the failure message, or "".
func (p *Parser) validateExamples(pe pendingExamples) string {
	only := Empty()
	only.hostExec = p.policy.hostExec
	for _, r := range pe.rules {
		only.addRule(r)
	}
	opts := MatchOptions{ResolveHostExecutables: true}
	for _, ex := range pe.notMatch {
		if ms := only.Matches(ex, opts); len(ms) > 0 {
			return fmt.Sprintf("expected example to not match rule `%s`: %s",
				renderRule(pe.rules[0]), strings.Join(ex, " "))
		}
	}
	var unmatched []string
	for _, ex := range pe.matches {
		if len(only.Matches(ex, opts)) == 0 {
			unmatched = append(unmatched, fmt.Sprintf("%q", strings.Join(ex, " ")))
		}
	}
	if len(unmatched) > 0 {
		rendered := make([]string, len(pe.rules))
		for i, r := range pe.rules {
			rendered[i] = fmt.Sprintf("%q", renderRule(r))
		}
		return fmt.Sprintf("expected every example to match at least one rule. rules: [%s]; unmatched examples: [%s]",
			strings.Join(rendered, ", "), strings.Join(unmatched, ", "))
	}
	return ""
}

func renderRule(r *PrefixRule) string {
	s := fmt.Sprintf("prefix_rule(pattern=%s, decision=%q", jsonStrings(r.Pattern()), r.Decision.String())
	if r.Justification != "" {
		s += fmt.Sprintf(", justification=%q", r.Justification)
	}
	return s + ")"
}

func starlarkLoadError(name string, err error) error {
	var synErr syntax.Error
	if errors.As(err, &synErr) {
		return &LoadError{Path: name, Line: int(synErr.Pos.Line), Msg: synErr.Msg, Kind: ErrSyntax}
	}
	var evalErr *starlark.EvalError
	if errors.As(err, &evalErr) {
		line := 0
		for i := len(evalErr.CallStack) - 1; i >= 0; i-- {
			if evalErr.CallStack[i].Pos.Filename() == name {
				line = int(evalErr.CallStack[i].Pos.Line)
				break
			}
		}
		return &LoadError{Path: name, Line: line, Msg: evalErr.Msg, Kind: ErrEval}
	}
	// The resolver reports a list of errors; the first is enough to locate the problem.
	var resolveErrs resolve.ErrorList
	if errors.As(err, &resolveErrs) && len(resolveErrs) > 0 {
		return &LoadError{Path: name, Line: int(resolveErrs[0].Pos.Line), Msg: resolveErrs[0].Msg, Kind: ErrEval}
	}
	return &LoadError{Path: name, Msg: err.Error()}
}

func optionalJustification(v starlark.Value) (string, error) {
	if v == starlark.None {
		return "", nil
	}
	s, ok := starlark.AsString(v)
	if !ok {
		return "", fmt.Errorf("invalid rule: justification must be a string (got %s)", v.Type())
	}
	if strings.TrimSpace(s) == "" {
		return "", fmt.Errorf("invalid rule: justification cannot be empty")
	}
	return s, nil
}

// parsePattern returns each token's alternatives.
func parsePattern(list *starlark.List) ([][]string, error) {
	if list.Len() == 0 {
		return nil, fmt.Errorf("invalid pattern element: pattern cannot be empty")
	}
	out := make([][]string, 0, list.Len())
	for i := range list.Len() {
		v := list.Index(i)
		if s, ok := starlark.AsString(v); ok {
			out = append(out, []string{s})
			continue
		}
		alts, ok := v.(*starlark.List)
		if !ok {
			return nil, fmt.Errorf("invalid pattern element: pattern element must be a string or list of strings (got %s)", v.Type())
		}
		if alts.Len() == 0 {
			return nil, fmt.Errorf("invalid pattern element: pattern alternatives cannot be empty")
		}
		var tok []string
		for j := range alts.Len() {
			s, ok := starlark.AsString(alts.Index(j))
			if !ok {
				return nil, fmt.Errorf("invalid pattern element: pattern alternative must be a string (got %s)", alts.Index(j).Type())
			}
			tok = append(tok, s)
		}
		out = append(out, tok)
	}
	return out, nil
}

// parseExamples reads match/not_match: a list whose items are token lists or strings split
// with shell quoting rules.
func parseExamples(v starlark.Value) ([][]string, error) {
	if v == starlark.None {
		return nil, nil
	}
	list, ok := v.(*starlark.List)
	if !ok {
		return nil, fmt.Errorf("invalid example: examples must be a list (got %s)", v.Type())
	}
	var out [][]string
	for i := range list.Len() {
		item := list.Index(i)
		if s, ok := starlark.AsString(item); ok {
			toks, ok := shellSplit(s)
			if !ok {
				return nil, fmt.Errorf("invalid example: example string has invalid shell syntax")
			}
			if len(toks) == 0 {
				return nil, fmt.Errorf("invalid example: example cannot be an empty string")
			}
			out = append(out, toks)
			continue
		}
		inner, ok := item.(*starlark.List)
		if !ok {
			return nil, fmt.Errorf("invalid example: example must be a string or list of strings (got %s)", item.Type())
		}
		if inner.Len() == 0 {
			return nil, fmt.Errorf("invalid example: example cannot be an empty list")
		}
		var toks []string
		for j := range inner.Len() {
			s, ok := starlark.AsString(inner.Index(j))
			if !ok {
				return nil, fmt.Errorf("invalid example: example tokens must be strings (got %s)", inner.Index(j).Type())
			}
			toks = append(toks, s)
		}
		out = append(out, toks)
	}
	return out, nil
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
