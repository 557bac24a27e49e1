package skills

import (
	"fmt"
	"path/filepath"
	"testing"
)

// BenchmarkDiscover is the work a thread start does for skills: 40 repository and 10 user
// skills, the block rendered.
func BenchmarkDiscover(b *testing.B) {
	base := b.TempDir()
	w := world{repo: filepath.Join(base, "repo"), codexHome: filepath.Join(base, "codex"), home: filepath.Join(base, "home")}
	w.sub = filepath.Join(w.repo, "sub")
	for i := 0; i < 40; i++ {
		mustWrite(b, filepath.Join(w.repo, ".agents/skills", fmt.Sprintf("s%02d", i)), skillText(fmt.Sprintf("s%02d", i), "A repository skill."))
	}
	for i := 0; i < 10; i++ {
		mustWrite(b, filepath.Join(w.codexHome, "skills", fmt.Sprintf("u%02d", i)), skillText(fmt.Sprintf("u%02d", i), "A user skill."))
	}
	o := Options{Cwd: w.repo, ProjectRoot: w.repo, CodexHome: w.codexHome, Home: w.home}
	b.ResetTimer()
	for b.Loop() {
		c := Discover(o)
		if len(c.Skills) != 50 || c.Instructions() == "" {
			b.Fatalf("%d skills", len(c.Skills))
		}
	}
}

// BenchmarkFingerprint is one skills/changed poll of the same folders.
func BenchmarkFingerprint(b *testing.B) {
	base := b.TempDir()
	for i := 0; i < 50; i++ {
		mustWrite(b, filepath.Join(base, "repo/.agents/skills", fmt.Sprintf("s%02d", i)), skillText(fmt.Sprintf("s%02d", i), "A skill."))
	}
	o := Options{Cwd: filepath.Join(base, "repo"), ProjectRoot: filepath.Join(base, "repo")}
	for b.Loop() {
		Fingerprint(o)
	}
}
