package testkit

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func post(t *testing.T, c *http.Client, url, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer k")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil && !strings.Contains(err.Error(), "unexpected EOF") {
		t.Fatal(err)
	}
	return resp, string(b)
}

func client(t *testing.T) *http.Client {
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

func TestServerPlaysQueueAndRecords(t *testing.T) {
	s := NewServer(t)
	c := client(t)
	s.Enqueue(SSE(Created(), TextDelta("hi"), Completed(Usage{Input: 1, Output: 2})), Status(500), Status429(1500*time.Millisecond))
	resp, body := post(t, c, s.BaseURL()+"/responses", `{"model":"m","n":1}`)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	want := "event: response.created\ndata: {\"response\":{\"id\":\"resp_mock\"},\"type\":\"response.created\"}\n\n" +
		"event: response.output_text.delta\ndata: {\"content_index\":0,\"delta\":\"hi\",\"item_id\":\"msg_mock\",\"output_index\":0,\"type\":\"response.output_text.delta\"}\n\n" +
		"event: response.completed\ndata: {\"response\":{\"id\":\"resp_mock\",\"usage\":{\"input_tokens\":1,\"input_tokens_details\":{\"cached_tokens\":0},\"output_tokens\":2,\"output_tokens_details\":{\"reasoning_tokens\":0},\"total_tokens\":3}},\"type\":\"response.completed\"}\n\n"
	if diff := cmp.Diff(want, body); diff != "" {
		t.Errorf("body (-want +got):\n%s", diff)
	}
	if resp, _ := post(t, c, s.BaseURL()+"/responses", `{}`); resp.StatusCode != 500 {
		t.Errorf("second status %d", resp.StatusCode)
	}
	resp, body = post(t, c, s.BaseURL()+"/responses", `{}`)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "1.5" || !strings.Contains(body, "try again in 1.5s") {
		t.Errorf("429: %d %q %q", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	// Other paths are answered 404 and recorded apart.
	if resp, _ := post(t, c, s.URL()+"/v1/models", ``); resp.StatusCode != 404 {
		t.Errorf("models status %d", resp.StatusCode)
	}
	reqs := s.Requests()
	if len(reqs) != 3 || len(s.AllRequests()) != 4 {
		t.Fatalf("%d responses requests, %d in all", len(reqs), len(s.AllRequests()))
	}
	if reqs[0].Path != "/v1/responses" || reqs[0].Header.Get("Authorization") != "Bearer k" ||
		string(reqs[0].Body) != `{"model":"m","n":1}` || reqs[0].JSON["model"] != "m" {
		t.Errorf("recorded %+v", reqs[0])
	}
}

func TestCutAndStall(t *testing.T) {
	s := NewServer(t)
	c := client(t)
	evs := Events{Created(), TextDelta("a"), TextDelta("b"), Completed(Usage{})}
	s.Enqueue(Cut(2, evs), Response{Events: evs, CutAfter: ptrInt(1), Abort: true})
	_, body := post(t, c, s.BaseURL()+"/responses", `{}`)
	if strings.Count(body, "event: ") != 2 || strings.Contains(body, "completed") {
		t.Errorf("cut body %q", body)
	}
	req, _ := http.NewRequest(http.MethodPost, s.BaseURL()+"/responses", nil)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.ReadAll(resp.Body)
	resp.Body.Close()
	if err == nil {
		t.Error("aborted stream read without error")
	}

	// A stall blocks until the client gives up.
	s.Enqueue(Stall(1, evs))
	ctx, cancel := context.WithCancel(context.Background())
	req, _ = http.NewRequestWithContext(ctx, http.MethodPost, s.BaseURL()+"/responses", nil)
	resp, err = c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil || line != "event: response.created\n" {
		t.Fatalf("first line %q %v", line, err)
	}
	cancel()
	resp.Body.Close()
}

func TestStallUnblocksOnClose(t *testing.T) {
	s := newServer(t)
	c := client(t)
	s.Enqueue(Stall(0))
	resp, err := c.Post(s.BaseURL()+"/responses", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	s.Close() // must not hang on the stalled handler
	s.Close()
}

func TestDefaultAndLoop(t *testing.T) {
	s := NewServer(t)
	c := client(t)
	s.Loop(Status(502), Status(503))
	var got []int
	for range 3 {
		resp, _ := post(t, c, s.BaseURL()+"/responses", `{}`)
		got = append(got, resp.StatusCode)
	}
	if diff := cmp.Diff([]int{502, 503, 502}, got); diff != "" {
		t.Error(diff)
	}
	s2 := NewServer(t)
	s2.SetDefault(Status(500))
	if resp, _ := post(t, c, s2.BaseURL()+"/responses", `{}`); resp.StatusCode != 500 {
		t.Errorf("default %d", resp.StatusCode)
	}
}

type recordingTB struct {
	errs []string
}

func (r *recordingTB) Helper()                      {}
func (r *recordingTB) Errorf(f string, args ...any) { r.errs = append(r.errs, f) }
func (r *recordingTB) Cleanup(func())               {}

func TestUnscriptedRequestFailsTheTest(t *testing.T) {
	rec := &recordingTB{}
	s := newServer(rec)
	defer s.Close()
	if resp, _ := post(t, client(t), s.BaseURL()+"/responses", `{}`); resp.StatusCode != 500 {
		t.Errorf("status %d", resp.StatusCode)
	}
	if len(rec.errs) != 1 {
		t.Errorf("errors %v", rec.errs)
	}
}

func TestWriteConfig(t *testing.T) {
	home := t.TempDir()
	path := WriteConfig(t, home, "http://127.0.0.1:1234", ConfigOptions{StreamMaxRetries: Int(1), StreamIdleTimeoutMS: Int(500), RequestMaxRetries: Int(0)})
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "config.toml")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("config.toml (-want +got):\n%s", diff)
	}
}

func TestStandaloneRejectsNonLoopback(t *testing.T) {
	if _, err := NewStandaloneServer("0.0.0.0:0"); err == nil {
		t.Fatal("accepted a non-loopback address")
	}
}

// TestMockmodelCommand builds and runs cmd/mockmodel the way benchmarks and the reference
// comparisons use it.
func TestMockmodelCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	bin := filepath.Join(t.TempDir(), "mockmodel")
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd/mockmodel").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	home := t.TempDir()
	cmd := exec.Command(bin, "-script", "testdata/scripts/plain.json", "-addr", "127.0.0.1:0", "-codex-home", home)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	}()
	url, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	url = strings.TrimSpace(url)
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("url %q", url)
	}
	_, body := post(t, client(t), url+"/v1/responses", `{}`)
	if !strings.Contains(body, "Hello") || !strings.Contains(body, "response.completed") {
		t.Errorf("body %q", body)
	}
	cfg, err := os.ReadFile(filepath.Join(home, "config.toml"))
	if err != nil || !strings.Contains(string(cfg), url+"/v1") {
		t.Errorf("config %q %v", cfg, err)
	}
}

func ptrInt(v int) *int { return &v }

func TestAwaitRequestsAndInputHelpers(t *testing.T) {
	s := NewServer(t)
	s.Enqueue(SSE(Completed(Usage{})))
	done := make(chan struct{})
	c := client(t)
	go func() {
		defer close(done)
		resp, err := c.Post(s.BaseURL()+"/responses", "application/json", strings.NewReader(`{"input":[`+
			`{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]},`+
			`{"type":"function_call_output","call_id":"c1","output":"ok"}]}`))
		if err != nil {
			t.Error(err)
			return
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second) // hang guard only
	defer cancel()
	reqs, err := s.AwaitRequests(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	<-done
	if out, ok := reqs[0].ToolOutput("c1"); !ok || out != "ok" {
		t.Errorf("ToolOutput = %v, %v", out, ok)
	}
	if diff := cmp.Diff([]string{"hi"}, reqs[0].MessageTexts("user")); diff != "" {
		t.Error(diff)
	}
}
