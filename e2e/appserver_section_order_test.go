package e2e

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Threads keep the order thread/section/move gives them in a section, as in Codex 0.169:
// moved in last, or before a thread of the section; thread/list with sortKey
// section_position lists them in that order (either sortDirection) and needs a section.
// want was recorded from Codex 0.169 (threads A, B, C made in that order).
func TestAppServerSectionOrderLikeCodex(t *testing.T) {
	want := []string{
		"by position: ABC", "by position asc: ABC", "by creation: CBA",
		"by position after C before A: CAB", "by position after A before B: CAB", "by position, page of 1: C (more)",
		"move before a thread not in the section: -32600 before thread <id> is not in section <id>",
		"by recency: CBA",
		"by position without a section: -32600 section-position sorting requires a section filter",
		"by position in no section: -32600 section-position sorting requires a section filter",
	}
	if diff := cmp.Diff(want, sectionOrder(t, binary)); diff != "" {
		t.Errorf("(-codex 0.169 +ours):\n%s", diff)
	}
	if ref := os.Getenv("GOCODEX_REFERENCE_CODEX"); ref != "" {
		if diff := cmp.Diff(sectionOrder(t, ref), sectionOrder(t, binary)); diff != "" {
			t.Errorf("(-live codex +ours):\n%s", diff)
		}
	}
}

func sectionOrder(t *testing.T, bin string) []string {
	e := appServerEnv(t, "never")
	e.Model.Enqueue(answer("a"), answer("b"), answer("c"))
	c, stop := e.startAppServerOf(bin)
	defer stop()
	names := map[string]string{}
	var ids []string
	for _, n := range []string{"A", "B", "C"} {
		id := c.startThread(map[string]any{"cwd": e.Workdir})
		c.turn(id, "hello "+n)
		c.until("turn/completed")
		names[id] = n
		ids = append(ids, id)
	}
	var sec struct {
		Section struct{ ID string } `json:"section"`
	}
	c.mustCall("threadSection/create", map[string]any{"name": "S"}, &sec)
	var out []string
	list := func(label string, p map[string]any) {
		res, er := c.call("thread/list", p)
		if er != nil {
			out = append(out, label+": "+errorClass(er.Error.Code, er.Error.Message))
			return
		}
		var r struct {
			Data []struct {
				ID string `json:"id"`
			} `json:"data"`
			Next *string `json:"nextCursor"`
		}
		json.Unmarshal(res, &r)
		s := ""
		for _, d := range r.Data {
			s += names[d.ID]
		}
		if r.Next != nil {
			s += " (more)"
		}
		out = append(out, label+": "+s)
	}
	inSection := func(p map[string]any) map[string]any {
		p["sectionId"] = sec.Section.ID
		return p
	}
	move := func(label string, id, before string) {
		p := map[string]any{"threadId": id, "sectionId": sec.Section.ID}
		if before != "" {
			p["beforeThreadId"] = before
		}
		if _, er := c.call("thread/section/move", p); er != nil {
			out = append(out, label+": "+errorClass(er.Error.Code, er.Error.Message))
		}
	}
	for _, id := range ids {
		move("move", id, "")
	}
	list("by position", inSection(map[string]any{"sortKey": "section_position"}))
	list("by position asc", inSection(map[string]any{"sortKey": "section_position", "sortDirection": "asc"}))
	list("by creation", inSection(map[string]any{}))
	move("move", ids[2], ids[0])
	list("by position after C before A", inSection(map[string]any{"sortKey": "section_position"}))
	move("move", ids[0], ids[1])
	list("by position after A before B", inSection(map[string]any{"sortKey": "section_position"}))
	list("by position, page of 1", inSection(map[string]any{"sortKey": "section_position", "limit": 1}))
	move("move before a thread not in the section", ids[1], zeroID)
	list("by recency", inSection(map[string]any{"sortKey": "recency_at"}))
	list("by position without a section", map[string]any{"sortKey": "section_position"})
	list("by position in no section", map[string]any{"sortKey": "section_position", "sectionId": nil})
	return out
}
