package main

import (
	"github.com/spf13/cobra"

	"github.com/gocodex/gocodex/internal/fleet/fleetcli"
)

// newFleetCommand is `gocodex fleet` (internal/fleet/fleetcli): many tasks on Slurm or
// Kubernetes.
func newFleetCommand(s streams) *cobra.Command {
	return fleetcli.NewCommand(fleetcli.Streams{Out: s.Out, ErrOut: s.ErrOut, ExitWith: exitWith})
}
