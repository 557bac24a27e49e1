package execpolicy

// CheckResult is what `execpolicy check` prints: every matching rule and, when any matched,
// the strictest decision.
type CheckResult struct {
	MatchedRules []RuleMatch `json:"matchedRules"`
	Decision     *Decision   `json:"decision,omitempty"`
}

// Check loads rulesFiles in order and matches argv as one command (a shell invocation is
// not split, as in Codex's CLI).
func Check(rulesFiles []string, argv []string, opts MatchOptions) (CheckResult, error) {
	p, err := LoadFiles(rulesFiles)
	if err != nil {
		return CheckResult{}, err
	}
	ev := p.Check([][]string{argv}, nil, opts)
	res := CheckResult{MatchedRules: ev.MatchedRules}
	if res.MatchedRules == nil {
		res.MatchedRules = []RuleMatch{}
	}
	if ev.HasDecision() {
		d := ev.Decision
		res.Decision = &d
	}
	return res, nil
}
