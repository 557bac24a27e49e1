package config

import "testing"

// The digests below are what Codex 0.169's app-server reports in
// config/read for the same layers.
func TestLayerVersion(t *testing.T) {
	tests := []struct {
		data map[string]any
		want string
	}{
		{map[string]any{}, "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"},
		{map[string]any{"model": "o3", "check_for_update_on_startup": false, "features": map[string]any{"plugins": false}},
			"sha256:302cfbe514a6711c885a4240ad6316003bbb574e335b2a4a150d9e5148817052"},
	}
	for _, tt := range tests {
		if got := LayerVersion(tt.data); got != tt.want {
			t.Errorf("LayerVersion(%v) = %s, want %s", tt.data, got, tt.want)
		}
	}
	if got := jsonFloat(30); got != "30.0" {
		t.Errorf("jsonFloat(30) = %s", got)
	}
}
