package execcli

import (
	"fmt"

	"github.com/gocodex/gocodex/internal/app"
	"github.com/gocodex/gocodex/internal/commands"
	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/iostreams"
)

// expandCommand runs a custom command given as the prompt (`gocodex exec "/name args"`):
// the prompt file's text with the arguments in place. Any other prompt, an unknown /word
// included, goes to the model as typed.
func expandCommand(cfg *config.Config, prompt string, s *iostreams.IOStreams) (string, error) {
	if _, _, ok := commands.Invocation(prompt); !ok {
		return prompt, nil
	}
	set, warnings := app.CustomCommands(cfg)
	for _, w := range warnings {
		fmt.Fprintf(s.ErrOut, "warning: %s\n", w)
	}
	expanded, ok, err := set.Expand(prompt)
	if err != nil {
		return "", err
	}
	if !ok {
		return prompt, nil
	}
	return expanded, nil
}
