package config

import "strings"

// strictError is --strict-config's refusal: the first key neither gocodex nor Codex knows,
// in Codex 0.171's words ("unknown configuration field `bogus_key`", nested keys by their
// dotted path). Keys Codex knows and gocodex does not act on stay warnings, as in Codex.
func strictError(warnings []Warning) error {
	for _, w := range warnings {
		if !w.Unknown {
			continue
		}
		return &ParseError{File: w.File, Line: w.Line, Column: w.Column, Key: w.Key,
			Message: "unknown configuration field `" + strings.Join(w.Key, ".") + "`"}
	}
	return nil
}
