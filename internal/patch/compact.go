package patch

import "slices"

// This file follows the "compaction" pass of the `similar` crate version Codex is built
// with: after Myers, each run of insertions is slid up and down past equal lines that repeat
// it, and runs of the same kind that meet are merged. Deletions only change places with
// insertions and merge with deletions (in that version they never slide past equal lines),
// and a swap keeps the positions the two operations recorded. The positions feed hunk
// headers, so the quirks are kept: 200 random diffs from the Codex binary matched exactly.

// dop is a diff operation in similar's form: kind, start in old and new, and a length that
// counts old lines for a deletion, new lines for an insertion, and both for equal lines.
type dop struct {
	kind   opKind
	oi, ni int
	n      int
}

func (d dop) oldEnd() int {
	if d.kind == opInsert {
		return d.oi
	}
	return d.oi + d.n
}

func (d dop) newEnd() int {
	if d.kind == opDelete {
		return d.ni
	}
	return d.ni + d.n
}

func (d *dop) adjust(offset, grow int) {
	d.oi += offset
	d.ni += offset
	d.n += grow
}

type compactor struct {
	a, b []string
	ops  []dop
}

// suffixLen counts equal trailing elements of x[xs:xe] and y[ys:ye].
func suffixLen(x []string, xs, xe int, y []string, ys, ye int) int {
	k := 0
	for xe-k > xs && ye-k > ys && x[xe-k-1] == y[ye-k-1] {
		k++
	}
	return k
}

// prefixLen counts equal leading elements of x[xs:xe] and y[ys:ye].
func prefixLen(x []string, xs, xe int, y []string, ys, ye int) int {
	k := 0
	for xs+k < xe && ys+k < ye && x[xs+k] == y[ys+k] {
		k++
	}
	return k
}

// run compacts all deletions, then all insertions.
func (c *compactor) run() {
	for _, kind := range []opKind{opDelete, opInsert} {
		for p := 0; p < len(c.ops); p++ {
			if c.ops[p].kind == kind {
				p = c.shiftUp(p)
				p = c.shiftDown(p)
			}
		}
	}
}

func (c *compactor) shiftUp(p int) int {
	for p > 0 {
		this, prev := c.ops[p], c.ops[p-1]
		switch {
		case prev.kind == opEqual:
			k := 0
			if this.kind == opInsert {
				k = suffixLen(c.a, prev.oi, prev.oldEnd(), c.b, this.ni, this.newEnd())
			}
			switch {
			case k > 0:
				if p+1 < len(c.ops) && c.ops[p+1].kind == opEqual {
					c.ops[p+1].adjust(-k, k)
				} else {
					eq := dop{kind: opEqual, oi: prev.oldEnd() - k, ni: this.newEnd() - k, n: k}
					c.ops = slices.Insert(c.ops, p+1, eq)
				}
				c.ops[p].adjust(-k, 0)
				c.ops[p-1].adjust(0, -k)
				if c.ops[p-1].n == 0 {
					c.ops = slices.Delete(c.ops, p-1, p)
					p--
				}
			case prev.n == 0:
				c.ops = slices.Delete(c.ops, p-1, p)
				p--
			default:
				return p
			}
		case prev.kind != this.kind:
			c.ops[p-1], c.ops[p] = this, prev
			p--
		default:
			c.ops[p-1].adjust(0, this.n)
			c.ops = slices.Delete(c.ops, p, p+1)
			p--
		}
	}
	return p
}

func (c *compactor) shiftDown(p int) int {
	for p+1 < len(c.ops) {
		this, next := c.ops[p], c.ops[p+1]
		switch {
		case next.kind == opEqual:
			k := 0
			if this.kind == opInsert {
				k = prefixLen(c.a, next.oi, next.oldEnd(), c.b, this.ni, this.newEnd())
			}
			switch {
			case k > 0:
				if p > 0 && c.ops[p-1].kind == opEqual {
					c.ops[p-1].adjust(0, k)
				} else {
					c.ops = slices.Insert(c.ops, p, dop{kind: opEqual, oi: next.oi, ni: this.ni, n: k})
					p++
				}
				c.ops[p].adjust(k, 0)
				c.ops[p+1].adjust(k, -k)
				if c.ops[p+1].n == 0 {
					c.ops = slices.Delete(c.ops, p+1, p+2)
				}
			case next.n == 0:
				c.ops = slices.Delete(c.ops, p+1, p+2)
			default:
				return p
			}
		case next.kind != this.kind:
			c.ops[p], c.ops[p+1] = next, this
			p++
		default:
			c.ops[p].adjust(0, next.n)
			c.ops = slices.Delete(c.ops, p+1, p+2)
		}
	}
	return p
}
