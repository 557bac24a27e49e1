package fleet

import (
	"context"
	"errors"
	"io/fs"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// s3Env points the store's environment at a scripted S3 server.
func s3Env(t *testing.T, s3 *tk.S3) {
	t.Helper()
	t.Setenv("AWS_ENDPOINT_URL", "")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", t.TempDir()+"/none")
	for _, kv := range s3.Env() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
}

// TestS3StoreRoundTrip: through minio-go and the scripted server (which checks every
// request's Signature V4), files are written, read, listed one level deep and removed; a
// missing one reads as fs.ErrNotExist.
func TestS3StoreRoundTrip(t *testing.T) {
	s3 := tk.StartS3(t, "results")
	s3Env(t, s3)
	st, err := OpenStore("s3://results/fleet/nightly/")
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Check(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := st.Where("r1/a/status.json"); got != "s3://results/fleet/nightly/r1/a/status.json" {
		t.Fatalf("Where: %s", got)
	}
	for k, v := range map[string]string{"r1/a/status.json": "{}", "r1/a/diff.patch": "diff", "r1/b/final.txt": "done"} {
		if err := st.Write(k, []byte(v)); err != nil {
			t.Fatal(err)
		}
	}
	if data, err := st.Read("r1/a/diff.patch"); err != nil || string(data) != "diff" {
		t.Fatalf("Read: %q %v", data, err)
	}
	if _, err := st.Read("r1/a/nope"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a missing object: %v", err)
	}
	names, err := st.List("r1/a")
	slices.Sort(names)
	if err != nil || !slices.Equal(names, []string{"diff.patch", "status.json"}) {
		t.Fatalf("List: %v %v", names, err)
	}
	if names, err := st.List("r1"); err != nil || len(names) != 0 {
		t.Fatalf("List lists only the files directly under the prefix: %v %v", names, err)
	}
	if err := st.Remove("r1/a/diff.patch"); err != nil {
		t.Fatal(err)
	}
	if err := st.RemoveAll("r1"); err != nil {
		t.Fatal(err)
	}
	if objs := s3.Objects("results"); len(objs) != 0 {
		t.Fatalf("left after RemoveAll: %v", objs)
	}
}

// TestS3RunFiles: a run created in a bucket is loaded back by its --out and by the folder an
// element is given, and its statuses merge as a folder's do.
func TestS3RunFiles(t *testing.T) {
	s3 := tk.StartS3(t, "results")
	s3Env(t, s3)
	r := &Run{ID: "r-1", Name: "r", Engine: "test", Binary: "/bin/gocodex", Tasks: []Task{{ID: "a", Repo: "/repo", Prompt: "p"}}}
	if err := Create("s3://results/out", r); err != nil {
		t.Fatal(err)
	}
	if r.Dir() != "s3://results/out/r-1" || r.LogDir() != "" {
		t.Fatalf("Dir %s, LogDir %q", r.Dir(), r.LogDir())
	}
	s, err := r.NewSubmission([]int{0}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	code := 0
	if err := r.WriteStatus(0, &TaskStatus{ID: "a", State: Succeeded, Submission: s.Seq, ExitCode: &code}); err != nil {
		t.Fatal(err)
	}
	back, err := LoadDir(r.Dir())
	if err != nil {
		t.Fatal(err)
	}
	subs, err := back.Submissions()
	if err != nil || len(subs) != 1 {
		t.Fatalf("submissions: %v %v", subs, err)
	}
	views, err := Merge(back, subs, nil)
	if err != nil || views[0].State != Succeeded {
		t.Fatalf("views: %+v %v", views, err)
	}
	if _, err := Load("s3://results/out", "r-2"); !errors.Is(err, ErrNoRun) {
		t.Fatalf("a run that is not there: %v", err)
	}
	for k := range s3.Objects("results") {
		if !strings.HasPrefix(k, "out/r-1/") {
			t.Errorf("object outside the run's prefix: %s", k)
		}
	}
}

// TestS3BadInput: a malformed URL is refused before anything is reached; a wrong key, a
// missing bucket, an endpoint that does not answer and missing credentials each fail Check
// with an error naming the bucket and the cause.
func TestS3BadInput(t *testing.T) {
	for _, out := range []string{"s3://", "s3:///x", "s3://Bad_Bucket/x", "s3://ab", "s3://b-1/a//b", "s3://b-1/a/../b", "s3:bucket"} {
		if _, err := OpenStore(out); err == nil || !strings.Contains(err.Error(), "--out "+out) {
			t.Errorf("%s: %v", out, err)
		}
	}
	s3 := tk.StartS3(t, "results")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + l.Addr().String()
	l.Close()
	cases := []struct {
		name, out string
		env       map[string]string
		want      []string
	}{
		{"wrong secret", "s3://results", map[string]string{"AWS_SECRET_ACCESS_KEY": "wrong"}, []string{"s3://results", "refused"}},
		{"missing bucket", "s3://elsewhere/p", nil, []string{"s3://elsewhere/p", "does not exist"}},
		{"unreachable", "s3://results", map[string]string{"AWS_ENDPOINT_URL_S3": dead}, []string{"s3://results", "not reachable", dead}},
		{"no credentials", "s3://results", map[string]string{"AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": ""}, []string{"no S3 credentials", "AWS_ACCESS_KEY_ID"}},
		{"bad endpoint", "s3://results", map[string]string{"AWS_ENDPOINT_URL_S3": "ftp://x"}, []string{"AWS_ENDPOINT_URL_S3", "http(s)://HOST"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s3Env(t, s3)
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			st, err := OpenStore(c.out)
			if err != nil {
				t.Fatal(err)
			}
			err = st.Check(context.Background())
			for _, w := range c.want {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("the error should say %q: %v", w, err)
				}
			}
		})
	}
	if objs := s3.Objects("results"); len(objs) != 0 {
		t.Fatalf("bad input wrote objects: %v", objs)
	}
}
