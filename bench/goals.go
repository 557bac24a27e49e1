package main

import (
	"fmt"
	"math"
	"strings"
)

// goal is one of issue 20's targets, checked against the medians of one suite run.
type goal struct {
	Text string
	// Check returns what was measured, in words, and whether the goal is met; ok is false
	// with an empty measured when the figures are missing.
	Check func(r *Results) (measured string, met, ok bool)
}

func med(r *Results, workload, subject, metric string) float64 {
	return r.summary(workload, subject, metric).Median
}

// within checks a - b <= limit (all in ms).
func within(a, b, limit float64) (string, bool, bool) {
	if math.IsNaN(a) || math.IsNaN(b) {
		return "", false, false
	}
	return fmt.Sprintf("%s ms − %s ms = %s ms", formatValue(a), formatValue(b), formatValue(a-b)), a-b <= limit, true
}

// times checks a <= k·b.
func times(a, b, k float64) (string, bool, bool) {
	if math.IsNaN(a) || math.IsNaN(b) || b == 0 {
		return "", false, false
	}
	return fmt.Sprintf("%s ÷ %s = %s", formatValue(a), formatValue(b), formatRatio(a/b)), a <= k*b, true
}

// under checks a < limit.
func under(a, limit float64, unit string) (string, bool, bool) {
	if math.IsNaN(a) {
		return "", false, false
	}
	return formatValue(a) + " " + unit, a < limit, true
}

var goals = []goal{
	{"`gocodex --version` within 1 ms of the static hello-world", func(r *Results) (string, bool, bool) {
		return within(med(r, "version", Gocodex, "wall_ms"), med(r, "version", Hello, "wall_ms"), 1)
	}},
	{"exec one-message turn at most 1.5× the floor's wall time", func(r *Results) (string, bool, bool) {
		return times(med(r, "exec-turn", Gocodex, "wall_ms"), med(r, "exec-turn", Floor, "wall_ms"), 1.5)
	}},
	{"exec one-message turn: peak RSS under 12 MiB", func(r *Results) (string, bool, bool) {
		return under(med(r, "exec-turn", Gocodex, "rss_mib"), 12, "MiB")
	}},
	{"app-server spawn → initialize within 2 ms of `--version`", func(r *Results) (string, bool, bool) {
		return within(med(r, "appserver-init", Gocodex, "init_ms"), med(r, "version", Gocodex, "wall_ms"), 2)
	}},
	{"app-server spawn → completed turn within 1.5× the exec turn", func(r *Results) (string, bool, bool) {
		return times(med(r, "appserver-turn", Gocodex, "wall_ms"), med(r, "exec-turn", Gocodex, "wall_ms"), 1.5)
	}},
	{"concurrent threads: p99 delta latency under 5 ms (the model's pacing excluded)", func(r *Results) (string, bool, bool) {
		return under(med(r, "threads", Gocodex, "p99_ms"), 5, "ms")
	}},
	{"concurrent threads: RSS under 2 MiB per idle thread", func(r *Results) (string, bool, bool) {
		return under(med(r, "threads", Gocodex, "idle_kib_thread")/1024, 2, "MiB")
	}},
}

// GoalsTable is issue 20's goals against this run's medians.
func GoalsTable(r *Results) string {
	var b strings.Builder
	b.WriteString("| Goal | Measured (medians) | Met |\n|---|---|---|\n")
	for _, g := range goals {
		measured, met, ok := g.Check(r)
		verdict := "no"
		switch {
		case !ok:
			measured, verdict = "not measured", "—"
		case met:
			verdict = "yes"
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", g.Text, measured, verdict)
	}
	return b.String()
}
