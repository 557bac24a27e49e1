package fleetcli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gocodex/gocodex/internal/fleet"
	"github.com/gocodex/gocodex/internal/fleet/slurm"
)

// engineFlags are the engines' own flags of `fleet run`.
type engineFlags struct {
	slurm slurm.Options
}

func (e *engineFlags) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&e.slurm.Partition, "partition", "", "slurm: the partition (sbatch --partition)")
	f.StringVar(&e.slurm.TimeLimit, "time", "", "slurm: each task's time limit (sbatch --time)")
}

// options are the chosen engine's flags as run.json keeps them.
func (e *engineFlags) options(engine string) (map[string]string, error) {
	switch engine {
	case "slurm":
		return e.slurm.Map(), nil
	case "":
		return nil, fmt.Errorf("--engine is required: slurm or kubernetes")
	}
	return nil, fmt.Errorf("--engine %q: the engines are slurm and kubernetes", engine)
}

// newEngine builds an engine from its name and its options in run.json.
func newEngine(name string, opts map[string]string) (fleet.Engine, error) {
	switch name {
	case "slurm":
		return slurm.New(slurm.FromMap(opts)), nil
	}
	return nil, fmt.Errorf("unknown engine %q: the engines are slurm and kubernetes", name)
}

// printDryRun writes what a submission would send, without creating the run.
func printDryRun(w io.Writer, eng fleet.Engine, out string, r *fleet.Run) error {
	r.SetDir(out)
	all := make([]int, len(r.Tasks))
	for i := range all {
		all[i] = i
	}
	s := &fleet.Submission{Seq: 1, Tasks: all}
	switch e := eng.(type) {
	case *slurm.Engine:
		fmt.Fprintf(w, "# sbatch %s <<'EOF'\n%sEOF\n", strings.Join(e.SbatchArgs(r, s), " "), slurm.Script(r, s))
		return nil
	}
	return fmt.Errorf("engine %s has no dry run", eng.Name())
}
