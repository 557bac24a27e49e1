package layering

import (
	"sort"
	"strings"
	"testing"
)

// threadStores are the stores of threads at rest that only the host's thread service
// (internal/host/threads) and the host that records running threads (internal/app) touch
// (issue 30): a face or a command reads, forks, archives or deletes a stored thread through
// the service, so each operation is written once, in one order, with one error policy.
var threadStores = []string{"internal/rollout", "internal/sessionindex", "internal/codexstate"}

// TestThreadStoresOnlyInTheHost counts the packages outside the host that import a thread
// store (go list's imports, so tests may still read rollouts) and names each one.
func TestThreadStoresOnlyInTheHost(t *testing.T) {
	importers := map[string][]string{}
	for _, p := range listPackages(t) {
		rel, _ := relative(p.ImportPath)
		if r, _ := roomOf(rel); r.layer == host || r.layer == testSupport {
			continue
		}
		for _, imp := range p.Imports {
			irel, _ := relative(imp)
			for _, store := range threadStores {
				if irel == store {
					importers[store] = append(importers[store], rel)
				}
			}
		}
	}
	for _, store := range threadStores {
		if got := importers[store]; len(got) > 0 {
			sort.Strings(got)
			t.Errorf("%d package(s) outside the host import %s: %s; go through the thread service (internal/host/threads) instead",
				len(got), store, strings.Join(got, ", "))
		}
	}
}
