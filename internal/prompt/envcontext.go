package prompt

import (
	"strings"

	"github.com/gocodex/gocodex/internal/usershell"
)

// EnvironmentContext is the <environment_context> block: where the agent runs. Empty fields
// are left out.
type EnvironmentContext struct {
	Cwd   string
	Shell string
	// CurrentDate is YYYY-MM-DD in the user's time zone.
	CurrentDate string
	// Timezone is an IANA name such as "Europe/Paris".
	Timezone string
	// Network, when set, lists the allowed and denied domains of a managed network policy.
	Network *NetworkContext
}

// NetworkContext describes network access limited to some domains.
type NetworkContext struct {
	Allowed []string
	Denied  []string
}

// Render writes the block in the layout models know from Codex: one two-space-indented
// element per line.
func (e EnvironmentContext) Render() string {
	var b strings.Builder
	b.WriteString("<environment_context>\n")
	line := func(tag, value string) {
		if value == "" {
			return
		}
		b.WriteString("  <" + tag + ">" + xmlEscape(value) + "</" + tag + ">\n")
	}
	line("cwd", e.Cwd)
	line("shell", e.Shell)
	line("current_date", e.CurrentDate)
	line("timezone", e.Timezone)
	if e.Network != nil {
		b.WriteString("  <network enabled=\"true\">\n")
		for _, d := range e.Network.Allowed {
			b.WriteString("    <allowed>" + xmlEscape(d) + "</allowed>\n")
		}
		for _, d := range e.Network.Denied {
			b.WriteString("    <denied>" + xmlEscape(d) + "</denied>\n")
		}
		b.WriteString("  </network>\n")
	}
	b.WriteString("</environment_context>")
	return b.String()
}

// Codex writes paths verbatim; we only escape what would break the markup.
var xmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

func xmlEscape(s string) string {
	if !strings.ContainsAny(s, "&<>") {
		return s
	}
	return xmlEscaper.Replace(s)
}

// ShellName is the name of the shell commands run in ("zsh", "bash", "powershell"...), the
// user's own ($SHELL) when gocodex knows its kind, as Codex tells the model.
func ShellName(getenv func(string) string) string {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	return usershell.Default(usershell.Host(getenv)).Name()
}

// TimezoneName returns the IANA name of the local zone: $TZ when it names one, else the
// target of /etc/localtime under a zoneinfo directory, else "Etc/UTC". readlink may be nil.
func TimezoneName(getenv func(string) string, readlink func(string) (string, error)) string {
	if getenv != nil {
		if tz := strings.TrimPrefix(getenv("TZ"), ":"); tz != "" && !strings.HasPrefix(tz, "/") {
			return tz
		}
	}
	if readlink != nil {
		if target, err := readlink("/etc/localtime"); err == nil {
			if i := strings.Index(target, "zoneinfo/"); i >= 0 {
				return target[i+len("zoneinfo/"):]
			}
		}
	}
	return "Etc/UTC"
}
