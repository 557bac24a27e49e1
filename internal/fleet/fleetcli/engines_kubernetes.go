//go:build kubernetes

package fleetcli

import (
	"io"

	"github.com/gocodex/gocodex/internal/fleet"
	"github.com/gocodex/gocodex/internal/fleet/kubernetes"
)

// Linked only with -tags kubernetes (see kubernetesSupport).
func init() {
	kubernetesEngine = &kubernetesSupport{
		validate: func(m map[string]string) error { return kubernetes.FromMap(m).Validate() },
		engine:   func(m map[string]string) fleet.Engine { return kubernetes.New(kubernetes.FromMap(m)) },
		dryRun: func(w io.Writer, m map[string]string, r *fleet.Run, s *fleet.Submission) error {
			manifest, err := kubernetes.Manifest(kubernetes.Job(kubernetes.FromMap(m), r, s))
			if err != nil {
				return err
			}
			_, err = w.Write(manifest)
			return err
		},
	}
}
