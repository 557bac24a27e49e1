package tui

// unsupportedReasons are Codex commands gocodex knows but does not offer, and why: each
// answers with its reason instead of going to the model or being "unrecognized".
var unsupportedReasons = map[string]string{
	"ide":      "gocodex has no IDE extension to take the current selection and open files from.",
	"approve":  "gocodex has no automatic approval review, so there is no auto-review denial to approve.",
	"import":   "importing setup and chats from Claude Code is not supported by gocodex's terminal UI.",
	"daemon":   "gocodex runs no background server: each gocodex process is its own host.",
	"rc":       "gocodex has no remote control: it connects to no ChatGPT service to be driven from.",
	"pets":     "gocodex has no terminal pets.",
	"plugins":  "gocodex does not install or run Codex plugins.",
	"memories": "Codex's /memories turns on its memories features ([features] memories, memory_tool) and saves the choice on OpenAI's server; gocodex neither writes memories from past threads nor gives the model a memory tool, so there is nothing to turn on.",
	"goal":     "thread goals are kept and pursued by gocodex's app-server (thread/goal/*); the terminal UI does not run the host's goal extension yet.",
}

// unsupported is the command for a Codex command gocodex does not offer.
func unsupported(name, desc string) slashCmd {
	return slashCmd{name: name, desc: desc, whileRunning: true, run: func(m *Model, typed, _ string) {
		m.commandError(typed, "/"+name+" is not supported: "+unsupportedReasons[name])
	}}
}
