// Package review holds what a code review needs besides the engine: the reviewer's rubric,
// the prompt and the user-facing hint of each target, the check that a target exists, and
// the reading and printing of the reviewer's structured findings.
package review

import (
	_ "embed"
	"strings"

	"github.com/gocodex/gocodex/protocol"
)

//go:embed texts/rubric.md
var rubric string

// Rubric is the reviewer's first developer message: how to review and the JSON to answer with.
func Rubric() string { return rubric }

// Request builds the review request of a target, with its user-facing hint.
func Request(t protocol.ReviewTarget) protocol.ReviewRequest {
	return protocol.ReviewRequest{Target: t, UserFacingHint: Hint(t)}
}

// Hint is how faces name a review: "current changes", "changes against 'main'",
// "commit 470924b", or the custom instructions.
func Hint(t protocol.ReviewTarget) string {
	switch t.Type {
	case protocol.ReviewBaseBranch:
		return "changes against '" + t.Branch + "'"
	case protocol.ReviewCommit:
		sha := t.Sha
		if len(sha) > 7 {
			sha = sha[:7]
		}
		if t.Title != nil && *t.Title != "" {
			return "commit " + sha + ": " + *t.Title
		}
		return "commit " + sha
	case protocol.ReviewCustom:
		return strings.TrimSpace(t.Instructions)
	}
	return "current changes"
}

// Prompt is the user message the reviewer gets for a target, as Codex 0.169 words it.
// mergeBase is the merge base of HEAD and the base branch ("" when there is none).
func Prompt(t protocol.ReviewTarget, mergeBase string) string {
	switch t.Type {
	case protocol.ReviewBaseBranch:
		if mergeBase != "" {
			return "Review the code changes against the base branch '" + t.Branch + "'. The merge base commit for this comparison is " +
				mergeBase + ". Run `git diff " + mergeBase + "` to inspect the changes relative to " + t.Branch +
				". Provide prioritized, actionable findings."
		}
		return "Review the code changes against the base branch '" + t.Branch + "'. Start by finding the merge diff between the current branch and " +
			t.Branch + "'s upstream e.g. (`git merge-base HEAD \"$(git rev-parse --abbrev-ref \"" + t.Branch +
			"@{upstream}\")\"`), then run `git diff` against that SHA to see what changes we would merge into the " + t.Branch +
			" branch. Provide prioritized, actionable findings."
	case protocol.ReviewCommit:
		if t.Title != nil && *t.Title != "" {
			return "Review the code changes introduced by commit " + t.Sha + " (\"" + *t.Title + "\"). Provide prioritized, actionable findings."
		}
		return "Review the code changes introduced by commit " + t.Sha + ". Provide prioritized, actionable findings."
	case protocol.ReviewCustom:
		return t.Instructions
	}
	return "Review the current code changes (staged, unstaged, and untracked files) and provide prioritized findings."
}

// UserAction is the message the reviewed thread keeps: the review's printed result, framed
// so the model knows the person may ask it to resolve some of the comments.
func UserAction(printed string) string {
	return "<user_action>\n  <context>User initiated a review task. Here's the full review output from reviewer model. User may select one or more comments to resolve.</context>\n  <action>review</action>\n  <results>\n  " +
		printed + "\n  </results>\n  </user_action>\n"
}
