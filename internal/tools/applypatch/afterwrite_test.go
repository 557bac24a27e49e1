package applypatch

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
)

// What AfterWrite returns (the language servers' diagnostics) follows the patch's output, for
// the model and in patch_apply_end; it is told the written paths, and a patch that fails
// does not call it.
func TestAfterWriteNoteFollowsTheOutput(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "old.txt", "a\n")
	var told []string
	h := New(Options{Freeform: true, Now: fakeClock(time.Second), AfterWrite: func(_ context.Context, _ *tool.Env, paths []string) string {
		told = append(told, paths...)
		return "Language server diagnostics: 1 error, 0 warnings\nnew.txt:1:1 error bad\n"
	}})
	r := &recorder{}
	res, err := h.Handle(context.Background(), r.env(dir), tool.Call{Kind: tool.CustomCall, CallID: "c1", Arguments: addPatch})
	if err != nil {
		t.Fatal(err)
	}
	want := "Success. Updated the following files:\nA new.txt\nM old.txt\n\nLanguage server diagnostics: 1 error, 0 warnings\nnew.txt:1:1 error bad\n"
	if !strings.HasSuffix(res.Output, "Output:\n"+want) || !res.Success {
		t.Errorf("output %q", res.Output)
	}
	end := r.events[len(r.events)-1].(protocol.PatchApplyEndEvent)
	if end.Stdout != want {
		t.Errorf("patch_apply_end stdout %q", end.Stdout)
	}
	slices.Sort(told)
	if !slices.Equal(told, []string{filepath.Join(dir, "new.txt"), filepath.Join(dir, "old.txt")}) {
		t.Errorf("paths told %v", told)
	}

	told = nil
	res, _ = h.Handle(context.Background(), r.env(dir), tool.Call{Kind: tool.CustomCall, CallID: "c2",
		Arguments: "*** Begin Patch\n*** Update File: old.txt\n@@\n-zzz\n+b\n*** End Patch"})
	if told != nil || strings.Contains(res.Output, "Language server") {
		t.Errorf("a failed patch called AfterWrite (%v): %q", told, res.Output)
	}
}
