// Package execpolicy reads Codex's execpolicy rules (Starlark `.rules` files with
// prefix_rule, host_executable and network_rule) and matches commands against them. A rule
// matches a command when its ordered tokens are a prefix of the command's argv; when several
// rules match, the strictest decision wins (forbidden > prompt > allow).
package execpolicy

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
)

// Decision is what a rule says about a command. The order of the values is the order of
// strictness.
type Decision int

// The decisions, from most lenient to strictest.
const (
	Allow Decision = iota
	Prompt
	Forbidden
)

// String returns the rules-file spelling.
func (d Decision) String() string {
	switch d {
	case Allow:
		return "allow"
	case Prompt:
		return "prompt"
	case Forbidden:
		return "forbidden"
	}
	return fmt.Sprintf("Decision(%d)", int(d))
}

// ParseDecision reads "allow", "prompt" or "forbidden".
func ParseDecision(s string) (Decision, error) {
	switch s {
	case "allow":
		return Allow, nil
	case "prompt":
		return Prompt, nil
	case "forbidden":
		return Forbidden, nil
	}
	return 0, fmt.Errorf("invalid decision: %s", s)
}

// MarshalJSON writes the rules-file spelling.
func (d Decision) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// UnmarshalJSON reads the rules-file spelling.
func (d *Decision) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := ParseDecision(s)
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// PrefixRule is one prefix_rule after alternatives in the first token have been expanded:
// the program is a single word, later tokens may still list alternatives.
type PrefixRule struct {
	Program       string
	Rest          [][]string // each token lists its accepted alternatives
	Decision      Decision
	Justification string
	// Where the rule was written ("file:line"), for messages; empty for amendments made in
	// memory.
	Source string
}

// Pattern renders the rule's tokens, alternatives as [a|b].
func (r *PrefixRule) Pattern() []string {
	out := []string{r.Program}
	for _, alts := range r.Rest {
		if len(alts) == 1 {
			out = append(out, alts[0])
			continue
		}
		s := "["
		for i, a := range alts {
			if i > 0 {
				s += "|"
			}
			s += a
		}
		out = append(out, s+"]")
	}
	return out
}

// match returns the matched prefix of cmd, whose first word has already been checked.
func (r *PrefixRule) match(cmd []string) ([]string, bool) {
	if len(cmd) < 1+len(r.Rest) {
		return nil, false
	}
	for i, alts := range r.Rest {
		if !slices.Contains(alts, cmd[1+i]) {
			return nil, false
		}
	}
	return cmd[:1+len(r.Rest)], true
}

// NetworkRule is a network_rule entry. Codex's network proxy uses these; gocodex keeps them so
// that rules files written for Codex load unchanged.
type NetworkRule struct {
	Host          string
	Protocol      string
	Decision      Decision
	Justification string
}

// RuleMatch is one rule that matched a command, or (Heuristics set) the decision the caller's
// fallback gave a command no rule matched.
type RuleMatch struct {
	MatchedPrefix   []string
	Decision        Decision
	ResolvedProgram string // set when an absolute program path matched through its basename
	Justification   string

	Heuristics bool
	Command    []string // the command the heuristics judged
}

// MarshalJSON writes Codex's externally tagged shape: {"prefixRuleMatch":{…}} or
// {"heuristicsRuleMatch":{"command":[…],"decision":…}}.
func (m RuleMatch) MarshalJSON() ([]byte, error) {
	if m.Heuristics {
		return marshalNoEscape(struct {
			H struct {
				Command  []string `json:"command"`
				Decision Decision `json:"decision"`
			} `json:"heuristicsRuleMatch"`
		}{H: struct {
			Command  []string `json:"command"`
			Decision Decision `json:"decision"`
		}{m.Command, m.Decision}})
	}
	type prefixMatch struct {
		MatchedPrefix   []string `json:"matchedPrefix"`
		Decision        Decision `json:"decision"`
		ResolvedProgram string   `json:"resolvedProgram,omitempty"`
		Justification   string   `json:"justification,omitempty"`
	}
	return marshalNoEscape(struct {
		P prefixMatch `json:"prefixRuleMatch"`
	}{prefixMatch{m.MatchedPrefix, m.Decision, m.ResolvedProgram, m.Justification}})
}

// Policy is a loaded set of rules. It is not changed after loading except through Clone and
// AddPrefixRule, so one value may be read from many goroutines.
type Policy struct {
	byProgram map[string][]*PrefixRule
	order     []string // programs in first-seen order, for stable listings
	hostExec  map[string][]string
	network   []NetworkRule
}

// Empty returns a policy with no rules.
func Empty() *Policy {
	return &Policy{byProgram: map[string][]*PrefixRule{}, hostExec: map[string][]string{}}
}

// Clone returns an independent copy that may be amended.
func (p *Policy) Clone() *Policy {
	c := Empty()
	if p == nil {
		return c
	}
	for k, v := range p.byProgram {
		c.byProgram[k] = slices.Clone(v)
	}
	c.order = slices.Clone(p.order)
	for k, v := range p.hostExec {
		c.hostExec[k] = slices.Clone(v)
	}
	c.network = slices.Clone(p.network)
	return c
}

func (p *Policy) addRule(r *PrefixRule) {
	if _, ok := p.byProgram[r.Program]; !ok {
		p.order = append(p.order, r.Program)
	}
	p.byProgram[r.Program] = append(p.byProgram[r.Program], r)
}

// AddPrefixRule adds a rule of plain tokens, as an amendment does.
func (p *Policy) AddPrefixRule(prefix []string, d Decision) error {
	if len(prefix) == 0 {
		return fmt.Errorf("prefix cannot be empty")
	}
	r := &PrefixRule{Program: prefix[0], Decision: d}
	for _, t := range prefix[1:] {
		r.Rest = append(r.Rest, []string{t})
	}
	p.addRule(r)
	return nil
}

// Rules lists every prefix rule, grouped by program in the order programs first appeared.
func (p *Policy) Rules() []*PrefixRule {
	if p == nil {
		return nil
	}
	var out []*PrefixRule
	for _, prog := range p.order {
		out = append(out, p.byProgram[prog]...)
	}
	return out
}

// NetworkRules lists the network_rule entries.
func (p *Policy) NetworkRules() []NetworkRule {
	if p == nil {
		return nil
	}
	return slices.Clone(p.network)
}

// MatchOptions tune matching.
type MatchOptions struct {
	// ResolveHostExecutables lets an absolute program path such as /usr/bin/git match the
	// rules written for git, when no rule names the path itself and any host_executable
	// entry for git lists that path. Sessions always resolve; `execpolicy check` only with
	// --resolve-host-executables.
	ResolveHostExecutables bool
}

// Matches returns the rules that match cmd, in the order they were defined.
func (p *Policy) Matches(cmd []string, opts MatchOptions) []RuleMatch {
	if p == nil || len(cmd) == 0 {
		return nil
	}
	out := matchRules(p.byProgram[cmd[0]], cmd, "")
	if len(out) > 0 || !opts.ResolveHostExecutables || !filepath.IsAbs(cmd[0]) {
		return out
	}
	base := filepath.Base(cmd[0])
	if paths, ok := p.hostExec[base]; ok && !slices.Contains(paths, cmd[0]) {
		return nil
	}
	resolved := append([]string{base}, cmd[1:]...)
	return matchRules(p.byProgram[base], resolved, cmd[0])
}

func matchRules(rules []*PrefixRule, cmd []string, resolvedProgram string) []RuleMatch {
	var out []RuleMatch
	for _, r := range rules {
		prefix, ok := r.match(cmd)
		if !ok {
			continue
		}
		out = append(out, RuleMatch{
			MatchedPrefix:   slices.Clone(prefix),
			Decision:        r.Decision,
			ResolvedProgram: resolvedProgram,
			Justification:   r.Justification,
		})
	}
	return out
}

// Evaluation is the result of checking one or more commands.
type Evaluation struct {
	// Decision is the strictest decision over MatchedRules; meaningless when MatchedRules is
	// empty (see HasDecision).
	Decision     Decision
	MatchedRules []RuleMatch
}

// HasDecision is false when nothing matched and no fallback judged the command.
func (e Evaluation) HasDecision() bool { return len(e.MatchedRules) > 0 }

// IsPolicyMatch reports whether any rule (not the fallback) matched.
func (e Evaluation) IsPolicyMatch() bool {
	for _, m := range e.MatchedRules {
		if !m.Heuristics {
			return true
		}
	}
	return false
}

// Check evaluates commands (usually the sub-commands of one shell invocation). A command no
// rule matches is judged by fallback when it is non-nil, recorded as a heuristics match.
func (p *Policy) Check(commands [][]string, fallback func([]string) Decision, opts MatchOptions) Evaluation {
	var ev Evaluation
	for _, cmd := range commands {
		ms := p.Matches(cmd, opts)
		if len(ms) == 0 && fallback != nil {
			ms = []RuleMatch{{Heuristics: true, Command: slices.Clone(cmd), Decision: fallback(cmd)}}
		}
		ev.MatchedRules = append(ev.MatchedRules, ms...)
	}
	for _, m := range ev.MatchedRules {
		ev.Decision = max(ev.Decision, m.Decision)
	}
	return ev
}
