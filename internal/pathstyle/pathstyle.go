// Package pathstyle handles paths the way the system gocodex runs on spells and compares
// them, as plain string logic for every system, so Windows' and macOS' rules are tested on
// Linux too: Windows takes both / and \ as separators, has drive letters (C:\) and shares
// (\\server\share), and, like macOS' default file systems, ignores case when it compares names.
// Paths are compared lexically: the files may not exist yet.
package pathstyle

import (
	"path"
	"runtime"
	"strings"
)

// Style is a system's way with paths.
type Style struct {
	// Windows: \ and / separate, volumes are drive letters or shares, \ is written.
	Windows bool
	// CaseInsensitive: two names that differ only in case are the same file.
	CaseInsensitive bool
}

var (
	Unix    = Style{}
	MacOS   = Style{CaseInsensitive: true}
	Windows = Style{Windows: true, CaseInsensitive: true}
)

// Host is the style of the system gocodex runs on.
func Host() Style { return ForGOOS(runtime.GOOS) }

// ForGOOS is the style of a system by its GOOS.
func ForGOOS(goos string) Style {
	switch goos {
	case "windows":
		return Windows
	case "darwin", "ios":
		return MacOS
	}
	return Unix
}

func (s Style) sep() string {
	if s.Windows {
		return `\`
	}
	return "/"
}

// volume is p's drive ("C:") or share (`\\server\share`), with \ separators; "" on Unix.
func (s Style) volume(p string) string {
	if !s.Windows {
		return ""
	}
	p = strings.ReplaceAll(p, "/", `\`)
	if len(p) >= 2 && p[1] == ':' && isLetter(p[0]) {
		return p[:2]
	}
	if strings.HasPrefix(p, `\\`) {
		parts := strings.SplitN(p[2:], `\`, 3)
		if len(parts) >= 2 && parts[0] != "" && parts[1] != "" {
			return `\\` + parts[0] + `\` + parts[1]
		}
	}
	return ""
}

func isLetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

// IsAbs reports whether p names the same file whatever the working directory: /… on Unix;
// C:\… or \\server\share\… on Windows (\… and C:… depend on the current drive or folder).
func (s Style) IsAbs(p string) bool {
	if !s.Windows {
		return strings.HasPrefix(p, "/")
	}
	p = strings.ReplaceAll(p, "/", `\`)
	vol := s.volume(p)
	if strings.HasPrefix(vol, `\\`) {
		return true
	}
	return vol != "" && strings.HasPrefix(p[len(vol):], `\`)
}

// Clean is the shortest lexical equivalent of p, with the style's separator.
func (s Style) Clean(p string) string {
	if !s.Windows {
		return path.Clean(p)
	}
	p = strings.ReplaceAll(p, "/", `\`)
	vol := s.volume(p)
	rest := strings.ReplaceAll(p[len(vol):], `\`, "/")
	if rest == "" && vol != "" {
		return vol + `\`
	}
	return vol + strings.ReplaceAll(path.Clean(rest), "/", `\`)
}

// Resolve is p made absolute against base (an absolute directory) and cleaned: what a patch
// or a tool's path names.
func (s Style) Resolve(base, p string) string {
	if s.IsAbs(p) {
		return s.Clean(p)
	}
	if s.Windows {
		q := strings.ReplaceAll(p, "/", `\`)
		if strings.HasPrefix(q, `\`) {
			return s.Clean(s.volume(base) + q) // rooted: on base's drive
		}
		if vol := s.volume(q); vol != "" {
			q = q[len(vol):] // drive-relative (C:x): taken as relative to base
		}
		p = q
	}
	return s.Clean(base + s.sep() + p)
}

// components splits a cleaned path into its volume and names.
func (s Style) components(p string) (vol string, names []string) {
	p = s.Clean(p)
	vol = s.volume(p)
	for _, n := range strings.Split(p[len(vol):], s.sep()) {
		if n != "" && n != "." {
			names = append(names, n)
		}
	}
	return vol, names
}

func (s Style) sameName(a, b string) bool {
	if s.CaseInsensitive {
		return strings.EqualFold(a, b)
	}
	return a == b
}

// Within reports whether p is root or beneath it. Both are cleaned first; names (and drive
// letters) are compared without case where the style ignores it.
func (s Style) Within(p, root string) bool {
	if s.IsAbs(p) != s.IsAbs(root) {
		return false
	}
	pv, pn := s.components(p)
	rv, rn := s.components(root)
	if !strings.EqualFold(pv, rv) || len(pn) < len(rn) {
		return false
	}
	for i, n := range rn {
		if !s.sameName(pn[i], n) {
			return false
		}
	}
	return true
}

// Equal reports whether a and b name the same path.
func (s Style) Equal(a, b string) bool { return s.Within(a, b) && s.Within(b, a) }
