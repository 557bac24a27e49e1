package tools

import "github.com/gocodex/gocodex/tool"

// NameRequestUserInput is the tool the model calls to put questions to the user.
const NameRequestUserInput = "request_user_input"

// RequestUserInputSpec is the request_user_input spec Codex 0.169 sends (in every mode; the
// handler refuses the call where no question may be asked).
func RequestUserInputSpec() tool.Spec {
	option := object(map[string]*schema{
		"label":       str("User-facing label (1-5 words)."),
		"description": str("One short sentence explaining impact/tradeoff if selected."),
	}, "label", "description")
	question := object(map[string]*schema{
		"id":       str("Stable identifier for mapping answers (snake_case)."),
		"header":   str("Short header label shown in the UI (12 or fewer chars)."),
		"question": str("Single-sentence prompt shown to the user."),
		"options": array(option, "Provide 2-3 mutually exclusive choices. Put the recommended option first "+
			"and suffix its label with \"(Recommended)\". Do not include an \"Other\" option in this list; "+
			"the client will add a free-form \"Other\" option automatically."),
	}, "id", "header", "question", "options")
	return function(NameRequestUserInput,
		"Request user input for one to three short questions and wait for the response. "+
			"This tool is only available in Plan mode.",
		object(map[string]*schema{
			"questions": array(question, "Questions to show the user. Prefer 1 and do not exceed 3"),
		}, "questions"))
}
