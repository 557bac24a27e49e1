package features

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
)

// TestListMatchesCodex compares `features list` with an empty configuration against the
// listing Codex 0.171 printed (testdata), column by column; gocodex's notes come after.
func TestListMatchesCodex(t *testing.T) {
	want, err := os.ReadFile("testdata/codex-0.171-features-list.txt")
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := WriteList(&got, nil); err != nil {
		t.Fatal(err)
	}
	wantLines := strings.Split(strings.TrimRight(string(want), "\n"), "\n")
	gotLines := strings.Split(strings.TrimRight(got.String(), "\n"), "\n")
	if len(gotLines) != len(wantLines) {
		t.Fatalf("got %d rows, Codex lists %d", len(gotLines), len(wantLines))
	}
	for i := range wantLines {
		row, _, _ := strings.Cut(gotLines[i], "  (")
		if row != strings.TrimRight(wantLines[i], " ") {
			t.Errorf("row %d:\n got %q\nwant %q", i, row, wantLines[i])
		}
	}
}

func TestListNotesWhatGocodexDoesNotHonour(t *testing.T) {
	var got bytes.Buffer
	if err := WriteList(&got, map[string]any{"memories": true, "shell_tool": false, "hooks": false}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"memories                                 stable             true  (not supported by gocodex)\n",
		"shell_tool                               stable             false  (always on in gocodex)\n",
		"hooks                                    stable             false\n",
		"undo                                     removed            false\n",
	} {
		if !strings.Contains(got.String(), want) {
			t.Errorf("listing lacks %q", want)
		}
	}
}

func TestCheckNames(t *testing.T) {
	if err := CheckNames("hooks", "memories"); err != nil {
		t.Fatal(err)
	}
	err := CheckNames("hooks", "bogus")
	var unknown *UnknownFlagError
	if !errors.As(err, &unknown) || err.Error() != "Unknown feature flag: bogus" {
		t.Fatalf("err = %v", err)
	}
}

func TestEnabled(t *testing.T) {
	table := map[string]any{"memories": true, "plugins": false, "multi_agent_v2": map[string]any{"max_depth": 2}, "apps": map[string]any{"enabled": false}}
	for name, want := range map[string]bool{
		"memories": true, "plugins": false, "multi_agent_v2": true, "apps": false,
		"hooks": true, "token_budget": false, "no_such_flag": false,
	} {
		if got := Enabled(table, name); got != want {
			t.Errorf("Enabled(%s) = %v, want %v", name, got, want)
		}
	}
}

func TestWarnings(t *testing.T) {
	got := Warnings(map[string]any{
		"memories":                        true,  // not implemented, on
		"token_budget":                    false, // not implemented, off: nothing to say
		"shell_tool":                      false, // always on
		"default_mode_request_user_input": true,  // honoured
		"undo":                            true,  // removed: Codex ignores it too
		"bogus":                           true,  // unknown: the config loader's warning
		"apps":                            "x",   // not a flag value
	})
	want := []Warning{
		{Name: "memories", Message: "feature `memories` is turned on but is not supported by gocodex: it has no effect"},
		{Name: "shell_tool", Message: "feature `shell_tool` is turned off but is always on in gocodex: it has no effect"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("warning %d = %v, want %v", i, got[i], want[i])
		}
	}
}

func TestStages(t *testing.T) {
	f, ok := Lookup("network_proxy")
	if !ok || f.Stage.String() != "experimental" || f.Stage.Wire() != "beta" || f.DisplayName != "Network proxy" {
		t.Fatalf("network_proxy = %+v", f)
	}
	if len(All()) != 224 {
		t.Fatalf("%d flags, Codex 0.171 has 224", len(All()))
	}
}

// codex_hooks is the old name of hooks: a known key (and --disable codex_hooks turns hooks
// off, as in Codex) with Codex's deprecation warning.
func TestLegacyName(t *testing.T) {
	if !KnownKey("codex_hooks") || KnownKey("bogus") || CheckNames("codex_hooks") != nil {
		t.Fatal("codex_hooks")
	}
	if Enabled(map[string]any{"codex_hooks": false}, "hooks") || !Enabled(map[string]any{"codex_hooks": false, "hooks": true}, "hooks") {
		t.Fatal("hooks does not follow codex_hooks")
	}
	got := Warnings(map[string]any{"codex_hooks": false})
	if len(got) != 1 || got[0].Message != "`[features].codex_hooks` is deprecated. Use `[features].hooks` instead." {
		t.Fatalf("warnings %v", got)
	}
}
