package patch

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDifferentialAgainstCodex applies random patches to random trees with both the Codex
// binary (run as apply_patch) and our standalone command, and requires the same exit code,
// stdout, stderr and final tree. It runs when GOCODEX_REFERENCE_CODEX names the Codex
// binary (scripts/test.sh sets it; 200 cases) or GOCODEX_REFERENCE_APPLY_PATCH names a
// symlink called apply_patch to it, e.g. for a longer run:
//
//	GOCODEX_REFERENCE_CODEX=$(../shared/tools/reference-codex) GOCODEX_DIFF_CASES=5000 GOCODEX_DIFF_SEED=7 \
//	  go test -run Differential ./internal/patch
//
// Every parser and matcher rule in this package that is not in Codex's documentation was
// found this way.
func TestDifferentialAgainstCodex(t *testing.T) {
	ref := os.Getenv("GOCODEX_REFERENCE_APPLY_PATCH")
	if bin := os.Getenv("GOCODEX_REFERENCE_CODEX"); ref == "" && bin != "" {
		// Codex acts as apply_patch when invoked under that name.
		ref = filepath.Join(t.TempDir(), "apply_patch")
		if err := os.Symlink(bin, ref); err != nil {
			t.Fatal(err)
		}
	}
	if ref == "" {
		t.Skip("neither GOCODEX_REFERENCE_CODEX nor GOCODEX_REFERENCE_APPLY_PATCH is set")
	}
	cases := 200
	if n, err := strconv.Atoi(os.Getenv("GOCODEX_DIFF_CASES")); err == nil {
		cases = n
	}
	seed := uint64(1)
	if n, err := strconv.ParseUint(os.Getenv("GOCODEX_DIFF_SEED"), 10, 64); err == nil {
		seed = n
	}
	g := &patchGen{rnd: rand.New(rand.NewPCG(seed, 0))}
	mismatches := 0
	for i := range cases {
		files := g.files()
		text := g.patch(files)
		want := runIn(t, files, func(dir string) (int, string, string) {
			cmd := exec.Command(ref, text)
			cmd.Dir = dir
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			return code, stdout.String(), stderr.String()
		})
		got := runIn(t, files, func(dir string) (int, string, string) {
			var stdout, stderr bytes.Buffer
			code := runStandalone(dir, []string{"apply_patch", text}, strings.NewReader(""), &stdout, &stderr)
			return code, stdout.String(), stderr.String()
		})
		if diff := cmp.Diff(want, got); diff != "" {
			mismatches++
			if mismatches <= 5 {
				t.Errorf("case %d: files %q\npatch %q\n(-codex +ours):\n%s", i, files, text, diff)
			}
		}
	}
	t.Logf("%d mismatches in %d cases (seed %d)", mismatches, cases, seed)
}

type runResult struct {
	Code           int
	Stdout, Stderr string
	Tree           map[string]string
}

// runIn lays files out in a fresh directory, runs apply there and snapshots the result, with
// the directory's path in stderr replaced by $DIR.
func runIn(t *testing.T, files map[string]string, apply func(dir string) (int, string, string)) runResult {
	t.Helper()
	// A private parent, so that a patch writing ../x lands apart from other runs.
	dir := filepath.Join(t.TempDir(), "w")
	writeFiles(t, dir, files)
	if err := os.MkdirAll(filepath.Join(dir, "e2"), 0o755); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := apply(dir)
	stderr = strings.ReplaceAll(strings.ReplaceAll(stderr, dir, "$DIR"), filepath.Dir(dir), "$BASE")
	return runResult{code, stdout, stderr, snapshot(t, dir)}
}

// patchGen makes small, often malformed patches over a few files with awkward lines.
type patchGen struct {
	rnd *rand.Rand
}

var genWords = []string{"a", "b", "c", "foo", "bar", "  indented", "tab\there", "trail  ", "", "x\u2014y",
	"\u201cq\u201d", "it\u2019s", "@@", "*** End of File", "+plus", "-minus", " space"}

func (g *patchGen) chance(p float64) bool { return g.rnd.Float64() < p }
func (g *patchGen) word() string          { return genWords[g.rnd.IntN(len(genWords))] }
func (g *patchGen) pick(s []string) string {
	return s[g.rnd.IntN(len(s))]
}

func (g *patchGen) pad(s string) string {
	switch r := g.rnd.Float64(); {
	case r < 0.1:
		return " " + s
	case r < 0.2:
		return s + "  "
	case r < 0.25:
		return "\t" + s + " "
	}
	return s
}

func (g *patchGen) files() map[string]string {
	files := map[string]string{}
	for _, name := range []string{"f1.txt", "f2.txt", "d/f3.txt"} {
		if !g.chance(0.8) {
			continue
		}
		n := g.rnd.IntN(9)
		lines := make([]string, n)
		for i := range lines {
			lines[i] = g.word()
		}
		content := strings.Join(lines, "\n")
		if n > 0 && g.chance(0.8) {
			content += "\n"
		}
		switch r := g.rnd.Float64(); {
		case r < 0.15:
			content = strings.ReplaceAll(content, "\n", "\r\n")
		case r < 0.25:
			var b strings.Builder
			for _, c := range content {
				if c == '\n' {
					b.WriteString(g.pick([]string{"\r\n", "\n", "\r"}))
				} else {
					b.WriteRune(c)
				}
			}
			content = b.String()
		}
		files[name] = content
	}
	return files
}

func (g *patchGen) chunk(files map[string]string, path string, first bool) []string {
	existing := append(strings.Split(files[path], "\n"), g.word())
	var lines []string
	switch r := g.rnd.Float64(); {
	case r < 0.3:
		lines = append(lines, g.pad("@@"))
	case r < 0.5:
		lines = append(lines, g.pad("@@ "+g.pick(existing)))
	case !first && r < 0.55:
		lines = append(lines, "junk")
	}
	for range g.rnd.IntN(5) {
		src := g.pick(existing)
		switch k := g.rnd.Float64(); {
		case k < 0.35:
			lines = append(lines, " "+src)
		case k < 0.65:
			lines = append(lines, "-"+src)
		case k < 0.9:
			lines = append(lines, "+"+g.word())
		case k < 0.95:
			lines = append(lines, "")
		default:
			lines = append(lines, g.word())
		}
	}
	if g.chance(0.15) {
		lines = append(lines, g.pad("*** End of File"))
	}
	return lines
}

func (g *patchGen) patch(files map[string]string) string {
	out := []string{"Begin"}
	if g.chance(0.95) {
		out[0] = g.pad("*** Begin Patch")
	}
	names := []string{"f1.txt", "f2.txt", "d/f3.txt", "new.txt", "d", "e/g.txt", "e2", "./f1.txt", "../x.txt"}
	for range g.rnd.IntN(4) {
		path := g.pick(names)
		switch k := g.rnd.Float64(); {
		case k < 0.25:
			out = append(out, g.pad("*** Add File: "+path))
			for range g.rnd.IntN(4) {
				out = append(out, "+"+g.word())
			}
		case k < 0.4:
			out = append(out, g.pad("*** Delete File: "+path))
		case k < 0.95:
			out = append(out, g.pad("*** Update File: "+path))
			if g.chance(0.2) {
				out = append(out, g.pad("*** Move to: "+g.pick(names)))
			}
			for i := range g.rnd.IntN(4) {
				if g.chance(0.2) {
					out = append(out, "")
				}
				out = append(out, g.chunk(files, path, i == 0)...)
			}
		default:
			out = append(out, g.pad("*** Frob: x"))
		}
	}
	if g.chance(0.95) {
		out = append(out, g.pad("*** End Patch"))
	}
	text := strings.Join(out, "\n")
	switch r := g.rnd.Float64(); {
	case r < 0.05:
		text = fmt.Sprintf("<<'EOF'\n%s\nEOF", text)
	case r < 0.1:
		text = strings.ReplaceAll(text, "\n", "\r\n")
	case r < 0.2:
		text += "\n"
	}
	return text
}
