package rollout

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gocodex/gocodex/protocol"
)

// benchHome writes n rollouts spread over days folders, each with a realistic head (a 5 KiB
// session_meta like ours, a permissions message, the environment context, then the first
// user message) and a short tail. Files are written directly: fsyncing 10,000 files through
// the recorder would take minutes and measure nothing of the listing.
func benchHome(b *testing.B, n, days int) string {
	b.Helper()
	home := b.TempDir()
	base := time.Date(2026, 3, 30, 12, 0, 0, 0, time.Local)
	meta := testMeta()
	meta.BaseInstructions.Text = strings.Repeat("You are a coding agent. ", 210) // ~5 KiB, like ours
	perUnit := time.Duration(days) * 24 * time.Hour / time.Duration(n)
	for i := 0; i < n; i++ {
		at := base.Add(-time.Duration(i) * perUnit)
		m := meta
		m.ID = v7At(at, i)
		m.Timestamp = FormatTimestamp(at)
		mj, _ := protocol.Marshal(m)
		ts := FormatTimestamp(at)
		buf := appendLine(nil, ts, 0, TypeSessionMeta, mj)
		for j, it := range []protocol.ResponseItem{
			protocol.MessageItem{Role: "developer", Content: []protocol.ContentItem{{Type: protocol.ContentInputText, Text: strings.Repeat("<permissions instructions> ", 60)}}},
			userMsg("<environment_context>\n  <cwd>/work/project</cwd>\n</environment_context>"),
			userMsg(fmt.Sprintf("fix bug %d", i)),
			assistantMsg("done"),
		} {
			ij, _ := protocol.Marshal(it)
			buf = appendLine(buf, ts, int64(j+1), TypeResponseItem, ij)
		}
		path := NewPath(home, at, m.ID)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(path, buf, 0o600); err != nil {
			b.Fatal(err)
		}
	}
	return home
}

// BenchmarkListFirstPage: the first page of 25 threads with 10,000 rollouts on disk
// (target: under 100 ms).
func BenchmarkListFirstPage(b *testing.B) {
	home := benchHome(b, 10_000, 30)
	for b.Loop() {
		p, err := List(home, ListOptions{PageSize: 25})
		if err != nil || len(p.Threads) != 25 {
			b.Fatalf("%d threads, %v", len(p.Threads), err)
		}
	}
}

// BenchmarkListFirstPageOneFolder: the same with all 10,000 in one day's folder.
func BenchmarkListFirstPageOneFolder(b *testing.B) {
	home := benchHome(b, 10_000, 0)
	for b.Loop() {
		p, err := List(home, ListOptions{PageSize: 25})
		if err != nil || len(p.Threads) != 25 {
			b.Fatalf("%d threads, %v", len(p.Threads), err)
		}
	}
}

// BenchmarkFind: locating a thread by id among 10,000.
func BenchmarkFind(b *testing.B) {
	home := benchHome(b, 10_000, 30)
	p, _ := List(home, ListOptions{PageSize: 25, Cursor: ""})
	id := p.Threads[24].ID
	for b.Loop() {
		if _, _, err := Find(home, id); err != nil {
			b.Fatal(err)
		}
	}
}

// writeLongRollout records a thread of n response items (turns of a user message, a tool
// call, its output and an answer) with their events.
func writeLongRollout(b *testing.B, n int) string {
	b.Helper()
	home := b.TempDir()
	r, err := Create(home, Options{Meta: testMeta(), Now: tick()})
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < n/4; i++ {
		call := fmt.Sprint("call_", i)
		r.RecordEvent(protocol.Event{Msg: protocol.TurnStartedEvent{TurnID: call}})
		r.RecordItems([]protocol.ResponseItem{userMsg(fmt.Sprintf("step %d: look at the files", i))})
		r.RecordItems([]protocol.ResponseItem{protocol.FunctionCallItem{Name: "shell_command", Arguments: `{"command":"ls -la"}`, CallID: call}})
		r.RecordItems([]protocol.ResponseItem{protocol.FunctionCallOutputItem{CallID: call, Output: protocol.FunctionCallOutputPayload{Content: strings.Repeat("file.go\n", 20)}}})
		r.RecordItems([]protocol.ResponseItem{assistantMsg("There are twenty files here, all Go sources.")})
		r.RecordEvent(protocol.Event{Msg: protocol.AgentMessageEvent{Message: "There are twenty files here, all Go sources."}})
		r.RecordEvent(protocol.Event{Msg: protocol.TurnCompleteEvent{TurnID: call}})
	}
	if err := r.Close(); err != nil {
		b.Fatal(err)
	}
	return r.Path()
}

// BenchmarkResume10000Items: read and rebuild a thread of 10,000 items (target: under 200 ms).
func BenchmarkResume10000Items(b *testing.B) {
	path := writeLongRollout(b, 10_000)
	for b.Loop() {
		r, err := ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		if res := r.Reconstruct(); len(res.History) != 10_000 {
			b.Fatalf("%d items", len(res.History))
		}
	}
}

// BenchmarkRecordItem: the recorder's cost per item, one write per call as the engine makes
// it (target: under 20 µs).
func BenchmarkRecordItem(b *testing.B) {
	r, err := Create(b.TempDir(), Options{Meta: testMeta()})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	items := []protocol.ResponseItem{assistantMsg("There are twenty files here, all Go sources; the tests are in the _test.go ones.")}
	for b.Loop() {
		if err := r.RecordItems(items); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRecordEvent: the same for a persisted event.
func BenchmarkRecordEvent(b *testing.B) {
	r, err := Create(b.TempDir(), Options{Meta: testMeta()})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	ev := protocol.Event{ID: "t", Msg: protocol.AgentMessageEvent{Message: "There are twenty files here, all Go sources."}}
	for b.Loop() {
		if err := r.RecordEvent(ev); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLatest: exec resume --last among 10,000 rollouts (stats every file).
func BenchmarkLatest(b *testing.B) {
	home := benchHome(b, 10_000, 30)
	for b.Loop() {
		if _, err := Latest(home, ListOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkListFilteredRare: a cwd filter that no thread passes visits every thread; after
// the first walk (which reads every head and fills the folders' caches) the heads come from
// the caches.
func BenchmarkListFilteredRare(b *testing.B) {
	home := benchHome(b, 10_000, 30)
	start := time.Now()
	if _, err := List(home, ListOptions{PageSize: 25, Cwd: "/nowhere"}); err != nil {
		b.Fatal(err)
	}
	cold := time.Since(start)
	for b.Loop() {
		p, err := List(home, ListOptions{PageSize: 25, Cwd: "/nowhere"})
		if err != nil || len(p.Threads) != 0 {
			b.Fatalf("%d threads, %v", len(p.Threads), err)
		}
	}
	b.ReportMetric(float64(cold.Milliseconds()), "cold-ms")
}
