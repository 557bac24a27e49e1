package main

import (
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// stampServer is testkit.StampServer as a standalone loopback server: every text delta carries
// the time it was written ("<unix nanos>;"), so the client measures each delta's way from the
// model to itself; each response streams deltas deltas, gap apart.
type stampServer struct {
	srv *http.Server
	url string
}

func newStampServer(deltas int, gap time.Duration) (*stampServer, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	write := func(w http.ResponseWriter, e tk.Event) {
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", e.Type, e.Data)
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/responses") {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fl := w.(http.Flusher)
		write(w, tk.Created())
		write(w, tk.AssistantMessageStream("msg_1")[0])
		fl.Flush()
		var all strings.Builder
		for i := 0; i < deltas; i++ {
			if i > 0 {
				time.Sleep(gap)
			}
			d := strconv.FormatInt(time.Now().UnixNano(), 10) + ";"
			all.WriteString(d)
			write(w, tk.TextDelta(d))
			fl.Flush()
			if r.Context().Err() != nil {
				return
			}
		}
		write(w, tk.AssistantMessage("msg_1", all.String()))
		write(w, tk.Completed(tk.Usage{Input: 10, Output: int64(deltas), Total: 10 + int64(deltas)}))
		fl.Flush()
	})
	s := &stampServer{srv: &http.Server{Handler: h}, url: "http://" + l.Addr().String()}
	go s.srv.Serve(l)
	return s, nil
}

func (s *stampServer) URL() string { return s.url }
func (s *stampServer) Close()      { s.srv.Close() }
