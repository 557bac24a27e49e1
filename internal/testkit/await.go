package testkit

import (
	"context"
	"fmt"
	"sync"
)

// filterRequests keeps the requests one endpoint of a scripted server answers.
func filterRequests(all []Request, match func(method, path string) bool) []Request {
	var out []Request
	for _, r := range all {
		if match(r.Method, r.Path) {
			out = append(out, r)
		}
	}
	return out
}

// awaitRequests waits until list returns at least n requests (or ctx ends). arrived, read
// under mu, is the channel a server closes and replaces whenever it records a request.
func awaitRequests(ctx context.Context, n int, mu *sync.Mutex, arrived *chan struct{}, list func() []Request) ([]Request, error) {
	for {
		mu.Lock()
		ch := *arrived
		mu.Unlock()
		if reqs := list(); len(reqs) >= n {
			return reqs, nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return list(), fmt.Errorf("waiting for %d requests: %w", n, ctx.Err())
		}
	}
}
