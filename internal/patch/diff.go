package patch

import (
	"fmt"
	"strings"
)

// The diff texts here are those of Rust's `similar` crate, which Codex uses: the same edit
// script (Myers, then compaction), hunks grouped difflib-style (changes closer than
// 2×context share a hunk), deletions before insertions, GNU range headers computed from the
// operations' positions, and a "\ No newline at end of file" hint.

type opKind int

const (
	opEqual opKind = iota
	opDelete
	opInsert
)

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

// diffOps diffs two line lists the way Codex's diffs are made (the `similar` crate's
// TextDiff): Myers' algorithm in divide-and-conquer form (common prefix and suffix first,
// then the middle snake), then similar's compaction, then runs of deletions and insertions
// merged into replacements. The operations keep similar's positions, quirks included, since
// hunk headers and printed lines are computed from them.
func diffOps(a, b []string) []sop {
	m := &myers{a: a, b: b}
	maxD := (len(a)+len(b)+1)/2 + 1
	m.vf, m.vb = make([]int, 2*maxD+2), make([]int, 2*maxD+2)
	m.off = maxD
	m.conquer(0, len(a), 0, len(b))
	c := &compactor{a: m.a, b: m.b, ops: m.ops}
	c.run()
	return mergeReplace(c.ops)
}

type myers struct {
	a, b   []string
	vf, vb []int
	off    int
	ops    []dop
}

// emit records an operation in similar's form; n counts the lines it covers.
func (m *myers) emit(kind opKind, oi, ni, n int) {
	if n > 0 {
		m.ops = append(m.ops, dop{kind: kind, oi: oi, ni: ni, n: n})
	}
}

func (m *myers) prefix(o1, o2, n1, n2 int) int {
	k := 0
	for o1+k < o2 && n1+k < n2 && m.a[o1+k] == m.b[n1+k] {
		k++
	}
	return k
}

func (m *myers) suffix(o1, o2, n1, n2 int) int {
	k := 0
	for o2-k > o1 && n2-k > n1 && m.a[o2-k-1] == m.b[n2-k-1] {
		k++
	}
	return k
}

func (m *myers) conquer(o1, o2, n1, n2 int) {
	if p := m.prefix(o1, o2, n1, n2); p > 0 {
		m.emit(opEqual, o1, n1, p)
		o1, n1 = o1+p, n1+p
	}
	s := m.suffix(o1, o2, n1, n2)
	o2, n2 = o2-s, n2-s
	switch {
	case o1 == o2 && n1 == n2:
	case n1 == n2:
		m.emit(opDelete, o1, n1, o2-o1)
	case o1 == o2:
		m.emit(opInsert, o1, n1, n2-n1)
	default:
		if x, y, ok := m.middleSnake(o1, o2, n1, n2); ok {
			m.conquer(o1, x, n1, y)
			m.conquer(x, o2, y, n2)
		} else {
			m.emit(opDelete, o1, n1, o2-o1)
			m.emit(opInsert, o1, n1, n2-n1)
		}
	}
	if s > 0 {
		m.emit(opEqual, o2, n2, s)
	}
}

// middleSnake finds where a shortest edit script of a[o1:o2] → b[n1:n2] crosses its middle.
func (m *myers) middleSnake(o1, o2, n1, n2 int) (int, int, bool) {
	n, mm := o2-o1, n2-n1
	delta := n - mm
	odd := delta&1 == 1
	vf, vb, off := m.vf, m.vb, m.off
	vf[off+1], vb[off+1] = 0, 0
	maxD := (n+mm+1)/2 + 1
	for d := 0; d < maxD; d++ {
		for k := d; k >= -d; k -= 2 {
			var x int
			if k == -d || (k != d && vf[off+k-1] < vf[off+k+1]) {
				x = vf[off+k+1]
			} else {
				x = vf[off+k-1] + 1
			}
			y := x - k
			x0, y0 := x, y
			if x < n && y < mm {
				x += m.prefix(o1+x, o2, n1+y, n2)
			}
			vf[off+k] = x
			if odd && abs(k-delta) <= d-1 && vf[off+k]+vb[off-(k-delta)] >= n {
				return x0 + o1, y0 + n1, true
			}
		}
		for k := d; k >= -d; k -= 2 {
			var x int
			if k == -d || (k != d && vb[off+k-1] < vb[off+k+1]) {
				x = vb[off+k+1]
			} else {
				x = vb[off+k-1] + 1
			}
			y := x - k
			if x < n && y < mm {
				adv := m.suffix(o1, o1+n-x, n1, n1+mm-y)
				x += adv
				y += adv
			}
			vb[off+k] = x
			if !odd && abs(k-delta) <= d && vb[off+k]+vf[off-(k-delta)] >= n {
				return n - x + o1, mm - y + n1, true
			}
		}
	}
	return 0, 0, false
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// sop is an operation after similar's Replace step: a replacement deletes oldLen lines at oi
// and inserts newLen lines from ni.
type sop struct {
	kind       sopKind
	oi, oldLen int
	ni, newLen int
}

type sopKind int

const (
	sEqual sopKind = iota
	sDelete
	sInsert
	sReplace
)

func (o sop) oldRange() (int, int) { return o.oi, o.oi + o.oldLen }
func (o sop) newRange() (int, int) { return o.ni, o.ni + o.newLen }

// mergeReplace joins consecutive equal runs, and turns each run of deletions and insertions
// (in any order) into one operation, a replacement when it has both; positions come from the
// run's first deletion and first insertion, as in similar's Replace hook.
func mergeReplace(ops []dop) []sop {
	var out []sop
	for i := 0; i < len(ops); {
		if ops[i].kind == opEqual {
			e := sop{kind: sEqual, oi: ops[i].oi, ni: ops[i].ni, oldLen: ops[i].n, newLen: ops[i].n}
			for i++; i < len(ops) && ops[i].kind == opEqual; i++ {
				e.oldLen += ops[i].n
				e.newLen += ops[i].n
			}
			out = append(out, e)
			continue
		}
		var del, ins *dop
		delLen, insLen := 0, 0
		for ; i < len(ops) && ops[i].kind != opEqual; i++ {
			o := ops[i]
			if o.kind == opDelete {
				if del == nil {
					del = &o
				}
				delLen += o.n
			} else {
				if ins == nil {
					ins = &o
				}
				insLen += o.n
			}
		}
		switch {
		case del != nil && ins != nil:
			out = append(out, sop{kind: sReplace, oi: del.oi, oldLen: delLen, ni: ins.ni, newLen: insLen})
		case del != nil:
			out = append(out, sop{kind: sDelete, oi: del.oi, oldLen: delLen, ni: del.ni})
		default:
			out = append(out, sop{kind: sInsert, oi: ins.oi, ni: ins.ni, newLen: insLen})
		}
	}
	return out
}

// groupOps splits ops into hunks with at most ctx equal lines around each change (similar's
// group_diff_ops, after difflib).
func groupOps(ops []sop, ctx int) [][]sop {
	if len(ops) == 0 {
		return nil
	}
	ops = append([]sop(nil), ops...)
	if first := &ops[0]; first.kind == sEqual {
		cut := max(first.oldLen-ctx, 0)
		first.oi += cut
		first.ni += cut
		first.oldLen -= cut
		first.newLen -= cut
	}
	if last := &ops[len(ops)-1]; last.kind == sEqual {
		cut := max(last.oldLen-ctx, 0)
		last.oldLen -= cut
		last.newLen -= cut
	}
	var groups [][]sop
	var cur []sop
	for _, o := range ops {
		if o.kind == sEqual && o.oldLen > 2*ctx {
			cur = append(cur, sop{kind: sEqual, oi: o.oi, ni: o.ni, oldLen: ctx, newLen: ctx})
			groups = append(groups, cur)
			cut := max(o.oldLen-ctx, 0)
			cur = []sop{{kind: sEqual, oi: o.oi + cut, ni: o.ni + cut, oldLen: o.oldLen - cut, newLen: o.newLen - cut}}
			continue
		}
		cur = append(cur, o)
	}
	if !(len(cur) == 0 || len(cur) == 1 && cur[0].kind == sEqual) {
		groups = append(groups, cur)
	}
	return groups
}

// rangeText is a GNU-style hunk range; an end before the start counts as empty.
func rangeText(start, end int) string {
	n := max(end-start, 0)
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
		fo, _ := f.oldRange()
		fn, _ := f.newRange()
		_, lo := l.oldRange()
		_, ln := l.newRange()
		fmt.Fprintf(&sb, "@@ -%s +%s @@\n", rangeText(fo, lo), rangeText(fn, ln))
		for _, o := range g {
			switch o.kind {
			case sEqual:
				writeLines(&sb, ' ', a[o.oi:o.oi+o.oldLen])
			case sDelete:
				writeLines(&sb, '-', a[o.oi:o.oi+o.oldLen])
			case sInsert:
				writeLines(&sb, '+', b[o.ni:o.ni+o.newLen])
			case sReplace:
				writeLines(&sb, '-', a[o.oi:o.oi+o.oldLen])
				writeLines(&sb, '+', b[o.ni:o.ni+o.newLen])
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
