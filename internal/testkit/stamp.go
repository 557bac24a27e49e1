package testkit

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// StampServer is a loopback Responses endpoint whose every text delta carries the time it
// was written ("<unix nanos>;"), so a client can measure each delta's way from the model
// to itself. Each response streams deltas deltas, gap apart, then completes.
func StampServer(tb testing.TB, deltas int, gap time.Duration) *httptest.Server {
	write := func(w http.ResponseWriter, e Event) {
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", e.Type, e.Data)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fl := w.(http.Flusher)
		write(w, Created())
		write(w, AssistantMessageStream("msg_1")[0])
		fl.Flush()
		var all strings.Builder
		for i := 0; i < deltas; i++ {
			if i > 0 {
				time.Sleep(gap)
			}
			d := strconv.FormatInt(time.Now().UnixNano(), 10) + ";"
			all.WriteString(d)
			write(w, TextDelta(d))
			fl.Flush()
			if r.Context().Err() != nil {
				return
			}
		}
		write(w, AssistantMessage("msg_1", all.String()))
		write(w, Completed(Usage{Input: 10, Output: int64(deltas), Total: 10 + int64(deltas)}))
		fl.Flush()
	}))
	tb.Cleanup(srv.Close)
	return srv
}

// StampLatencies parses a delta written by StampServer and returns, for each stamp in it,
// the time from its writing to now.
func StampLatencies(delta string, now time.Time) []time.Duration {
	var out []time.Duration
	for _, s := range strings.Split(strings.TrimSuffix(delta, ";"), ";") {
		if ts, err := strconv.ParseInt(s, 10, 64); err == nil {
			out = append(out, now.Sub(time.Unix(0, ts)))
		}
	}
	return out
}
