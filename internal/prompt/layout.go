package prompt

import "strings"

// ContextOptions is what goes into the initial context of a thread.
type ContextOptions struct {
	// Permissions, when set, adds the permissions section.
	Permissions *PermissionsOptions
	// DeveloperInstructions is config `developer_instructions`.
	DeveloperInstructions string
	// SkillsInstructions is the <skills_instructions> block ("" leaves it out).
	SkillsInstructions string
	// UserInstructions is the result of UserInstructions; "" leaves the block out.
	UserInstructions string
	// Environment is the <environment_context> block; its Cwd also names the AGENTS.md block.
	Environment EnvironmentContext
}

// InitialContext is the text of the two messages that open a thread's history: one
// developer message and one "contextual" user message, each holding one input_text content
// item per section, in order. Either may be empty.
type InitialContext struct {
	Developer []string
	User      []string
}

// BuildInitialContext lays the sections out as Codex 0.169 does: the developer message
// carries the developer instructions and then the permissions section; the user message
// carries the AGENTS.md block and then the environment context.
func BuildInitialContext(opts ContextOptions) InitialContext {
	var ic InitialContext
	if s := opts.DeveloperInstructions; strings.TrimSpace(s) != "" {
		ic.Developer = append(ic.Developer, s)
	}
	if opts.SkillsInstructions != "" {
		ic.Developer = append(ic.Developer, opts.SkillsInstructions)
	}
	if opts.Permissions != nil {
		ic.Developer = append(ic.Developer, Permissions(*opts.Permissions))
	}
	if opts.UserInstructions != "" {
		ic.User = append(ic.User, RenderUserInstructions(opts.Environment.Cwd, opts.UserInstructions))
	}
	ic.User = append(ic.User, opts.Environment.Render())
	return ic
}

// UserInstructionsPrefix starts the AGENTS.md block; a user message starting with it is
// context, not something the user typed.
const UserInstructionsPrefix = "# AGENTS.md instructions for "

// RenderUserInstructions wraps the user instructions in the block models know from Codex.
func RenderUserInstructions(cwd, text string) string {
	return UserInstructionsPrefix + cwd + "\n\n<INSTRUCTIONS>\n" + text + "\n</INSTRUCTIONS>"
}

// IsContextualUserText reports whether a user message's text was put there by us (AGENTS.md
// block, environment context, turn-aborted marker, compaction summary) rather than typed by
// the user. Faces use it to hide such messages when replaying history; rollback, fork and
// compaction use it to find where user turns start.
func IsContextualUserText(text string) bool {
	t := strings.TrimLeft(text, " \t\r\n")
	return IsSummaryText(text) || strings.HasPrefix(t, UserInstructionsPrefix) ||
		strings.HasPrefix(t, "<environment_context>") ||
		strings.HasPrefix(t, "<user_instructions>") ||
		strings.HasPrefix(t, TurnAbortedOpen) ||
		strings.HasPrefix(t, UserShellCommandOpen) ||
		strings.HasPrefix(t, SkillOpen)
}

// SkillOpen starts the message that brings a skill's SKILL.md to the model after the user's
// message that asked for it.
const SkillOpen = "<skill>\n<name>"

// UserShellCommandOpen starts the record of a command the user ran themselves (`!cmd`,
// thread/shellCommand): context for the model, not a message the user typed.
const UserShellCommandOpen = "<user_shell_command>"

// The marker recorded in history when the user interrupts a turn, so the model knows the
// previous turn stopped on purpose.
const (
	TurnAbortedOpen  = "<turn_aborted>"
	TurnAbortedClose = "</turn_aborted>"
)

// TurnAbortedText is the contextual user message recorded after an interrupt.
func TurnAbortedText() string {
	return TurnAbortedOpen + "\nThe user interrupted the previous turn on purpose. Any running tools were stopped and their results may be incomplete. Do not continue the interrupted work unless the user asks for it again.\n" + TurnAbortedClose
}
