package patch

import (
	"fmt"
	"strings"

	"github.com/aymanbagabas/go-udiff/lcs"
)

// The diff texts here follow the layout of Rust's `similar` crate, which Codex uses: hunks
// grouped difflib-style (changes closer than 2×context share a hunk), deletions before
// insertions, GNU range headers, and a "\ No newline at end of file" hint.

type opKind int

const (
	opEqual opKind = iota
	opDelete
	opInsert
)

// op covers old[o1:o2] and new[n1:n2].
type op struct {
	kind           opKind
	o1, o2, n1, n2 int
}

// splitKeepNL splits text into lines that keep their "\n"; a final line without one is kept.
func splitKeepNL(text string) []string {
	if text == "" {
		return nil
	}
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

func diffOps(a, b []string) []op {
	var ops []op
	o, n := 0, 0
	for _, d := range lcs.DiffLines(a, b) {
		if d.Start > o {
			ops = append(ops, op{opEqual, o, d.Start, n, n + d.Start - o})
		}
		n += d.Start - o
		if d.End > d.Start {
			ops = append(ops, op{opDelete, d.Start, d.End, n, n})
		}
		if d.ReplEnd > d.ReplStart {
			ops = append(ops, op{opInsert, d.End, d.End, d.ReplStart, d.ReplEnd})
		}
		o, n = d.End, d.ReplEnd
	}
	if o < len(a) {
		ops = append(ops, op{opEqual, o, len(a), n, len(b)})
	}
	return ops
}

// groupOps splits ops into hunks with at most ctx equal lines around each change.
func groupOps(ops []op, ctx int) [][]op {
	if len(ops) == 0 {
		return nil
	}
	ops = append([]op(nil), ops...)
	if first := &ops[0]; first.kind == opEqual {
		cut := max(first.o1, first.o2-ctx) - first.o1
		first.o1 += cut
		first.n1 += cut
	}
	if last := &ops[len(ops)-1]; last.kind == opEqual {
		keep := min(last.o2-last.o1, ctx)
		last.o2 = last.o1 + keep
		last.n2 = last.n1 + keep
	}
	var groups [][]op
	var cur []op
	for _, o := range ops {
		if o.kind == opEqual && o.o2-o.o1 > 2*ctx {
			cur = append(cur, op{opEqual, o.o1, o.o1 + ctx, o.n1, o.n1 + ctx})
			groups = append(groups, cur)
			cur = []op{{opEqual, o.o2 - ctx, o.o2, o.n2 - ctx, o.n2}}
			continue
		}
		cur = append(cur, o)
	}
	if !(len(cur) == 1 && cur[0].kind == opEqual) {
		groups = append(groups, cur)
	}
	return groups
}

func rangeText(start, end int) string {
	n := end - start
	switch n {
	case 1:
		return fmt.Sprint(start + 1)
	case 0:
		return fmt.Sprintf("%d,0", start)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

// unifiedHunks returns the `@@` hunks turning old into new, without file headers.
func unifiedHunks(old, new string, ctx int) string {
	if old == new {
		return ""
	}
	a, b := splitKeepNL(old), splitKeepNL(new)
	var sb strings.Builder
	for _, g := range groupOps(diffOps(a, b), ctx) {
		f, l := g[0], g[len(g)-1]
		fmt.Fprintf(&sb, "@@ -%s +%s @@\n", rangeText(f.o1, l.o2), rangeText(f.n1, l.n2))
		for _, o := range g {
			switch o.kind {
			case opEqual:
				writeLines(&sb, ' ', a[o.o1:o.o2])
			case opDelete:
				writeLines(&sb, '-', a[o.o1:o.o2])
			case opInsert:
				writeLines(&sb, '+', b[o.n1:o.n2])
			}
		}
	}
	return sb.String()
}

func writeLines(sb *strings.Builder, sign byte, lines []string) {
	for _, l := range lines {
		sb.WriteByte(sign)
		sb.WriteString(l)
		if !strings.HasSuffix(l, "\n") {
			sb.WriteString("\n\\ No newline at end of file\n")
		}
	}
}
