package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sampleResults is a small suite run: gocodex and the reference on two workloads and the
// baselines where they are measured.
func sampleResults() *Results {
	r := &Results{Date: "2026-11-27T20:00:00Z", Mode: "full", Sizes: fullSizes, Reference: "codex-cli 0.169.0",
		Machine: Machine{CPU: "Test CPU", Cores: 2, Kernel: "6.1.0", Go: "go1.26.8"}}
	for _, v := range []float64{10, 12, 11, 13, 9} {
		r.add("exec-turn", Gocodex, Metrics{"wall_ms": v, "rss_mib": 8})
	}
	for _, v := range []float64{200, 220, 210, 230, 190} {
		r.add("exec-turn", Reference, Metrics{"wall_ms": v, "rss_mib": 140})
	}
	for _, v := range []float64{5, 5, 5, 5, 5} {
		r.add("exec-turn", Floor, Metrics{"wall_ms": v, "rss_mib": 4})
	}
	r.add("appserver-turn", Gocodex, Metrics{"wall_ms": 15})
	r.add("version", Hello, Metrics{"wall_ms": 2})
	r.add("appserver-init", Gocodex, Metrics{"init_ms": 6})
	return r
}

func TestTable(t *testing.T) {
	tab := Table(sampleResults())
	for _, want := range []string{
		"| Workload | Metric | gocodex | reference | gocodex ÷ reference | baseline | gocodex ÷ baseline |",
		// median (min–max), ratio to the reference, ratio to the floor
		"| exec one-message turn | wall time (ms) | 11.0 (9.00–13.0) | 210 (190–230) | 0.052× | floor 5.00 | 2.20× |",
		"|  | peak RSS (MiB) | 8.00 | 140 | 0.057× | floor 4.00 | 2.00× |",
		// the floor measured in exec-turn is the baseline of the app-server turn too
		"| app-server spawn → completed turn | wall time (ms) | 15.0 | — | — | floor 5.00 | 3.00× |",
		// start-up divides by the hello-world
		"| app-server spawn → initialize | spawn → initialize reply (ms) | 6.00 | — | — | hello 2.00 | 3.00× |",
	} {
		if !strings.Contains(tab, want+"\n") {
			t.Errorf("table lacks the row\n%s\nin\n%s", want, tab)
		}
	}
	if strings.Contains(tab, "thread/list") {
		t.Error("a workload that did not run has rows")
	}
}

func TestResultsMarkdownDescribesTheMachineAndFailures(t *testing.T) {
	r := sampleResults()
	r.Errors = []string{"list/reference run 1: thread/list listed none\nmore detail"}
	md := resultsMarkdown(r)
	for _, want := range []string{
		"Measured 2026-11-27 on Test CPU (2 cores), Linux 6.1.0, go1.26.8; full mode, median (min–max) of 5 alternating runs; reference: codex-cli 0.169.0.",
		"![Start-up and one-shot turns (ms, log scale)](startup-and-turns.png)",
		"- `list/reference run 1: thread/list listed none`",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("results.md lacks %q:\n%s", want, md)
		}
	}
}

// The README's section is short: the headline medians that were measured, the goals met,
// and where the whole table and the method are.
func TestReadmeSectionIsShort(t *testing.T) {
	sec := readmeSection(sampleResults(), "bench/results")
	for _, want := range []string{
		"Measured 2026-11-27 on Test CPU (2 cores)",
		"| exec one-message turn, wall time (ms) | 11.0 | 210 | 0.052× |",
		"| exec one-message turn, peak RSS (MiB) | 8.00 | 140 | 0.057× |",
		"| app-server spawn → initialize reply (ms) | 6.00 | — | — |",
		"[`bench/results/results.md`](bench/results/results.md)",
		"[`bench/README.md`](bench/README.md)",
	} {
		if !strings.Contains(sec, want) {
			t.Errorf("section lacks %q:\n%s", want, sec)
		}
	}
	if strings.Contains(sec, "thread/list") || strings.Contains(sec, "delta latency") {
		t.Errorf("a workload that did not run has a row:\n%s", sec)
	}
	if n := strings.Count(sec, "\n"); n > 15 {
		t.Errorf("the section has %d lines; the README keeps it short:\n%s", n, sec)
	}
}

func TestReplaceSection(t *testing.T) {
	doc := "# gocodex\n\n## Performance\n\n" + readmeBegin + "\nold table\n" + readmeEnd + "\n\n## Next\n"
	got, err := ReplaceSection(doc, "new table\n")
	if err != nil {
		t.Fatal(err)
	}
	want := "# gocodex\n\n## Performance\n\n" + readmeBegin + "\nnew table\n" + readmeEnd + "\n\n## Next\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	again, err := ReplaceSection(got, "new table")
	if err != nil || again != got {
		t.Errorf("replacing with the same section changed the document (err %v):\n%s", err, again)
	}
	for name, bad := range map[string]string{
		"no markers":     "# gocodex\n",
		"no end marker":  readmeBegin + "\n",
		"end before":     readmeEnd + "\n" + readmeBegin + "\n",
		"begin twice":    readmeBegin + "\n" + readmeBegin + "\n" + readmeEnd + "\n",
		"only end":       readmeEnd + "\n",
		"end twice":      readmeBegin + "\n" + readmeEnd + "\n" + readmeEnd + "\n",
		"begin mangled":  strings.TrimSuffix(readmeBegin, " -->") + "\n" + readmeEnd + "\n",
		"markers spaced": strings.ReplaceAll(readmeBegin, " ", "  ") + "\n" + readmeEnd + "\n",
	} {
		if _, err := ReplaceSection(bad, "x"); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestRewriteReadme(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "README.md")
	if err := os.WriteFile(path, []byte("intro\n"+readmeBegin+"\n"+readmeEnd+"\nend\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	section := readmeSection(sampleResults(), "bench/results")
	if err := rewriteReadme(path, section); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	doc := string(b)
	for _, want := range []string{"intro\n" + readmeBegin + "\nMeasured 2026-11-27", "](bench/results/results.md)",
		"| exec one-message turn, wall time (ms) |", readmeEnd + "\nend\n"} {
		if !strings.Contains(doc, want) {
			t.Errorf("README lacks %q:\n%s", want, doc)
		}
	}
	// A README without markers is left alone and the error names the lines to add.
	bare := filepath.Join(dir, "BARE.md")
	os.WriteFile(bare, []byte("no markers\n"), 0o644)
	err := rewriteReadme(bare, section)
	if err == nil || !strings.Contains(err.Error(), readmeBegin) {
		t.Errorf("error %v does not name the markers", err)
	}
	if b, _ := os.ReadFile(bare); string(b) != "no markers\n" {
		t.Errorf("README without markers was changed: %q", b)
	}
	if _, err := os.Stat(bare + ".bench-tmp"); err == nil {
		t.Error("a temporary file was left behind")
	}
}

func TestFormatting(t *testing.T) {
	for in, want := range map[float64]string{1234.5: "1234", 123.4: "123", 12.34: "12.3", 1.234: "1.23"} {
		if got := formatValue(in); got != want {
			t.Errorf("formatValue(%g) = %q, want %q", in, got, want)
		}
	}
	if got := formatSummary(Summarize([]float64{1, 2, 3})); got != "2.00 (1.00–3.00)" {
		t.Errorf("formatSummary = %q", got)
	}
	for in, want := range map[float64]string{17.4: "17×", 2.345: "2.35×", 0.25: "0.25×", 0.0523: "0.052×", 0.0045: "0.0045×"} {
		if got := formatRatio(in); got != want {
			t.Errorf("formatRatio(%g) = %q, want %q", in, got, want)
		}
	}
}

func TestChartsSkipWhatDidNotRun(t *testing.T) {
	dir := t.TempDir()
	if err := writeCharts(&Results{}, dir); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("charts drawn without data: %v", entries)
	}
	if err := writeCharts(sampleResults(), dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "startup-and-turns.png")); err != nil {
		t.Error(err)
	}
}

func TestGoalsTable(t *testing.T) {
	r := sampleResults()
	r.add("version", Gocodex, Metrics{"wall_ms": 2.5})
	got := GoalsTable(r)
	for _, want := range []string{
		"| `gocodex --version` within 1 ms of the static hello-world | 2.50 ms − 2.00 ms = 0.50 ms | yes |",
		"| exec one-message turn at most 1.5× the floor's wall time | 11.0 ÷ 5.00 = 2.20× | no |",
		"| exec one-message turn: peak RSS under 12 MiB | 8.00 MiB | yes |",
		"| app-server spawn → initialize within 2 ms of `--version` | 6.00 ms − 2.50 ms = 3.50 ms | no |",
		"| concurrent threads: p99 delta latency under 5 ms (the model's pacing excluded) | not measured | — |",
	} {
		if !strings.Contains(got, want+"\n") {
			t.Errorf("goals table lacks\n%s\nin\n%s", want, got)
		}
	}
}

// The README one folder up links the charts through bench/results.
func TestChartsFromParentReadme(t *testing.T) {
	got, err := chartsFrom("../README.md", "results")
	if err != nil || got != "bench/results" {
		t.Errorf("chartsFrom = %q, %v; want bench/results", got, err)
	}
}
