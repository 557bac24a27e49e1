package features

import (
	"fmt"
	"io"
)

// WriteList prints every flag as `codex features list` does (name in 41 columns, stage in 19,
// then the effective value), sorted by name. A row whose value gocodex does not honour gets a
// note after it, so the listing never claims a behaviour gocodex lacks.
func WriteList(w io.Writer, table map[string]any) error {
	for _, f := range Sorted() {
		on := Enabled(table, f.Name)
		line := fmt.Sprintf("%-41s%-19s%t", f.Name, f.Stage, on)
		if honest, note := Effective(f.Name, on); !honest {
			line += "  (" + note + ")"
		}
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
	}
	return nil
}
