package sandbox

import (
	"os"
	"strings"
)

// envLookup reads a variable from env as the command will see it.
func envLookup(env []string) func(string) string {
	if env == nil {
		return os.Getenv
	}
	return func(key string) string {
		v := ""
		for _, kv := range env {
			if k, val, ok := strings.Cut(kv, "="); ok && k == key {
				v = val // the last one wins, as for exec
			}
		}
		return v
	}
}
