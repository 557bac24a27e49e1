package cli

import (
	"slices"
	"testing"
)

func TestBrowserCommand(t *testing.T) {
	url := "https://auth.example/oauth/authorize?client_id=x&redirect_uri=http%3A%2F%2Flocalhost%3A1455&state=s"
	env := func(vars map[string]string) func(string) string { return func(k string) string { return vars[k] } }
	for _, tc := range []struct {
		goos string
		env  map[string]string
		want []string
	}{
		{"darwin", nil, []string{"open", url}},
		{"windows", nil, []string{"rundll32", "url.dll,FileProtocolHandler", url}},
		{"linux", map[string]string{"DISPLAY": ":0"}, []string{"xdg-open", url}},
		{"linux", map[string]string{"WAYLAND_DISPLAY": "wayland-0"}, []string{"xdg-open", url}},
		{"linux", nil, nil},
	} {
		got, err := browserCommand(tc.goos, url, env(tc.env))
		if !slices.Equal(got, tc.want) || (tc.want == nil) != (err != nil) {
			t.Errorf("%s %v: %q, %v; want %q", tc.goos, tc.env, got, err, tc.want)
		}
	}
}
