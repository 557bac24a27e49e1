package fleetcli

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gocodex/gocodex/internal/fleet"
	"github.com/gocodex/gocodex/internal/fleet/slurm"
)

// engineFlags are the engines' own flags of `fleet run`.
type engineFlags struct {
	slurm slurm.Options
	// kube are the Kubernetes engine's, kept as run.json keeps them (kubernetes.Options.Map):
	// this file must not import the engine (see kubernetesEngine).
	kube    map[string]*string
	backoff int
}

func (e *engineFlags) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&e.slurm.Partition, "partition", "", "slurm: the partition (sbatch --partition)")
	f.StringVar(&e.slurm.TimeLimit, "time", "", "slurm: each task's time limit (sbatch --time)")
	e.kube = map[string]*string{}
	for _, fl := range []struct{ name, key, usage string }{
		{"namespace", "namespace", "kubernetes: the namespace (default: the kubeconfig's)"},
		{"image", "image", "kubernetes: the image the pods run (holding gocodex and git)"},
		{"claim", "claim", "kubernetes: the PersistentVolumeClaim holding --out, mounted at the same path"},
		{"secret", "secret", "kubernetes: the Secret whose keys become the tasks' environment (OPENAI_API_KEY...)"},
		{"kubeconfig", "kubeconfig", "kubernetes: the kubeconfig file (default: KUBECONFIG, then ~/.kube/config)"},
		{"context", "context", "kubernetes: the kubeconfig context (default: the current one)"},
	} {
		e.kube[fl.key] = f.String(fl.name, "", fl.usage)
	}
	f.IntVar(&e.backoff, "backoff-per-index", 0, "kubernetes: retries of a failed index (backoffLimitPerIndex)")
}

// options are the chosen engine's flags as run.json keeps them; out is the run's --out.
func (e *engineFlags) options(engine, out string) (map[string]string, error) {
	switch engine {
	case "slurm":
		return e.slurm.Map(), nil
	case "kubernetes":
		m := map[string]string{}
		for k, v := range e.kube {
			if *v != "" {
				m[k] = *v
			}
		}
		m["backoff_per_index"] = strconv.Itoa(e.backoff)
		if strings.HasPrefix(out, "s3://") {
			m["bucket"] = "true"
			if endpoint, _ := fleet.S3EndpointSetting(); endpoint != "" {
				m["s3_endpoint"] = endpoint
			}
		}
		if kubernetesEngine == nil {
			return nil, errNoKubernetes
		}
		return m, kubernetesEngine.validate(m)
	case "":
		return nil, fmt.Errorf("--engine is required: slurm or kubernetes")
	}
	return nil, fmt.Errorf("--engine %q: the engines are slurm and kubernetes", engine)
}

// kubernetesSupport is the Kubernetes engine, linked only into a binary built with
// `-tags kubernetes` (engines_kubernetes.go): it adds 7.9 MB to the 30.7 MB binary, past the
// 32 MiB budget (TestBinarySize), and start-up time to every command, `gocodex exec` too.
// Measured: the API types alone (the manifest) add 3.9 MB, client-go's rest and clientcmd
// alone 3.9 MB. The elements a Job runs need none of it. See docs/guide.md.
type kubernetesSupport struct {
	validate func(opts map[string]string) error
	engine   func(opts map[string]string) fleet.Engine
	dryRun   func(w io.Writer, opts map[string]string, r *fleet.Run, s *fleet.Submission) error
}

// kubernetesEngine is nil in a binary built without the engine.
var kubernetesEngine *kubernetesSupport

var errNoKubernetes = fmt.Errorf("this gocodex was built without the Kubernetes engine (it adds ~8 MB and start-up time to every command): " +
	"build one with `go build -tags kubernetes ./cmd/gocodex` to submit; the pods can run any gocodex")

// newEngine builds an engine from its name and its options in run.json.
func newEngine(name string, opts map[string]string) (fleet.Engine, error) {
	switch name {
	case "slurm":
		return slurm.New(slurm.FromMap(opts)), nil
	case "kubernetes":
		if kubernetesEngine == nil {
			return nil, errNoKubernetes
		}
		return kubernetesEngine.engine(opts), nil
	}
	return nil, fmt.Errorf("unknown engine %q: the engines are slurm and kubernetes", name)
}

// printDryRun writes what the first submission would send, without creating the run or
// reaching the engine.
func printDryRun(w io.Writer, r *fleet.Run, out string) error {
	if err := r.SetDir(out); err != nil {
		return err
	}
	all := make([]int, len(r.Tasks))
	for i := range all {
		all[i] = i
	}
	s := &fleet.Submission{Seq: 1, Tasks: all}
	switch r.Engine {
	case "slurm":
		e := slurm.New(slurm.FromMap(r.EngineOptions))
		_, err := fmt.Fprintf(w, "# sbatch %s <<'EOF'\n%sEOF\n", strings.Join(e.SbatchArgs(r, s), " "), slurm.Script(r, s))
		return err
	case "kubernetes":
		if kubernetesEngine == nil {
			return errNoKubernetes
		}
		return kubernetesEngine.dryRun(w, r.EngineOptions, r, s)
	}
	return fmt.Errorf("engine %s has no dry run", r.Engine)
}
