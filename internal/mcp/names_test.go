package mcp

import (
	"strings"
	"testing"
)

func TestNames(t *testing.T) {
	long := strings.Repeat("x", 70)
	for _, tc := range []struct {
		fn   func(string, string) string
		a, b string
		want string
	}{
		{func(s, _ string) string { return NamespaceName(s) }, "ts", "", "mcp__ts"},
		{func(s, _ string) string { return NamespaceName(s) }, "my-srv", "", "mcp__my_srv"},
		{func(s, _ string) string { return NamespaceName(s) }, "a.b/c@d", "", "mcp__a_b_c_d"},
		{func(s, _ string) string { return ToolName(s) }, "weird.name-tool", "", "weird_name_tool"},
		{func(s, _ string) string { return ToolName(s) }, long, "", long},
		{func(s, _ string) string { return ToolName(s) }, "héllo", "", "h_llo"},
		{QualifiedName, "ts", "echo", "mcp__ts__echo"},
		{QualifiedName, "my-srv", "do.it", "mcp__my_srv__do_it"},
	} {
		if got := tc.fn(tc.a, tc.b); got != tc.want {
			t.Errorf("name(%q, %q) = %q, want %q", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestLongNamesAreHashed(t *testing.T) {
	a := QualifiedName("server", strings.Repeat("t", 80)+"a")
	b := QualifiedName("server", strings.Repeat("t", 80)+"b")
	if len(a) != MaxToolNameLen || len(b) != MaxToolNameLen {
		t.Fatalf("lengths %d, %d", len(a), len(b))
	}
	if a == b {
		t.Errorf("distinct long names collide: %s", a)
	}
	if !strings.HasPrefix(a, "mcp__server__ttt") || a[MaxToolNameLen-13] != '_' {
		t.Errorf("hashed name %q", a)
	}
	if ns := NamespaceName(strings.Repeat("s", 100)); len(ns) != MaxToolNameLen {
		t.Errorf("namespace %q is %d long", ns, len(ns))
	}
}

func FuzzSanitize(f *testing.F) {
	for _, s := range []string{"", "ts", "my-srv", "héllo wörld", "\x00\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Sanitize(s)
		for _, r := range out {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
				t.Fatalf("Sanitize(%q) = %q has %q", s, out, r)
			}
		}
		if q := QualifiedName(s, s); len(q) > MaxToolNameLen {
			t.Fatalf("QualifiedName too long: %d", len(q))
		}
	})
}
