// Command bench measures gocodex and the reference Codex (0.169, installed from npm into a
// cache) side by side on the same workloads against a scripted model server on loopback,
// alternating between them run by run, and writes a table, charts and raw figures to
// results/. Every figure is also shown as a ratio to the reference and to a floor program.
//
//	cd bench && go run .            # full suite (< 15 min on 2 cores)
//	cd bench && go run . -quick     # tiny sizes, one smoke pass
//	cd bench && go run . -readme ../README.md -regen   # rewrite the README section only
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// options are the command's flags.
type options struct {
	quick     bool
	runs      int
	out       string
	repo      string
	noRef     bool
	noInstall bool
	readme    string
	regen     bool
	only      string
}

func run(args []string) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	var o options
	fs.BoolVar(&o.quick, "quick", false, "tiny sizes and 2 runs: a smoke pass (CI), not figures to quote")
	fs.IntVar(&o.runs, "runs", 0, "alternating runs per workload (default 5, or 2 with -quick)")
	fs.StringVar(&o.out, "out", "results", "folder for results.md, results.json and the charts")
	fs.StringVar(&o.repo, "repo", "..", "root of the gocodex checkout to build")
	fs.BoolVar(&o.noRef, "no-reference", false, "measure gocodex and the baselines only")
	fs.BoolVar(&o.noInstall, "no-install", false, "use the reference only if it is already installed")
	fs.StringVar(&o.readme, "readme", "", "rewrite the performance section of this README (between the bench markers)")
	fs.BoolVar(&o.regen, "regen", false, "measure nothing: write the table, charts and README section from OUT/results.json")
	fs.StringVar(&o.only, "only", "", "comma-separated workload keys to run (default all)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	var res *Results
	if o.regen {
		r, err := loadResults(filepath.Join(o.out, "results.json"))
		if err != nil {
			return err
		}
		res = r
	} else {
		r, err := measure(o)
		if err != nil {
			return err
		}
		res = r
		if err := res.save(filepath.Join(o.out, "results.json")); err != nil {
			return err
		}
	}
	return publish(res, o.out, o.readme)
}

// publish writes results.md, the charts and, when asked, the README section.
func publish(res *Results, out, readme string) error {
	if err := os.WriteFile(filepath.Join(out, "results.md"), []byte(resultsMarkdown(res)), 0o644); err != nil {
		return err
	}
	if err := writeCharts(res, out); err != nil {
		return err
	}
	if readme != "" {
		rel, err := chartsFrom(readme, out)
		if err != nil {
			return err
		}
		if err := rewriteReadme(readme, readmeSection(res, filepath.ToSlash(rel))); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "bench: wrote %s\n", filepath.Join(out, "results.md"))
	return nil
}

// measure runs the suite.
func measure(o options) (*Results, error) {
	sizes := fullSizes
	mode := "full"
	if o.quick {
		sizes, mode = quickSizes, "quick"
	}
	if o.runs > 0 {
		sizes.Runs = o.runs
	}
	var selected []Workload
	for _, w := range workloads() {
		if o.only == "" || containsKey(o.only, w.Key) {
			selected = append(selected, w)
		}
	}
	if len(selected) == 0 {
		return nil, fmt.Errorf("-only %q names no workload", o.only)
	}
	logf := func(format string, args ...any) { fmt.Fprintf(os.Stderr, "bench: "+format+"\n", args...) }
	res := &Results{Date: time.Now().UTC().Format(time.RFC3339), Mode: mode, Sizes: sizes, Machine: describeMachine()}

	tmp, err := os.MkdirTemp("", "gocodex-bench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	repo, err := filepath.Abs(o.repo)
	if err != nil {
		return nil, err
	}
	logf("building gocodex and the baselines")
	bins, err := buildPrograms(repo, tmp)
	if err != nil {
		return nil, err
	}
	subjects := []Subject{{Gocodex, bins[Gocodex]}}
	if o.noRef {
		res.Reference = "not measured (-no-reference)"
	} else if ref, why := findReference(!o.noInstall); ref == "" {
		res.Reference = "not measured: " + why
		logf("%s; measuring gocodex only", res.Reference)
	} else {
		v, _ := exec.Command(ref, "--version").Output()
		res.Reference = strings.TrimSpace(string(v))
		subjects = append(subjects, Subject{Reference, ref})
	}
	subjects = append(subjects, Subject{Floor, bins[Floor]}, Subject{Hello, bins[Hello]})

	model, err := tk.NewStandaloneServer("127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	defer model.Close()
	model.SetDefault(answer("Hello world"))
	stamp, err := newStampServer(sizes.Deltas, sizes.Gap)
	if err != nil {
		return nil, err
	}
	defer stamp.Close()
	b := &Bench{Sizes: sizes, Model: model, Stamp: stamp, TempDir: tmp, Log: logf}

	// One sandbox per workload and subject, prepared once.
	boxes := map[string]Sandbox{}
	for _, w := range selected {
		for _, s := range subjects {
			sb, err := newSandbox(filepath.Join(tmp, w.Key, s.Name), model.URL())
			sb.Launcher = bins[Launcher]
			if err != nil {
				return nil, err
			}
			boxes[w.Key+"/"+s.Name] = sb
			if w.Prepare != nil {
				logf("preparing %s for %s", w.Key, s.Name)
				if err := w.Prepare(b, s, sb); err != nil {
					res.Errors = append(res.Errors, fmt.Sprintf("%s/%s prepare: %v", w.Key, s.Name, err))
				}
			}
		}
	}
	for _, w := range selected {
		if !w.WarmUp {
			continue
		}
		for _, s := range subjects {
			if _, err := w.Run(b, s, boxes[w.Key+"/"+s.Name]); err != nil && !errors.Is(err, errSkip) {
				logf("warm-up %s/%s: %v", w.Key, s.Name, firstLines(err.Error(), 4))
			}
		}
	}
	started := time.Now()
	for run := 0; run < sizes.Runs; run++ {
		logf("run %d of %d (%s so far)", run+1, sizes.Runs, time.Since(started).Round(time.Second))
		for _, w := range selected {
			// Alternate: the order of the subjects flips each run, so neither always runs
			// on a machine the other has just warmed up.
			order := append([]Subject(nil), subjects...)
			if run%2 == 1 {
				for i, j := 0, len(order)-1; i < j; i, j = i+1, j-1 {
					order[i], order[j] = order[j], order[i]
				}
			}
			for _, s := range order {
				m, err := w.Run(b, s, boxes[w.Key+"/"+s.Name])
				if errors.Is(err, errSkip) {
					continue
				}
				if err != nil {
					msg := fmt.Sprintf("%s/%s run %d: %v", w.Key, s.Name, run+1, err)
					logf("%s", msg)
					res.Errors = append(res.Errors, firstLines(msg, 6))
					continue
				}
				res.add(w.Key, s.Name, m)
			}
		}
	}
	logf("measured in %s", time.Since(started).Round(time.Second))
	return res, nil
}

func newSandbox(dir, modelURL string) (Sandbox, error) {
	sb := Sandbox{Home: filepath.Join(dir, "home"), CodexHome: filepath.Join(dir, "codex-home"), Work: filepath.Join(dir, "work")}
	for _, d := range []string{sb.Home, sb.Work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return sb, err
		}
	}
	_, err := tk.WriteConfigFile(sb.CodexHome, modelURL, tk.ConfigOptions{})
	return sb, err
}

func containsKey(list, key string) bool {
	for _, k := range strings.Split(list, ",") {
		if strings.TrimSpace(k) == key {
			return true
		}
	}
	return false
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}

// chartsFrom is the results folder as the README at readme links it (both made absolute
// first: filepath.Rel of two relative paths with ".." cannot know the folders' names).
func chartsFrom(readme, out string) (string, error) {
	dir, err := filepath.Abs(filepath.Dir(readme))
	if err != nil {
		return "", err
	}
	abs, err := filepath.Abs(out)
	if err != nil {
		return "", err
	}
	return filepath.Rel(dir, abs)
}
