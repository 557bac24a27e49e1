package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gocodex/gocodex/internal/faceopts"
)

// completionShells are the shells gocodex writes scripts for (Codex's, less elvish).
var completionShells = []string{"bash", "fish", "powershell", "zsh"}

// newCompletionCommand is `gocodex completion [SHELL]`, as `codex completion`: the shell is a
// positional argument (bash when omitted) and the script goes to stdout. The scripts are
// cobra's: they ask the binary itself (`gocodex __complete …`) for candidates, so they follow
// the commands and flags of the installed version.
func newCompletionCommand(fac *faceopts.Factory) *cobra.Command {
	s := fac.IO
	var ignored faceopts.Flags
	cmd := &cobra.Command{
		Use:       "completion [SHELL]",
		Short:     "Generate shell completion scripts",
		Long:      "Generate shell completion scripts.\n\nSHELL is one of bash (the default), fish, powershell or zsh; elvish, which Codex also offers, is not supported.",
		ValidArgs: completionShells,
		Args:      cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			shell := "bash"
			if len(args) == 1 {
				shell = args[0]
			}
			root := cmd.Root()
			switch shell {
			case "bash":
				fmt.Fprint(s.Out, bashCompWordsShim)
				return root.GenBashCompletionV2(s.Out, true)
			case "zsh":
				return root.GenZshCompletion(s.Out)
			case "fish":
				return root.GenFishCompletion(s.Out, true)
			case "powershell":
				return root.GenPowerShellCompletionWithDesc(s.Out)
			case "elvish":
				fmt.Fprintln(s.ErrOut, "Error: gocodex cannot generate elvish completions; bash, fish, powershell and zsh are supported")
				return exitWith(1)
			}
			fmt.Fprintf(s.ErrOut, "error: invalid value '%s' for '[SHELL]'\n  [possible values: bash, elvish, fish, powershell, zsh]\n", shell)
			return exitWith(usageExitCode)
		},
	}
	// Codex's completion takes the configuration flags too; they change nothing in a script.
	ignored.Register(cmd.Flags(), faceopts.Config|faceopts.Features)
	return cmd
}

// bashCompWordsShim stands in for the bash-completion package's _get_comp_words_by_ref,
// which cobra's bash script calls, where that package is not installed: Codex's script
// works in a plain bash, so ours does too. Bash's dynamic scope makes the assignments land in
// the caller's locals. Words are split as bash splits them (COMP_WORDBREAKS), which is only
// worse than the package's for values containing ':' or '='.
const bashCompWordsShim = `# Without the bash-completion package: a minimal _get_comp_words_by_ref.
if ! declare -F _get_comp_words_by_ref >/dev/null 2>&1; then
_get_comp_words_by_ref()
{
    while [[ $# -gt 0 && $1 == -* ]]; do
        [[ $1 == -n || $1 == -i || $1 == -c ]] && shift
        shift
    done
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD-1]}
    words=("${COMP_WORDS[@]}")
    cword=$COMP_CWORD
}
fi

`
