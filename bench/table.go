package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// metricInfo describes a metric key: its label, its unit and the baseline metric it is divided
// by in the "÷ floor" column ("" when a baseline means nothing for it).
type metricInfo struct {
	Key, Label, Unit, FloorMetric string
}

// metricOrder is the order metrics appear in within a workload.
var metricOrder = []metricInfo{
	{"wall_ms", "wall time", "ms", "wall_ms"},
	{"init_ms", "spawn → initialize reply", "ms", "wall_ms"},
	{"list_ms", "request → reply", "ms", ""},
	{"resume_ms", "request → reply", "ms", ""},
	{"turn_ms", "median turn", "ms", ""},
	{"p50_ms", "delta latency p50", "ms", ""},
	{"p99_ms", "delta latency p99", "ms", ""},
	{"deltas_per_s", "throughput", "deltas/s", ""},
	{"cpu_ms", "CPU time", "ms", "cpu_ms"},
	{"rss_mib", "peak RSS", "MiB", "rss_mib"},
	{"rss_anon_mib", "RSS after initialize: anonymous", "MiB", ""},
	{"rss_file_mib", "RSS after initialize: file-backed (the binary)", "MiB", ""},
	{"idle_kib_thread", "RSS per idle thread", "KiB", ""},
	{"rss10_mib", "RSS after 10 turns", "MiB", ""},
	{"rssN_mib", "RSS after the last turn", "MiB", ""},
	{"growth", "RSS growth (last ÷ 10th)", "×", ""},
	{"size_mib", "size", "MiB", "size_mib"},
}

// baselineWorkload is where a baseline program is measured: the floor makes the one-message
// turn, the hello-world starts; other workloads divide by those figures.
var baselineWorkload = map[string]string{Floor: "exec-turn", Hello: "version"}

// baselineSummary is the baseline figure metric mi of workload w is divided by (N == 0 when
// there is none): the baseline's own figure in w if it ran there, else its figure in the
// workload it is measured in.
func baselineSummary(r *Results, w Workload, mi metricInfo) Summary {
	if w.Baseline == "" || mi.FloorMetric == "" {
		return Summary{}
	}
	if s := r.summary(w.Key, w.Baseline, mi.FloorMetric); s.N > 0 {
		return s
	}
	return r.summary(baselineWorkload[w.Baseline], w.Baseline, mi.FloorMetric)
}

// workloadTitle names a workload with the sizes it ran at.
func workloadTitle(w Workload, s Sizes) string {
	switch w.Key {
	case "threads":
		return fmt.Sprintf("%d concurrent threads in one app-server (%d deltas each, %s apart)", s.Threads, s.Deltas, s.Gap)
	case "session":
		return fmt.Sprintf("%d-turn session in one app-server", s.Turns)
	case "list":
		return fmt.Sprintf("`thread/list` over %d rollouts (first page of 25)", s.Rollouts)
	case "resume":
		return fmt.Sprintf("`thread/resume` of a %d-line rollout (its one turn repeated)", s.Items)
	}
	return w.Title
}

// formatValue prints a figure with about three significant digits.
func formatValue(v float64) string {
	switch a := math.Abs(v); {
	case math.IsNaN(v):
		return "—"
	case a >= 1000:
		return fmt.Sprintf("%.0f", v)
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.2f", v)
	}
}

// formatSummary is "median (min–max)", or the median alone when every sample is the same.
func formatSummary(s Summary) string {
	if s.N == 0 {
		return "—"
	}
	if s.N == 1 || s.Min == s.Max {
		return formatValue(s.Median)
	}
	return fmt.Sprintf("%s (%s–%s)", formatValue(s.Median), formatValue(s.Min), formatValue(s.Max))
}

func formatRatio(r float64) string {
	if math.IsNaN(r) || math.IsInf(r, 0) {
		return "—"
	}
	switch {
	case r >= 10:
		return fmt.Sprintf("%.0f×", r)
	case r >= 0.1:
		return fmt.Sprintf("%.2f×", r)
	default: // two significant digits, so a twentieth does not print as 0.05 and a 200th as 0.00
		return strconv.FormatFloat(r, 'g', 2, 64) + "×"
	}
}

// Table is the comparison table in markdown: one row per workload and metric.
func Table(r *Results) string {
	var b strings.Builder
	b.WriteString("| Workload | Metric | gocodex | reference | gocodex ÷ reference | baseline | gocodex ÷ baseline |\n")
	b.WriteString("|---|---|---|---|---|---|---|\n")
	for _, w := range workloads() {
		subj := r.Samples[w.Key]
		if subj == nil {
			continue
		}
		title := workloadTitle(w, r.Sizes)
		for _, mi := range metricOrder {
			g, ref := r.summary(w.Key, Gocodex, mi.Key), r.summary(w.Key, Reference, mi.Key)
			if g.N == 0 && ref.N == 0 {
				continue
			}
			base, baseCell := Summary{N: 0, Median: math.NaN()}, "—"
			if b := baselineSummary(r, w, mi); b.N > 0 {
				base = b
				{
					baseCell = w.Baseline + " " + formatValue(base.Median)
				}
			}
			fmt.Fprintf(&b, "| %s | %s (%s) | %s | %s | %s | %s | %s |\n", title, mi.Label, mi.Unit,
				formatSummary(g), formatSummary(ref), formatRatio(Ratio(g.Median, ref.Median)),
				baseCell, formatRatio(Ratio(g.Median, base.Median)))
			title = ""
		}
	}
	return b.String()
}

// machineLine describes the run in one sentence.
func machineLine(r *Results) string {
	m := r.Machine
	return fmt.Sprintf("Measured %s on %s (%d cores), Linux %s, %s; %s mode, median (min–max) of %d alternating runs; reference: %s.",
		strings.TrimSuffix(strings.SplitN(r.Date, "T", 2)[0], "Z"), m.CPU, m.Cores, m.Kernel, m.Go, r.Mode, r.Sizes.Runs, r.Reference)
}

const tableNotes = `The baseline is the floor program for turns (a static Go program that sends the
same request body to the same loopback server and reads the SSE reply: nothing can take less)
and a static Go hello-world for start-up and size. Wall, CPU and peak RSS come from wait4's
rusage (peak RSS counts the pages of the binary a program touched, not only what it allocated:
see the anonymous and file-backed rows); app-server figures run from spawn to the reply named.
Delta latency is from the model server's write to the client's read, so the model's own pacing
is not in it.`

// resultsMarkdown is results.md: the machine, the table, the notes, the charts and any errors.
func resultsMarkdown(r *Results) string {
	var b strings.Builder
	b.WriteString("# gocodex benchmark results\n\n")
	b.WriteString(machineLine(r) + "\n\n")
	b.WriteString(Table(r) + "\n")
	b.WriteString(tableNotes + "\n\n")
	b.WriteString("## Goals (issue 20)\n\n" + GoalsTable(r) + "\n")
	for _, c := range charts {
		fmt.Fprintf(&b, "![%s](%s)\n", c.Title, c.File)
	}
	if len(r.Errors) > 0 {
		b.WriteString("\n## Runs that failed\n\n")
		for _, e := range r.Errors {
			b.WriteString("- `" + strings.ReplaceAll(firstLines(e, 1), "`", "'") + "`\n")
		}
	}
	return b.String()
}
