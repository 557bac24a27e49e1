package rollout

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"github.com/gocodex/gocodex/protocol"
)

// v7At is a UUIDv7 whose timestamp is t, with n in the random bits to keep ids unique.
func v7At(t time.Time, n int) string {
	var u uuid.UUID
	ms := uint64(t.UnixMilli())
	binary.BigEndian.PutUint64(u[0:8], ms<<16)
	binary.BigEndian.PutUint64(u[8:16], uint64(n))
	u[6] = 0x70 | (u[6] & 0x0f)
	u[8] = 0x80 | (u[8] & 0x3f)
	return u.String()
}

// writeThread records a one-turn thread created at t.
func writeThread(tb testing.TB, home string, t time.Time, id, cwd, provider, prompt string) string {
	tb.Helper()
	meta := testMeta()
	meta.ID, meta.Cwd, meta.ModelProvider = id, cwd, provider
	r, err := Create(home, Options{Meta: meta, Now: func() time.Time { return t }})
	if err != nil {
		tb.Fatal(err)
	}
	r.RecordEvent(protocol.Event{Msg: protocol.TurnStartedEvent{TurnID: "t"}})
	r.RecordItems([]protocol.ResponseItem{userMsg("<environment_context>\n</environment_context>"), userMsg(prompt), assistantMsg("ok")})
	r.RecordEvent(protocol.Event{Msg: protocol.TurnCompleteEvent{TurnID: "t"}})
	if err := r.Close(); err != nil {
		tb.Fatal(err)
	}
	return r.Path()
}

type fixture struct {
	home string
	ids  []string // newest first
}

// newFixture writes n threads one hour apart going back from a fixed instant, alternating
// cwd (/a, /b) and provider (openai, mock).
func newFixture(tb testing.TB, n int) fixture {
	home := tb.TempDir()
	base := time.Date(2026, 3, 2, 12, 0, 0, 0, time.Local)
	f := fixture{home: home}
	for i := 0; i < n; i++ {
		at := base.Add(-time.Duration(i) * time.Hour)
		id := v7At(at, i)
		cwd, prov := "/a", "openai"
		if i%2 == 1 {
			cwd, prov = "/b", "mock"
		}
		writeThread(tb, home, at, id, cwd, prov, fmt.Sprintf("prompt %d", i))
		f.ids = append(f.ids, id)
	}
	return f
}

func ids(p Page) []string {
	var out []string
	for _, s := range p.Threads {
		out = append(out, s.ID)
	}
	return out
}

func TestListPagesNewestFirst(t *testing.T) {
	f := newFixture(t, 60) // spans three days of folders
	var got []string
	cursor := ""
	for pages := 0; ; pages++ {
		p, err := List(f.home, ListOptions{PageSize: 25, Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ids(p)...)
		if p.NextCursor == "" {
			break
		}
		if pages > 5 {
			t.Fatal("cursor does not advance")
		}
		cursor = p.NextCursor
	}
	if diff := cmp.Diff(f.ids, got); diff != "" {
		t.Errorf("listing (-want +got):\n%s", diff)
	}
	p, _ := List(f.home, ListOptions{PageSize: 1})
	s := p.Threads[0]
	if s.Preview != "prompt 0" || s.Cwd != "/a" || s.ModelProvider != "openai" || s.Git == nil || s.Git.Branch != "main" || s.Source != "exec" {
		t.Errorf("summary = %+v", s)
	}
	if s.CreatedAt.IsZero() || s.UpdatedAt.IsZero() {
		t.Errorf("timestamps missing: %+v", s)
	}
	if _, err := List(f.home, ListOptions{Cursor: "!!"}); err == nil {
		t.Error("a bad cursor was accepted")
	}
}

func TestListFilters(t *testing.T) {
	f := newFixture(t, 10)
	p, err := List(f.home, ListOptions{Cwd: "/b/"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{f.ids[1], f.ids[3], f.ids[5], f.ids[7], f.ids[9]}, ids(p)); diff != "" {
		t.Errorf("cwd filter:\n%s", diff)
	}
	p, _ = List(f.home, ListOptions{Providers: []string{"openai"}, PageSize: 2})
	if diff := cmp.Diff([]string{f.ids[0], f.ids[2]}, ids(p)); diff != "" || p.NextCursor == "" {
		t.Errorf("provider filter: %s cursor %q", diff, p.NextCursor)
	}
	p, _ = List(f.home, ListOptions{Providers: []string{"openai"}, PageSize: 2, Cursor: p.NextCursor})
	if diff := cmp.Diff([]string{f.ids[4], f.ids[6]}, ids(p)); diff != "" {
		t.Errorf("provider filter, page 2:\n%s", diff)
	}
}

func TestListSkipsThreadsWithoutUserMessage(t *testing.T) {
	home := t.TempDir()
	at := time.Date(2026, 3, 2, 12, 0, 0, 0, time.Local)
	r, _ := Create(home, Options{Meta: testMeta(), Now: func() time.Time { return at }})
	r.RecordEvent(protocol.Event{Msg: protocol.TurnStartedEvent{TurnID: "t"}})
	r.Close()
	p, err := List(home, ListOptions{})
	if err != nil || len(p.Threads) != 0 {
		t.Errorf("listed %v, %v", ids(p), err)
	}
}

func TestFindArchiveUnarchive(t *testing.T) {
	f := newFixture(t, 5)
	id := f.ids[2]
	path, archived, err := Find(f.home, id)
	if err != nil || archived {
		t.Fatalf("find: %s %v %v", path, archived, err)
	}
	apath, err := Archive(f.home, id)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(apath) != filepath.Join(f.home, ArchivedDir) || filepath.Base(apath) != filepath.Base(path) {
		t.Errorf("archived to %s", apath)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the original is still there: %v", err)
	}
	p, _ := List(f.home, ListOptions{})
	if cmp.Equal(ids(p), f.ids) || len(p.Threads) != 4 {
		t.Errorf("archived thread still listed: %v", ids(p))
	}
	p, _ = List(f.home, ListOptions{Archived: true})
	if !cmp.Equal(ids(p), []string{id}) || !p.Threads[0].Archived {
		t.Errorf("archived listing = %+v", p.Threads)
	}
	if got, archived, err := Find(f.home, id); err != nil || !archived || got != apath {
		t.Errorf("find archived: %s %v %v", got, archived, err)
	}
	back, err := Unarchive(f.home, id)
	if err != nil || back != path {
		t.Fatalf("unarchive: %s %v (want %s)", back, err, path)
	}
	p, _ = List(f.home, ListOptions{})
	if diff := cmp.Diff(f.ids, ids(p)); diff != "" {
		t.Errorf("after unarchive:\n%s", diff)
	}
	if _, _, err := Find(f.home, "01a20268-0000-7000-8000-000000000000"); !errors.Is(err, ErrNotFound) {
		t.Errorf("find unknown: %v", err)
	}
	for _, bad := range []string{"../../etc", "*", "0[1]", ""} {
		if _, _, err := Find(f.home, bad); !errors.Is(err, ErrNotFound) {
			t.Errorf("find %q: %v", bad, err)
		}
	}
	// Ids that are not UUIDv7 are found by walking.
	other := "not-a-uuid-thread"
	want := writeThread(t, f.home, time.Date(2025, 1, 1, 0, 0, 0, 0, time.Local), other, "/a", "openai", "x")
	if got, _, err := Find(f.home, other); err != nil || got != want {
		t.Errorf("find by walk: %s %v", got, err)
	}
}

func TestForkWholeAndTruncated(t *testing.T) {
	home := t.TempDir()
	at := time.Date(2026, 3, 2, 12, 0, 0, 0, time.Local)
	r, _ := Create(home, Options{Meta: testMeta(), Now: tick()})
	for i, p := range []string{"one", "two", "three"} {
		turn := fmt.Sprint("turn-", i)
		r.RecordEvent(protocol.Event{Msg: protocol.TurnStartedEvent{TurnID: turn}})
		if i == 0 {
			r.RecordItems([]protocol.ResponseItem{userMsg("<environment_context>\n</environment_context>")})
		}
		r.RecordItems([]protocol.ResponseItem{userMsg(p), assistantMsg(p + "!")})
		r.RecordEvent(protocol.Event{Msg: protocol.TurnCompleteEvent{TurnID: turn}})
	}
	r.Close()
	src, err := ReadFile(r.Path())
	if err != nil {
		t.Fatal(err)
	}
	srcHist := summarize(src.Reconstruct().History)
	for _, tc := range []struct {
		drop int
		want []string
	}{
		{0, srcHist},
		{1, srcHist[:5]},
		// Every turn dropped: the initial context goes too; the engine injects it afresh.
		{3, nil},
	} {
		t.Run(fmt.Sprint(tc.drop), func(t *testing.T) {
			newID := v7At(at, 1000+tc.drop)
			path, err := Fork(home, src, ForkOptions{NewID: newID, DropLastTurns: tc.drop, Now: func() time.Time { return at }})
			if err != nil {
				t.Fatal(err)
			}
			fr, err := ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if fr.Meta.ID != newID || fr.Meta.ForkedFromID != testID || fr.Meta.Cwd != src.Meta.Cwd {
				t.Errorf("meta = %+v", fr.Meta)
			}
			if diff := cmp.Diff(tc.want, summarize(fr.Reconstruct().History)); diff != "" {
				t.Errorf("history (-want +got):\n%s", diff)
			}
			last := fr.Lines[len(fr.Lines)-1]
			if tc.drop > 0 && tc.drop < 3 && last.Type != TypeEventMsg {
				t.Errorf("fork ends with a %s line, want the previous turn's end", last.Type)
			}
			if found, _, err := Find(home, newID); err != nil || found != path {
				t.Errorf("fork not found by id: %v", err)
			}
		})
	}
}

func TestCollectGitInfo(t *testing.T) {
	dir := t.TempDir()
	git := filepath.Join(dir, ".git")
	os.MkdirAll(filepath.Join(git, "refs", "heads"), 0o755)
	os.WriteFile(filepath.Join(git, "HEAD"), []byte("ref: refs/heads/feature/x\n"), 0o644)
	os.WriteFile(filepath.Join(git, "packed-refs"), []byte("# pack-refs\nabc123 refs/heads/feature/x\n"), 0o644)
	os.WriteFile(filepath.Join(git, "config"), []byte("[core]\n\tbare = false\n[remote \"origin\"]\n\turl = git@example.com:o/r.git\n\tfetch = x\n"), 0o644)
	sub := filepath.Join(dir, "a", "b")
	os.MkdirAll(sub, 0o755)
	got := CollectGitInfo(sub)
	want := &GitInfo{CommitHash: "abc123", Branch: "feature/x", RepositoryURL: "git@example.com:o/r.git"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Error(diff)
	}
	if CollectGitInfo(t.TempDir()) != nil && os.Getenv("HOME") == "" {
		t.Error("git info outside a repository")
	}
}

// TestForkAfterRollback: turns already rolled back do not count when a fork drops turns.
func TestForkAfterRollback(t *testing.T) {
	home := t.TempDir()
	r, _ := Create(home, Options{Meta: testMeta(), Now: tick()})
	for _, p := range []string{"one", "two", "three"} {
		r.RecordItems([]protocol.ResponseItem{userMsg(p), assistantMsg(p + "!")})
	}
	r.RecordEvent(protocol.Event{Msg: protocol.ThreadRolledBackEvent{NumTurns: 1}})
	r.Close()
	src, _ := ReadFile(r.Path())
	path, err := Fork(home, src, ForkOptions{NewID: v7At(time.Now(), 7), DropLastTurns: 1})
	if err != nil {
		t.Fatal(err)
	}
	fr, _ := ReadFile(path)
	if got := summarize(fr.Reconstruct().History); !cmp.Equal(got, []string{"user: one", "assistant: one!"}) {
		t.Errorf("history = %v", got)
	}
}

// TestLatestIsMostRecentlyUpdated: resume --last takes the thread touched last, not the one
// created last, as Codex does.
func TestLatestIsMostRecentlyUpdated(t *testing.T) {
	f := newFixture(t, 4)
	// Modification times as if each thread was last touched when it was created.
	for i, id := range f.ids {
		p, _, _ := Find(f.home, id)
		at := time.Now().Add(-time.Duration(i+1) * time.Hour)
		os.Chtimes(p, at, at)
	}
	p, _, _ := Find(f.home, f.ids[2])
	later := time.Now()
	if err := os.Chtimes(p, later, later); err != nil {
		t.Fatal(err)
	}
	s, err := Latest(f.home, ListOptions{})
	if err != nil || s.ID != f.ids[2] {
		t.Errorf("latest = %s, %v; want %s", s.ID, err, f.ids[2])
	}
	s, err = Latest(f.home, ListOptions{Cwd: "/b"}) // ids[1] and ids[3]
	if err != nil || s.ID != f.ids[1] {
		t.Errorf("latest in /b = %s, %v; want %s", s.ID, err, f.ids[1])
	}
	if _, err := Latest(t.TempDir(), ListOptions{}); !errors.Is(err, ErrNotFound) {
		t.Errorf("empty home: %v", err)
	}
}

// TestForkOfARunningTurnIsMarkedInterrupted: forking a thread in the middle of a turn (its
// process still running it, or killed) marks the copy's last turn interrupted.
func TestForkOfARunningTurnIsMarkedInterrupted(t *testing.T) {
	home := t.TempDir()
	r, _ := Create(home, Options{Meta: testMeta(), Now: tick()})
	r.RecordEvent(protocol.Event{Msg: protocol.TurnStartedEvent{TurnID: "t1"}})
	r.RecordItems([]protocol.ResponseItem{userMsg("long job"), protocol.FunctionCallItem{Name: "shell", CallID: "c1"}})
	r.Close()
	src, _ := ReadFile(r.Path())
	path, err := Fork(home, src, ForkOptions{NewID: v7At(time.Now(), 11)})
	if err != nil {
		t.Fatal(err)
	}
	fr, _ := ReadFile(path)
	want := []string{"user: long job", "call shell c1", "output c1: aborted", "user: <turn_aborted>\nThe user interrupted the "}
	if diff := cmp.Diff(want, summarize(fr.Reconstruct().History)); diff != "" {
		t.Errorf("fork history (-want +got):\n%s", diff)
	}
	last := fr.Lines[len(fr.Lines)-1]
	if peekType(last.Payload) != "turn_aborted" {
		t.Errorf("fork ends with %s", last.Payload)
	}
	// A finished thread is copied as it is.
	meta2 := testMeta()
	meta2.ID = v7At(time.Now(), 13)
	r2, _ := Create(home, Options{Meta: meta2, Now: tick()})
	r2.RecordEvent(protocol.Event{Msg: protocol.TurnStartedEvent{TurnID: "t1"}})
	r2.RecordItems([]protocol.ResponseItem{userMsg("short job"), assistantMsg("done")})
	r2.RecordEvent(protocol.Event{Msg: protocol.TurnCompleteEvent{TurnID: "t1"}})
	r2.Close()
	src2, _ := ReadFile(r2.Path())
	p2, _ := Fork(home, src2, ForkOptions{NewID: v7At(time.Now(), 12)})
	fr2, _ := ReadFile(p2)
	if len(fr2.Lines) != len(src2.Lines) {
		t.Errorf("finished thread's fork has %d lines, source %d", len(fr2.Lines), len(src2.Lines))
	}
}

func TestListOrders(t *testing.T) {
	f := newFixture(t, 30)
	// Last touched: the creation order reversed, except ids[10], touched most recently.
	for i, id := range f.ids {
		p, _, _ := Find(f.home, id)
		at := time.Now().Add(-time.Duration(100-i) * time.Minute)
		if i == 10 {
			at = time.Now()
		}
		os.Chtimes(p, at, at)
	}
	pageAll := func(opts ListOptions) []string {
		var out []string
		for {
			p, err := List(f.home, opts)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, ids(p)...)
			if p.NextCursor == "" {
				return out
			}
			opts.Cursor = p.NextCursor
		}
	}
	rev := slices.Clone(f.ids)
	slices.Reverse(rev)
	if diff := cmp.Diff(rev, pageAll(ListOptions{PageSize: 7, Ascending: true})); diff != "" {
		t.Errorf("oldest first:\n%s", diff)
	}
	wantUpdated := append([]string{f.ids[10]}, slices.DeleteFunc(slices.Clone(rev), func(s string) bool { return s == f.ids[10] })...)
	if diff := cmp.Diff(wantUpdated, pageAll(ListOptions{PageSize: 4, ByUpdated: true})); diff != "" {
		t.Errorf("by update, newest first:\n%s", diff)
	}
	// Filters and exclusions apply in every order.
	got := pageAll(ListOptions{PageSize: 3, ByUpdated: true, Cwd: "/a", ExcludeIDs: []string{f.ids[10], f.ids[28]}})
	if len(got) != 13 || slices.Contains(got, f.ids[10]) || slices.Contains(got, f.ids[28]) {
		t.Errorf("filtered by update: %v", got)
	}
	if got := pageAll(ListOptions{Sources: []string{"vscode"}}); len(got) != 0 {
		t.Errorf("source filter: %v", got)
	}
	if got := pageAll(ListOptions{Sources: []string{"exec"}, PageSize: 100}); len(got) != 30 {
		t.Errorf("source filter exec: %d", len(got))
	}
	if _, err := List(f.home, ListOptions{ByUpdated: true, Cursor: base64Cursor("rollout-x")}); err == nil {
		t.Error("a created-order cursor was accepted for the update order")
	}
}

func base64Cursor(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
