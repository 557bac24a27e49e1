package main

import (
	"github.com/spf13/cobra"

	"github.com/gocodex/gocodex/internal/faceopts"
	"github.com/gocodex/gocodex/internal/fleet/fleetcli"
)

// newFleetCommand is `gocodex fleet` (internal/fleet/fleetcli): many tasks on Slurm or
// Kubernetes.
func newFleetCommand(fac *faceopts.Factory) *cobra.Command {
	return fleetcli.NewCommand(fac.IO, exitWith)
}
