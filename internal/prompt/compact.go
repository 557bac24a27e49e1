package prompt

import (
	_ "embed"
	"strings"
)

//go:embed texts/compact/prompt.md
var compactPrompt string

//go:embed texts/compact/summary_prefix.md
var summaryPrefix string

// CompactPrompt is the request appended to the history when a thread is compacted: it asks
// the model for a checkpoint that replaces the history. Config `compact_prompt` replaces it.
func CompactPrompt() string { return compactPrompt }

// SummaryPrefix opens the user message that carries a compaction summary in the rebuilt
// history; the summary follows it after a newline.
func SummaryPrefix() string { return summaryPrefix }

// SummaryMessage is the text of the user message that carries a compaction summary.
func SummaryMessage(summary string) string { return summaryPrefix + "\n" + summary }

// IsSummaryText reports whether a user message's text is a compaction summary (ours): such a
// message is not something the user typed, and a later compaction summarises it again
// rather than keeping it.
func IsSummaryText(text string) bool { return strings.HasPrefix(text, summaryPrefix+"\n") }
