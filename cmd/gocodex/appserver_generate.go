package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gocodex/gocodex/internal/appserver"
	"github.com/gocodex/gocodex/internal/appserver/schemagen"
	"github.com/gocodex/gocodex/internal/faceopts"
	"github.com/gocodex/gocodex/internal/iostreams"
)

// newGenerateCommands are `app-server generate-json-schema` and `generate-ts`: the protocol
// gocodex speaks, as Codex writes it, with the client methods narrowed to those served.
func newGenerateCommands(fac *faceopts.Factory) []*cobra.Command {
	return []*cobra.Command{
		newGenerateCommand(fac, "generate-json-schema", "[experimental] Generate JSON Schema for the app server protocol", false),
		newGenerateCommand(fac, "generate-ts", "[experimental] Generate TypeScript bindings for the app server protocol", true),
	}
}

func newGenerateCommand(fac *faceopts.Factory, use, short string, ts bool) *cobra.Command {
	s := fac.IO
	var (
		flags        faceopts.Flags
		out          string
		experimental bool
		prettier     string
	)
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return fmt.Errorf("the following required arguments were not provided: --out <DIR>")
			}
			served := map[string]bool{}
			for _, m := range appserver.New(appserver.Options{}).Methods() {
				served[m] = true
			}
			files, err := schemagen.Files(schemagen.Kind{TypeScript: ts, Experimental: experimental},
				func(m string) bool { return served[m] })
			if err != nil {
				return err
			}
			if err := schemagen.Write(out, files); err != nil {
				return fmt.Errorf("writing %s: %w", out, err)
			}
			if ts && prettier != "" {
				return runPrettier(prettier, out, files, s)
			}
			return nil
		},
	}
	f := cmd.Flags()
	// -c/--enable/--disable are accepted as Codex accepts them; the protocol's shape does not
	// depend on configuration, so they change nothing in the output (as in Codex).
	flags.Register(f, faceopts.Config|faceopts.Features)
	f.StringVarP(&out, "out", "o", "", "output directory where the files will be written")
	f.BoolVar(&experimental, "experimental", false, "include experimental methods and fields in the generated output")
	if ts {
		f.StringVarP(&prettier, "prettier", "p", "", "optional path to the Prettier executable to format generated files")
	}
	return cmd
}

// runPrettier formats the generated TypeScript files in place, as Codex does with --prettier.
func runPrettier(bin, dir string, files []schemagen.File, s *iostreams.IOStreams) error {
	args := []string{"--write", "--log-level", "warn"}
	for _, f := range files {
		if strings.HasSuffix(f.Path, ".ts") {
			args = append(args, filepath.Join(dir, filepath.FromSlash(f.Path)))
		}
	}
	c := exec.Command(bin, args...)
	c.Stdout, c.Stderr = s.ErrOut, s.ErrOut
	c.Env = os.Environ()
	if err := c.Run(); err != nil {
		return fmt.Errorf("prettier (%s): %w", bin, err)
	}
	return nil
}
