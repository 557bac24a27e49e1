package appserver

import (
	"testing"

	"github.com/gocodex/gocodex/internal/config"
)

// Four unknown keys as Codex 0.169 reported them (observed): sorted, three shown, then how
// many more; other warnings are left alone.
func TestUnknownSettingsMessageLikeCodex(t *testing.T) {
	file := "/h/config.toml"
	ws := []config.Warning{
		{File: file, Key: []string{"zzz_top"}, Unknown: true},
		{File: file, Key: []string{"features", "bogus_feature"}, Unknown: true},
		{File: file, Message: "feature `x` is turned on but is not supported"},
		{File: file, Key: []string{"tools", "nope"}, Unknown: true},
		{File: file, Key: []string{"not_a_codex_table"}, Unknown: true},
	}
	msg, rest := UnknownSettingsMessage(ws, "/h")
	want := "Codex is ignoring 4 unrecognized configuration settings. Check for typos or deprecated settings.\n" +
		"  user (/h/config.toml): `features.bogus_feature` is ignored.\n" +
		"  user (/h/config.toml): `not_a_codex_table` is ignored.\n" +
		"  user (/h/config.toml): `tools.nope` is ignored.\n" +
		"  ... and 1 more ignored settings."
	if msg != want {
		t.Errorf("message:\n%s\nwant:\n%s", msg, want)
	}
	if len(rest) != 1 || rest[0].Unknown {
		t.Errorf("rest = %v", rest)
	}
	if msg, _ := UnknownSettingsMessage(rest, "/h"); msg != "" {
		t.Errorf("no unknown keys: %q", msg)
	}
}
