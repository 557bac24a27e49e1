package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/gocodex/gocodex/internal/app"
	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/faceopts"
	"github.com/gocodex/gocodex/internal/snapshot"
)

// RewindOptions are `gocodex rewind`'s arguments.
type RewindOptions struct {
	ThreadID string
	Turns    int
	DryRun   bool
	JSON     bool
}

// RunRewind is `gocodex rewind THREAD_ID --turns N [--dry-run]`: the files the last N turns
// changed are restored from the thread's snapshots and the conversation goes back to before
// them. A refused rewind (past the first turn, another machine's thread, a file edited by
// hand since the turns changed it) says why and changes nothing; the exit status is then 1.
func RunRewind(ctx context.Context, fac *faceopts.Factory, cfg *config.Config, o RewindOptions) int {
	out, errOut := fac.IO.Out, fac.IO.ErrOut
	ro, err := app.OpenRollout(cfg, app.Open{ResumeID: o.ThreadID})
	if err != nil || ro == nil {
		fmt.Fprintf(errOut, "Error: no thread %s: %v\n", o.ThreadID, err)
		return 1
	}
	a, err := fac.Host(app.Options{Config: cfg, Originator: "codex_cli_rs"})
	if err != nil {
		fmt.Fprintf(errOut, "Error: %v\n", err)
		return 1
	}
	plan, err := a.RewindThread(ctx, ro, o.Turns, o.DryRun)
	if err != nil {
		fmt.Fprintf(errOut, "Error: %v\n", err)
		if plan == nil {
			return 1
		}
	}
	if o.JSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		_ = enc.Encode(plan)
	} else {
		printRewind(out, ro.Meta.ID, o, plan)
	}
	if err != nil {
		return 1
	}
	return 0
}

// changeNotes say what a change undoes.
var changeNotes = map[snapshot.ChangeKind]string{
	snapshot.Create: "deleted by the turns",
	snapshot.Delete: "created by the turns",
	snapshot.Modify: "changed by the turns",
	snapshot.Mode:   "mode changed by the turns",
}

func printRewind(out io.Writer, threadID string, o RewindOptions, p *snapshot.Plan) {
	verb := "Rewound"
	if o.DryRun {
		verb = "Rewinding"
	}
	files := fmt.Sprintf("%d file(s)", len(p.Changes))
	if o.DryRun {
		fmt.Fprintf(out, "%s %d turn(s) of thread %s would restore %s in %s:\n", verb, o.Turns, threadID, files, p.Root)
	} else {
		fmt.Fprintf(out, "%s %d turn(s) of thread %s: restored %s in %s:\n", verb, o.Turns, threadID, files, p.Root)
	}
	for _, c := range p.Changes {
		fmt.Fprintf(out, "  %-6s  %s  (%s)\n", c.Kind, c.Path, changeNotes[c.Kind])
	}
	for _, h := range p.HandEdits {
		fmt.Fprintf(out, "  kept    %s  (edited by hand since)\n", h)
	}
	for _, n := range p.Notes {
		fmt.Fprintf(out, "  note: %s\n", n)
	}
	if o.DryRun {
		fmt.Fprintln(out, "Nothing was changed (--dry-run).")
	} else {
		fmt.Fprintln(out, "The conversation now ends before those turns.")
	}
}
