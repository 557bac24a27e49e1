package cli

import "testing"

func TestSuggestSubcommand(t *testing.T) {
	names := []string{"exec", "e", "review", "login", "logout", "resume", "fork", "archive", "unarchive", "delete", "doctor", "completion", "apply", "a", "help", "mcp", "sandbox", "features"}
	for _, tc := range []struct {
		word, want string
	}{
		{"exce", "exec"},      // swapped letters
		{"exex", "exec"},      // one substitution
		{"resme", "resume"},   // one deletion
		{"archiv", "archive"}, // one deletion
		{"unarchvie", "unarchive"},
		{"docter", "doctor"},
		{"completoin", "completion"},
		{"forkk", "fork"},
		{"lgoin", "login"},
		{"exec", ""},        // a subcommand itself
		{"hello", ""},       // two edits from "help": a prompt
		{"fix", ""},         // a prompt
		{"fix the bug", ""}, // more than a word
		{"Exce", ""},        // capitals: a person's word, not a command
		{"refactor", ""},    // far from "review"
		{"deploy", ""},      // three edits from "delete"
		{"", ""},
		{"b", ""},  // one edit from the alias "a", but too short to tell
		{"ex", ""}, // a prefix is not a typo
	} {
		got, ok := SuggestSubcommand(tc.word, names)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("SuggestSubcommand(%q) = %q, %v; want %q", tc.word, got, ok, tc.want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"a", "", 1}, {"", "ab", 2}, {"exce", "exec", 1}, {"kitten", "sitting", 3}, {"ca", "abc", 3},
	} {
		if got := editDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
