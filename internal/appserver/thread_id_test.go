package appserver

import "testing"

// What Codex 0.169 answered to thread/read with each malformed id ("invalid thread id: " and
// this).
func TestThreadIDErrorLikeCodex(t *testing.T) {
	for in, want := range map[string]string{
		"1234":                                 "invalid length: expected length 32 for simple format, found 4",
		"":                                     "invalid length: expected length 32 for simple format, found 0",
		"000000000000000000000000000000000":    "invalid length: expected length 32 for simple format, found 33",
		"00000000-0000-0000-0000-00000000000":  "invalid group length in group 4: expected 12, found 11",
		"00000000-0000-0000-00000-00000000000": "invalid group length in group 3: expected 4, found 5",
		"00000000-0000-0000-0000-0000000000-0": "invalid group count: expected 5, found 6",
		"not-a-uuid":                           "invalid character: expected an optional prefix of `urn:uuid:` followed by [0-9a-fA-F-], found `n` at 1",
		"zz":                                   "invalid character: expected an optional prefix of `urn:uuid:` followed by [0-9a-fA-F-], found `z` at 1",
		"urn:uuid:00000000-0000-0000-0000-00000000000x": "invalid character: expected an optional prefix of `urn:uuid:` followed by [0-9a-fA-F-], found `x` at 36",
		"00000000-0000-0000-0000-000000000000":          "",
		"00000000000000000000000000000000":              "",
		"{00000000-0000-0000-0000-000000000000}":        "",
	} {
		if got := threadIDError(in); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}
