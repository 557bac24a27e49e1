package version

import "testing"

func TestResolve(t *testing.T) {
	for _, tc := range []struct {
		stamp, module, want string
	}{
		{"", "", Base},
		{"", "(devel)", Base},
		{"0.2.0-3-gabc1234", "(devel)", "0.2.0-3-gabc1234"},
		{"v0.2.0", "", "0.2.0"},
		{"", "v0.0.0-20261128120000-577af4e1b2c3", "0.0.0-20261128120000-577af4e1b2c3"},
		{"0.2.0", "v0.3.0", "0.2.0"}, // the release stamp wins
	} {
		if got := resolve(tc.stamp, tc.module); got != tc.want {
			t.Errorf("resolve(%q, %q) = %q, want %q", tc.stamp, tc.module, got, tc.want)
		}
	}
}
