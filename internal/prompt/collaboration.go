package prompt

import (
	_ "embed"
	"strings"
)

var (
	//go:embed texts/mode_plan.md
	planModeText string
	//go:embed texts/mode_default.md
	defaultModeText string
)

// CollaborationMode is the developer message that puts the model in a collaboration mode
// ("plan" or "default"); custom, when not empty, replaces the mode's own instructions.
func CollaborationMode(mode, custom string) string {
	text := custom
	if text == "" {
		text = defaultModeText
		if mode == "plan" {
			text = planModeText
		}
	}
	return "<collaboration_mode>" + strings.TrimRight(text, "\n") + "</collaboration_mode>"
}
