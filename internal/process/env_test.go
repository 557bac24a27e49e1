package process

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestBuildEnv(t *testing.T) {
	parent := []string{
		"PATH=/usr/bin", "HOME=/home/u", "SHELL=/bin/bash", "LANG=C.UTF-8",
		"OPENAI_API_KEY=sk-1", "GITHUB_TOKEN=gh", "AWS_SECRET_ACCESS_KEY=x", "monkey=banana",
		"FOO=1", "FOOBAR=2", "malformed",
	}
	tests := []struct {
		name   string
		policy EnvPolicy
		opts   EnvOptions
		want   []string
	}{
		{
			name:   "default inherits everything including secrets",
			policy: DefaultEnvPolicy(),
			want: []string{"AWS_SECRET_ACCESS_KEY=x", "FOO=1", "FOOBAR=2", "GITHUB_TOKEN=gh", "HOME=/home/u",
				"LANG=C.UTF-8", "OPENAI_API_KEY=sk-1", "PATH=/usr/bin", "SHELL=/bin/bash", "monkey=banana"},
		},
		{
			name:   "default excludes drop KEY SECRET TOKEN case-insensitively",
			policy: EnvPolicy{Inherit: InheritAll},
			want:   []string{"FOO=1", "FOOBAR=2", "HOME=/home/u", "LANG=C.UTF-8", "PATH=/usr/bin", "SHELL=/bin/bash"},
		},
		{
			name:   "core keeps the core set only",
			policy: EnvPolicy{Inherit: InheritCore, IgnoreDefaultExcludes: true},
			want:   []string{"HOME=/home/u", "LANG=C.UTF-8", "PATH=/usr/bin", "SHELL=/bin/bash"},
		},
		{
			name:   "none starts empty; set still applies",
			policy: EnvPolicy{Inherit: InheritNone, Set: map[string]string{"A": "b"}},
			want:   []string{"A=b"},
		},
		{
			name:   "exclude globs are case-insensitive",
			policy: EnvPolicy{Inherit: InheritAll, IgnoreDefaultExcludes: true, Exclude: []string{"foo*", "MON?EY"}},
			want: []string{"AWS_SECRET_ACCESS_KEY=x", "GITHUB_TOKEN=gh", "HOME=/home/u", "LANG=C.UTF-8",
				"OPENAI_API_KEY=sk-1", "PATH=/usr/bin", "SHELL=/bin/bash"},
		},
		{
			name: "set overrides after excludes and include_only runs last",
			policy: EnvPolicy{Inherit: InheritAll, Exclude: []string{"PATH"},
				Set: map[string]string{"PATH": "/opt/bin", "MY_TOKEN": "t", "OTHER": "o"}, IncludeOnly: []string{"path", "*token"}},
			want: []string{"MY_TOKEN=t", "PATH=/opt/bin"},
		},
		{
			name:   "thread id and network flag are added after the policy",
			policy: EnvPolicy{Inherit: InheritNone, IncludeOnly: []string{"NOTHING"}},
			opts:   EnvOptions{ThreadID: "th-1", NetworkDisabled: true, Extra: map[string]string{"NO_COLOR": "1"}},
			want:   []string{"CODEX_SANDBOX_NETWORK_DISABLED=1", "CODEX_THREAD_ID=th-1", "NO_COLOR=1"},
		},
		{
			name:   "a malformed glob matches nothing",
			policy: EnvPolicy{Inherit: InheritCore, IgnoreDefaultExcludes: true, Exclude: []string{"[PATH"}},
			want:   []string{"HOME=/home/u", "LANG=C.UTF-8", "PATH=/usr/bin", "SHELL=/bin/bash"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := BuildEnv(tt.policy, parent, tt.opts)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("BuildEnv mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCoreVarsOnWindows: Windows spells variable names in any case; the core set keeps them
// whatever their case there, and only exact names elsewhere.
func TestCoreVarsOnWindows(t *testing.T) {
	for _, name := range []string{"Path", "TEMP", "Tmp", "USERNAME", "UserName"} {
		if !isCoreVar(name, true) {
			t.Errorf("%q is not core on Windows", name)
		}
	}
	if isCoreVar("Path", false) || !isCoreVar("PATH", false) || isCoreVar("APPDATA", true) {
		t.Error("core set wrong on Unix")
	}
}
