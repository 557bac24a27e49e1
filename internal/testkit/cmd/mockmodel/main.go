// Command mockmodel runs the scripted Responses server as a process, for benchmarks and for
// comparing gocodex with the reference Codex binary on the same script.
//
//	go run ./internal/testkit/cmd/mockmodel -script FILE [-addr 127.0.0.1:0] [-codex-home DIR]
//
// It prints the server URL (http://127.0.0.1:PORT) on the first line of stdout, then serves
// until interrupted. With -codex-home it also writes DIR/config.toml pointing at itself
// (-idle-timeout-ms, -stream-max-retries, -request-max-retries, -model tune it). Ready-made
// scripts live in internal/testkit/testdata/scripts.
// With -log it prints one JSON line per request (method, path, body) to stderr.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/gocodex/gocodex/internal/testkit"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	fs := flag.NewFlagSet("mockmodel", flag.ContinueOnError)
	script := fs.String("script", "", "JSON script of responses (see testkit.Script)")
	addr := fs.String("addr", "127.0.0.1:0", "loopback address to listen on")
	home := fs.String("codex-home", "", "write a config.toml for the mock provider into this directory")
	logReq := fs.Bool("log", false, "log each request to stderr as JSON")
	idle := fs.Int("idle-timeout-ms", -1, "with -codex-home: stream_idle_timeout_ms of the mock provider")
	streamRetries := fs.Int("stream-max-retries", -1, "with -codex-home: stream_max_retries of the mock provider")
	requestRetries := fs.Int("request-max-retries", -1, "with -codex-home: request_max_retries of the mock provider")
	model := fs.String("model", "", "with -codex-home: the model slug (default gpt-5.5)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	srv, err := testkit.NewStandaloneServer(*addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mockmodel:", err)
		return 1
	}
	defer srv.Close()
	if *script != "" {
		sc, err := testkit.LoadScript(*script)
		if err != nil {
			fmt.Fprintln(os.Stderr, "mockmodel:", err)
			return 1
		}
		sc.Apply(srv)
	}
	if *home != "" {
		o := testkit.ConfigOptions{Model: *model}
		if *idle >= 0 {
			o.StreamIdleTimeoutMS = testkit.Int(*idle)
		}
		if *streamRetries >= 0 {
			o.StreamMaxRetries = testkit.Int(*streamRetries)
		}
		if *requestRetries >= 0 {
			o.RequestMaxRetries = testkit.Int(*requestRetries)
		}
		if _, err := testkit.WriteConfigFile(*home, srv.URL(), o); err != nil {
			fmt.Fprintln(os.Stderr, "mockmodel:", err)
			return 1
		}
	}
	fmt.Println(srv.URL())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *logReq {
		go logRequests(ctx, srv)
	}
	<-ctx.Done()
	return 0
}

func logRequests(ctx context.Context, srv *testkit.Server) {
	seen := 0
	enc := json.NewEncoder(os.Stderr)
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		reqs := srv.AllRequests()
		for _, r := range reqs[seen:] {
			enc.Encode(map[string]any{"at": r.At.Format(time.RFC3339Nano), "method": r.Method, "path": r.Path, "headers": r.Header, "body": json.RawMessage(orNull(r.Body))})
		}
		seen = len(reqs)
	}
}

func orNull(b []byte) []byte {
	if json.Valid(b) {
		return b
	}
	q, _ := json.Marshal(string(b))
	return q
}
