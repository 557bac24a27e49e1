package kubernetes

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/gocodex/gocodex/internal/fleet"
)

// scriptedAPI is a scripted Kubernetes API server (the remote service): it keeps the Jobs
// created, answers their status as the test sets it, lists the pods the test sets, and
// records deletions.
type scriptedAPI struct {
	mu      sync.Mutex
	jobs    map[string]*batchv1.Job
	pods    []corev1.Pod
	deleted []string
	auth    []string
}

func (a *scriptedAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.auth = append(a.auth, r.Header.Get("Authorization"))
	reply := func(code int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		json.NewEncoder(w).Encode(v)
	}
	notFound := func(kind, name string) {
		reply(404, metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: "Failure",
			Reason: metav1.StatusReasonNotFound, Code: 404, Message: kind + " " + name + " not found",
			Details: &metav1.StatusDetails{Name: name, Kind: kind}})
	}
	const jobs = "/apis/batch/v1/namespaces/agents/jobs"
	switch {
	case r.URL.Path == "/version":
		reply(200, map[string]string{"major": "1", "minor": "33", "gitVersion": "v1.33.0"})
	case r.Method == "POST" && r.URL.Path == jobs:
		var job batchv1.Job
		if err := json.NewDecoder(r.Body).Decode(&job); err != nil {
			reply(400, metav1.Status{Status: "Failure", Message: err.Error(), Code: 400})
			return
		}
		a.jobs[job.Name] = &job
		reply(201, &job)
	case r.Method == "GET" && strings.HasPrefix(r.URL.Path, jobs+"/"):
		name := strings.TrimPrefix(r.URL.Path, jobs+"/")
		if job, ok := a.jobs[name]; ok {
			reply(200, job)
		} else {
			notFound("jobs", name)
		}
	case r.Method == "DELETE" && strings.HasPrefix(r.URL.Path, jobs+"/"):
		name := strings.TrimPrefix(r.URL.Path, jobs+"/")
		a.deleted = append(a.deleted, "job/"+name)
		delete(a.jobs, name)
		reply(200, metav1.Status{Status: "Success"})
	case r.Method == "GET" && r.URL.Path == "/api/v1/namespaces/agents/pods":
		sel := r.URL.Query().Get("labelSelector")
		list := corev1.PodList{TypeMeta: metav1.TypeMeta{Kind: "PodList", APIVersion: "v1"}}
		for _, p := range a.pods {
			if matches(p.Labels, sel) {
				list.Items = append(list.Items, p)
			}
		}
		reply(200, list)
	case r.Method == "DELETE" && strings.HasPrefix(r.URL.Path, "/api/v1/namespaces/agents/pods/"):
		a.deleted = append(a.deleted, "pod/"+strings.TrimPrefix(r.URL.Path, "/api/v1/namespaces/agents/pods/"))
		reply(200, metav1.Status{Status: "Success"})
	default:
		reply(404, metav1.Status{Status: "Failure", Code: 404, Message: r.Method + " " + r.URL.Path})
	}
}

func matches(labels map[string]string, selector string) bool {
	for _, term := range strings.Split(selector, ",") {
		k, v, _ := strings.Cut(term, "=")
		if labels[k] != v {
			return false
		}
	}
	return true
}

func pod(job string, index int, phase corev1.PodPhase) corev1.Pod {
	i := string(rune('0' + index))
	return corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: job + "-" + i,
		Labels:      map[string]string{batchv1.JobNameLabel: job, batchv1.JobCompletionIndexAnnotation: i},
		Annotations: map[string]string{batchv1.JobCompletionIndexAnnotation: i}},
		Status: corev1.PodStatus{Phase: phase}}
}

// TestEngineThroughTheSharedLogic drives fleet.Start, Status, Cancel and Retry through the
// engine against a scripted API server: one Indexed Job for the run, states from its status
// and pods, a retry as a Job of only the failed task, the credentials never in a manifest.
func TestEngineThroughTheSharedLogic(t *testing.T) {
	api := &scriptedAPI{jobs: map[string]*batchv1.Job{}}
	srv := httptest.NewServer(api)
	defer srv.Close()
	o := Options{Namespace: "agents", Image: "img", Claim: "results", Secret: "creds"}
	eng, err := NewWithConfig(o, &rest.Config{Host: srv.URL, BearerToken: "cluster-token"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	out := t.TempDir()
	r := &fleet.Run{ID: "k-1", Name: "k", Engine: "kubernetes", EngineOptions: o.Map(), Binary: "gocodex", Parallel: 2}
	for _, id := range []string{"a", "b", "c"} {
		r.Tasks = append(r.Tasks, fleet.Task{ID: id, Repo: "https://example.com/" + id, Prompt: "p"})
	}
	if err := fleet.Start(ctx, eng, out, r); err != nil {
		t.Fatal(err)
	}
	job := api.jobs["gocodex-k-1-1"]
	if job == nil || *job.Spec.Completions != 3 || *job.Spec.Parallelism != 2 {
		t.Fatalf("jobs: %v", api.jobs)
	}
	if api.auth[0] != "Bearer cluster-token" {
		t.Fatalf("the kubeconfig's credentials were not used: %q", api.auth)
	}

	// a done, b running, c not started.
	job.Status.CompletedIndexes = "0"
	api.pods = []corev1.Pod{pod(job.Name, 1, corev1.PodRunning)}
	views, err := fleet.Status(ctx, eng, r)
	if err != nil {
		t.Fatal(err)
	}
	if got := fleet.CountLine(views); got != "1 succeeded, 1 running, 1 pending" {
		t.Fatalf("status: %s", got)
	}
	if err := fleet.Cancel(ctx, eng, r, []string{"b"}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(api.deleted, []string{"pod/" + job.Name + "-1"}) {
		t.Fatalf("cancel b deleted %v, want b's pod alone", api.deleted)
	}
	if err := fleet.Cancel(ctx, eng, r, []string{"c"}); err == nil || !strings.Contains(err.Error(), "has not started") {
		t.Fatalf("cancelling an index not started: %v", err)
	}

	// b's index failed (the cancel), c succeeded: the retry is a Job of b alone.
	failed := "1"
	job.Status.CompletedIndexes, job.Status.FailedIndexes = "0,2", &failed
	job.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobFailed, Status: corev1.ConditionTrue}}
	api.pods = nil
	sub, err := fleet.Retry(ctx, eng, r)
	if err != nil {
		t.Fatal(err)
	}
	retry := api.jobs["gocodex-k-1-2"]
	if sub == nil || !slices.Equal(sub.Tasks, []int{1}) || retry == nil || *retry.Spec.Completions != 1 {
		t.Fatalf("retry: %+v, job %v", sub, retry)
	}
	cmd := strings.Join(retry.Spec.Template.Spec.Containers[0].Command, " ")
	if !strings.Contains(cmd, "--submission 2 --element $(GOCODEX_FLEET_ELEMENT)") {
		t.Fatalf("retry command: %s", cmd)
	}

	// The whole run cancelled: both Jobs deleted.
	api.deleted = nil
	if err := fleet.Cancel(ctx, eng, r, nil); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(api.deleted, "job/gocodex-k-1-2") {
		t.Fatalf("cancel deleted %v", api.deleted)
	}
	for _, j := range []*batchv1.Job{job, retry} {
		data, _ := json.Marshal(j)
		if strings.Contains(string(data), "cluster-token") {
			t.Fatalf("a credential is in the Job: %s", data)
		}
	}
	manifests, _ := filepath.Glob(filepath.Join(out, "k-1", ".fleet", "*", "*"))
	for _, m := range manifests {
		if data, _ := os.ReadFile(m); strings.Contains(string(data), "cluster-token") {
			t.Fatalf("a credential is in %s", m)
		}
	}
}

// TestUnreachableEngineSubmitsNothing: an API server that does not answer fails the run
// before any folder is made.
func TestUnreachableEngineSubmitsNothing(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	eng, err := NewWithConfig(Options{Image: "i", Claim: "c"}, &rest.Config{Host: srv.URL, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	r := &fleet.Run{ID: "k-2", Binary: "gocodex", Tasks: []fleet.Task{{ID: "a", Repo: "r", Prompt: "p"}}}
	err = fleet.Start(context.Background(), eng, out, r)
	if err == nil || !strings.Contains(err.Error(), "engine kubernetes is not reachable") {
		t.Fatalf("err = %v", err)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Fatalf("a run folder was made: %v", entries)
	}
}
