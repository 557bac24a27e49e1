package main

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// pflag takes a backticked word in a flag's usage for the flag's value name, so a usage
// quoting a command line in backticks breaks the help's flag column (`login --help` once
// showed `--with-api-key printenv OPENAI_API_KEY | gocodex login --with-api-key`). No flag of
// any command may have one.
func TestNoFlagUsageHasBackticks(t *testing.T) {
	root := newRootCommand(testFactory(""))
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		check := func(f *pflag.Flag) {
			if strings.Contains(f.Usage, "`") {
				t.Errorf("%s --%s: usage %q has a backtick (pflag shows the quoted words as the value name)", c.CommandPath(), f.Name, f.Usage)
			}
		}
		c.LocalFlags().VisitAll(check)
		c.PersistentFlags().VisitAll(check)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}
