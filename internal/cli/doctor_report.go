package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/gocodex/gocodex/internal/version"
)

// Doctor check statuses, as Codex's `doctor --json` spells them.
const (
	StatusOK      = "ok"
	StatusWarning = "warning"
	StatusFail    = "fail"
)

// DoctorCheck is one row of `gocodex doctor`: what was checked, how it went, what was seen
// and, when it is not ok, what to do about it.
type DoctorCheck struct {
	ID          string     `json:"id"`
	Category    string     `json:"category"`
	Status      string     `json:"status"`
	Summary     string     `json:"summary"`
	Details     detailList `json:"-"`
	Remediation *string    `json:"remediation"`
	DurationMs  int64      `json:"durationMs"`
	group       string
}

// detail is one "key value" line under a check, in the order it was found.
type detail struct{ Key, Value string }

type detailList []detail

func (c *DoctorCheck) detail(key, value string) { c.Details = append(c.Details, detail{key, value}) }

func (c *DoctorCheck) set(status, summary, remedy string) {
	c.Status, c.Summary = status, summary
	if remedy != "" {
		c.Remediation = &remedy
	}
}

// MarshalJSON writes the check with its details as an object, as Codex's report has them.
func (c DoctorCheck) MarshalJSON() ([]byte, error) {
	type plain DoctorCheck
	details := map[string]string{}
	for _, d := range c.Details {
		details[d.Key] = d.Value
	}
	return json.Marshal(struct {
		plain
		Details map[string]string `json:"details"`
	}{plain(c), details})
}

// doctorReport is `gocodex doctor --json`: Codex's report shape, checks keyed by id.
type doctorReport struct {
	SchemaVersion int                    `json:"schemaVersion"`
	GeneratedAt   string                 `json:"generatedAt"`
	OverallStatus string                 `json:"overallStatus"`
	CodexVersion  string                 `json:"codexVersion"`
	Checks        map[string]DoctorCheck `json:"checks"`
}

func overallStatus(checks []DoctorCheck) string {
	status := StatusOK
	for _, c := range checks {
		switch c.Status {
		case StatusFail:
			return StatusFail
		case StatusWarning:
			status = StatusWarning
		}
	}
	return status
}

func writeDoctorJSON(w io.Writer, checks []DoctorCheck, now time.Time) error {
	r := doctorReport{SchemaVersion: 1, GeneratedAt: fmt.Sprintf("%ds since unix epoch", now.Unix()),
		OverallStatus: overallStatus(checks), CodexVersion: version.CodexProtocol, Checks: map[string]DoctorCheck{}}
	for _, c := range checks {
		r.Checks[c.ID] = c
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// doctorStyle is how the human report marks statuses.
type doctorStyle struct {
	ascii bool
	color bool
}

func (s doctorStyle) mark(status string) string {
	var m, code string
	switch status {
	case StatusOK:
		m, code = "✓", "32"
		if s.ascii {
			m = "[ok]"
		}
	case StatusWarning:
		m, code = "⚠", "33"
		if s.ascii {
			m = "[!!]"
		}
	default:
		m, code = "✗", "31"
		if s.ascii {
			m = "[XX]"
		}
	}
	if s.color {
		return "\x1b[" + code + "m" + m + "\x1b[0m"
	}
	return m
}

func (s doctorStyle) rule() string {
	if s.ascii {
		return strings.Repeat("-", 61)
	}
	return strings.Repeat("─", 61)
}

func (s doctorStyle) dot() string {
	if s.ascii {
		return "|"
	}
	return "·"
}

// doctorGroups are the report's sections, in order.
var doctorGroups = []string{"Environment", "Configuration", "Connectivity"}

// writeDoctorText is the human report: the checks that need attention first (Notes), then
// every check by section with what it saw (unless summary), then the counts.
func writeDoctorText(w io.Writer, checks []DoctorCheck, st doctorStyle, summary bool) {
	fmt.Fprintf(w, "gocodex doctor v%s (Codex %s protocol) %s %s-%s\n\n", version.Version, version.CodexProtocol, st.dot(), runtime.GOOS, runtime.GOARCH)
	var notes []DoctorCheck
	for _, c := range checks {
		if c.Status != StatusOK {
			notes = append(notes, c)
		}
	}
	if len(notes) > 0 {
		fmt.Fprintln(w, "Notes")
		for _, c := range notes {
			line := c.Summary
			if c.Remediation != nil {
				line += " - " + *c.Remediation
			}
			fmt.Fprintf(w, "   %s %-12s %s\n", st.mark(c.Status), c.Category, line)
		}
		fmt.Fprintln(w, st.rule())
		fmt.Fprintln(w)
	}
	for _, g := range doctorGroups {
		printed := false
		for _, c := range checks {
			if c.group != g {
				continue
			}
			if !printed {
				fmt.Fprintln(w, g)
				printed = true
			}
			fmt.Fprintf(w, "  %s %-12s %s\n", st.mark(c.Status), c.Category, c.Summary)
			if summary {
				continue
			}
			for _, d := range c.Details {
				fmt.Fprintf(w, "      %-24s %s\n", d.Key, d.Value)
			}
			if c.Remediation != nil && c.Status != StatusOK {
				arrow := "→"
				if st.ascii {
					arrow = "->"
				}
				fmt.Fprintf(w, "    %s %s\n", arrow, *c.Remediation)
			}
		}
		if printed {
			fmt.Fprintln(w)
		}
	}
	counts := map[string]int{}
	for _, c := range checks {
		counts[c.Status]++
	}
	word := map[string]string{StatusOK: "healthy", StatusWarning: "degraded", StatusFail: "failed"}[overallStatus(checks)]
	fmt.Fprintln(w, st.rule())
	fmt.Fprintf(w, "%d ok %s %d warn %s %d fail %s\n", counts[StatusOK], st.dot(), counts[StatusWarning], st.dot(), counts[StatusFail], word)
	if summary {
		fmt.Fprintln(w, "\nRun gocodex doctor without --summary for detailed diagnostics.")
	}
}

// sortedKeys is a map's keys in order, for stable details.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
