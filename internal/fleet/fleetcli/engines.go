package fleetcli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gocodex/gocodex/internal/fleet"
	"github.com/gocodex/gocodex/internal/fleet/kubernetes"
	"github.com/gocodex/gocodex/internal/fleet/slurm"
)

// engineFlags are the engines' own flags of `fleet run`.
type engineFlags struct {
	slurm slurm.Options
	kube  kubernetes.Options
}

func (e *engineFlags) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&e.slurm.Partition, "partition", "", "slurm: the partition (sbatch --partition)")
	f.StringVar(&e.slurm.TimeLimit, "time", "", "slurm: each task's time limit (sbatch --time)")
	f.StringVar(&e.kube.Namespace, "namespace", "", "kubernetes: the namespace (default: the kubeconfig's)")
	f.StringVar(&e.kube.Image, "image", "", "kubernetes: the image the pods run (holding gocodex and git)")
	f.StringVar(&e.kube.Claim, "claim", "", "kubernetes: the PersistentVolumeClaim holding --out, mounted at the same path")
	f.StringVar(&e.kube.Secret, "secret", "", "kubernetes: the Secret whose keys become the tasks' environment (OPENAI_API_KEY...)")
	f.IntVar(&e.kube.BackoffPerIndex, "backoff-per-index", 0, "kubernetes: retries of a failed index (backoffLimitPerIndex)")
	f.StringVar(&e.kube.Kubeconfig, "kubeconfig", "", "kubernetes: the kubeconfig file (default: KUBECONFIG, then ~/.kube/config)")
	f.StringVar(&e.kube.Context, "context", "", "kubernetes: the kubeconfig context (default: the current one)")
}

// options are the chosen engine's flags as run.json keeps them.
func (e *engineFlags) options(engine string) (map[string]string, error) {
	switch engine {
	case "slurm":
		return e.slurm.Map(), nil
	case "kubernetes":
		return e.kube.Map(), e.kube.Validate()
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
	case "kubernetes":
		return kubernetes.New(kubernetes.FromMap(opts)), nil
	}
	return nil, fmt.Errorf("unknown engine %q: the engines are slurm and kubernetes", name)
}

// printDryRun writes what the first submission would send, without creating the run or
// reaching the engine.
func printDryRun(w io.Writer, eng fleet.Engine, out string, r *fleet.Run) error {
	r.SetDir(out)
	all := make([]int, len(r.Tasks))
	for i := range all {
		all[i] = i
	}
	s := &fleet.Submission{Seq: 1, Tasks: all}
	switch eng.(type) {
	case *slurm.Engine:
		e := slurm.New(slurm.FromMap(r.EngineOptions))
		_, err := fmt.Fprintf(w, "# sbatch %s <<'EOF'\n%sEOF\n", strings.Join(e.SbatchArgs(r, s), " "), slurm.Script(r, s))
		return err
	case *kubernetes.Engine:
		manifest, err := kubernetes.Manifest(kubernetes.Job(kubernetes.FromMap(r.EngineOptions), r, s))
		if err != nil {
			return err
		}
		_, err = w.Write(manifest)
		return err
	}
	return fmt.Errorf("engine %s has no dry run", eng.Name())
}
