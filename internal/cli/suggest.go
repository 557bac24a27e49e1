package cli

import "strings"

// SuggestSubcommand says whether a lone word given where a prompt may stand is more likely a
// mistyped subcommand than a prompt, and which subcommand. Codex 0.169 sends any such word
// to the model as a prompt; a real prompt is rarely one lowercase word a letter or two away
// from a command name, so only that is caught: one word of letters and '-', at most one edit
// (insertion, deletion, substitution or swap of neighbours) from a name of up to five
// letters, at most two from a longer one; words and names under three letters never match.
// Ties go to the earlier name.
func SuggestSubcommand(word string, names []string) (string, bool) {
	if len(word) < 3 || !isCommandLike(word) {
		return "", false
	}
	best, bestDist := "", 3
	for _, name := range names {
		if name == word {
			return "", false // a real subcommand: nothing to suggest
		}
		if len(name) < 3 {
			continue // one-letter aliases ("e", "a") are one edit from any short word
		}
		limit := 1
		if len(name) > 5 {
			limit = 2
		}
		if d := editDistance(word, name); d <= limit && d < bestDist {
			best, bestDist = name, d
		}
	}
	return best, best != ""
}

func isCommandLike(word string) bool {
	return strings.IndexFunc(word, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r == '-') }) < 0
}

// editDistance is the optimal string alignment distance: Levenshtein plus swaps of two
// neighbouring letters, the commonest typo ("exce" for "exec").
func editDistance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
