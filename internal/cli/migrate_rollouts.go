package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/gocodex/gocodex/internal/host/threads"
)

// MigrateRolloutsOptions are `gocodex migrate-rollouts`' flags (Codex 0.169's).
type MigrateRolloutsOptions struct {
	Apply           bool
	Threads         []string
	MaxMiBPerSecond int64
	JSON            bool
	Verbose         bool
	Now             func() time.Time // nil: time.Now
}

// RunMigrateRollouts is `gocodex migrate-rollouts`: it reports the rollouts under codexHome
// still in the older form and, with --apply, rewrites them in the paginated form Codex 0.169
// writes by default, with Codex's report (text, --verbose, --json) and exit status (1 when
// any rollout failed).
func RunMigrateRollouts(codexHome string, o MigrateRolloutsOptions, out, errOut io.Writer) int {
	now := o.Now
	if now == nil {
		now = time.Now
	}
	if !o.JSON {
		fmt.Fprintln(errOut, "Scanning local rollouts...")
	}
	start := now()
	rep, err := threads.New(codexHome).Migrate(threads.MigrateOptions{Apply: o.Apply, Threads: o.Threads, MaxBytesPerSecond: o.MaxMiBPerSecond << 20})
	if err != nil {
		fmt.Fprintf(errOut, "Error: %v\n", err)
		return 1
	}
	took := now().Sub(start)
	failed := rep.Count(threads.MigrateFailed)
	if o.JSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		_ = enc.Encode(rep)
	} else {
		printMigration(out, errOut, rep, o, took)
	}
	if failed > 0 {
		fmt.Fprintln(errOut, "Error: one or more rollout migrations failed")
		return 1
	}
	return 0
}

func printMigration(out, errOut io.Writer, rep threads.MigrateReport, o MigrateRolloutsOptions, took time.Duration) {
	done, doneWord, verb := rep.Count(threads.MigrateEligible), "eligible", "Checking"
	if o.Apply {
		done, doneWord, verb = rep.Count(threads.MigrateMigrated), "migrated", "Migrating"
	}
	empty, busy := rep.Count(threads.MigrateSkippedEmpty), rep.Count(threads.MigrateSkippedBusy)
	paginated, failed := rep.Count(threads.MigrateAlreadyPaginated), rep.Count(threads.MigrateFailed)
	// Codex draws this line as a live progress bar; here it is its final state.
	fmt.Fprintf(errOut, "%s rollouts  %d/%d (100%%)  •  %d %s  •  %d already paginated  •  %d skipped  •  %d failed  •  %s\n",
		verb, rep.Checked, rep.Checked, done, doneWord, paginated, empty+busy, failed, seconds(took))
	if o.Apply {
		fmt.Fprintf(out, "Migration complete in %s.\n", seconds(took))
	} else {
		fmt.Fprintf(out, "Scan complete in %s.\n", seconds(took))
	}
	fmt.Fprintf(out, "Scanned %d rollout(s): %d %s, %d already paginated, %d skipped (%d empty, %d busy), %d failed.\n",
		len(rep.Outcomes), done, doneWord, paginated, empty+busy, empty, busy, failed)
	if o.Apply {
		fmt.Fprintf(out, "Disk used for thread storage: %s -> %s\n", humanBytes(rep.BytesBefore), humanBytes(rep.BytesAfter))
	} else if done > 0 {
		fmt.Fprintln(out, "Run `gocodex migrate-rollouts --apply` to migrate eligible sessions.")
	}
	if o.Verbose {
		for _, oc := range rep.Outcomes {
			line := strings.ReplaceAll(string(oc.Status), "_", " ")
			fmt.Fprintf(out, "%s\t%s", line, oc.ThreadID)
			if oc.Message != nil {
				fmt.Fprintf(out, "\t%s", *oc.Message)
			}
			fmt.Fprintln(out)
		}
	}
}

// seconds prints a duration as Codex's report does ("0s", "12s", "3m5s").
func seconds(d time.Duration) string {
	s := int64(d / time.Second)
	if s < 60 {
		return fmt.Sprintf("%ds", s)
	}
	return fmt.Sprintf("%dm%ds", s/60, s%60)
}

// humanBytes prints a size as Codex's report does: "0 B", "512 B", "8.6 KB", "1.2 MB".
func humanBytes(n int64) string {
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	f := float64(n)
	for _, unit := range []string{"KB", "MB", "GB"} {
		f /= 1024
		if f < 1024 || unit == "GB" {
			return fmt.Sprintf("%.1f %s", f, unit)
		}
	}
	return ""
}
