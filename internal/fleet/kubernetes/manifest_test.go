package kubernetes

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"sigs.k8s.io/yaml"

	"github.com/gocodex/gocodex/internal/fleet"
)

var update = flag.Bool("update", false, "rewrite the golden manifests")

func goldenRun() *fleet.Run {
	r := &fleet.Run{ID: "Nightly_Migrations-20260101-000000-abcd", Name: "Nightly_Migrations", Engine: "kubernetes",
		Created: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Parallel: 8, Binary: "/usr/local/bin/gocodex"}
	for i := 0; i < 20; i++ {
		r.Tasks = append(r.Tasks, fleet.Task{ID: "t" + string(rune('a'+i)), Repo: "https://example.com/r.git", Prompt: "p"})
	}
	if err := r.SetDir("/shared/fleet"); err != nil {
		panic(err)
	}
	return r
}

// TestJobGolden: the Job of a first submission and of a retry, against testdata; each golden
// file decodes strictly into the API types, through a scheme as the API server's clients do.
func TestJobGolden(t *testing.T) {
	o := Options{Namespace: "agents", Image: "registry.example.com/gocodex:1.0", Claim: "fleet-results",
		Secret: "openai-credentials", BackoffPerIndex: 1}
	r := goldenRun()
	all := make([]int, len(r.Tasks))
	for i := range all {
		all[i] = i
	}
	cases := map[string]*fleet.Submission{
		"job-first.yaml": {Seq: 1, Tasks: all},
		"job-retry.yaml": {Seq: 2, Tasks: []int{3, 17}},
	}
	for name, s := range cases {
		t.Run(name, func(t *testing.T) {
			job := checkGolden(t, name, Job(o, r, s))
			spec := job.Spec
			n := int32(len(s.Tasks))
			parallel := min(n, 8)
			if *spec.CompletionMode != batchv1.IndexedCompletion || *spec.Completions != n || *spec.Parallelism != parallel ||
				*spec.BackoffLimitPerIndex != 1 || spec.Template.Spec.RestartPolicy != "Never" {
				t.Fatalf("spec: %+v", spec)
			}
			if len(job.Name) > 63 || strings.ToLower(job.Name) != job.Name {
				t.Fatalf("name %q is not a DNS label", job.Name)
			}
			c := spec.Template.Spec.Containers[0]
			if c.EnvFrom[0].SecretRef.Name != "openai-credentials" || c.VolumeMounts[0].MountPath != "/shared/fleet" {
				t.Fatalf("container: %+v", c)
			}
		})
	}
}

// TestJobGoldenBucket: with an s3:// --out the pods mount no claim; the keys come from the
// Secret, the endpoint is a plain variable.
func TestJobGoldenBucket(t *testing.T) {
	t.Setenv("AWS_SECRET_ACCESS_KEY", "s3-secret")
	o := Options{Namespace: "agents", Image: "registry.example.com/gocodex:1.0", Secret: "fleet-credentials",
		Bucket: true, S3Endpoint: "https://s3.example.com"}
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	r := goldenRun()
	if err := r.SetDir("s3://results/fleet"); err != nil {
		t.Fatal(err)
	}
	job := checkGolden(t, "job-bucket.yaml", Job(o, r, &fleet.Submission{Seq: 1, Tasks: []int{0, 1, 2}}))
	spec := job.Spec.Template.Spec
	c := spec.Containers[0]
	if len(spec.Volumes) != 0 || len(c.VolumeMounts) != 0 || c.EnvFrom[0].SecretRef.Name != "fleet-credentials" ||
		!slices.Contains(c.Command, "s3://results/fleet/"+r.ID) {
		t.Fatalf("pod: %+v", spec)
	}
	if c.Env[1].Name != fleet.EndpointEnv || c.Env[1].Value != "https://s3.example.com" {
		t.Fatalf("env: %+v", c.Env)
	}
	for _, bad := range []Options{{Image: "i", Bucket: true, Secret: "s", Claim: "c"}, {Image: "i", Bucket: true}} {
		if err := bad.Validate(); err == nil {
			t.Errorf("%+v: accepted", bad)
		}
	}
}

// checkGolden compares the Job's manifest with testdata/name (-update rewrites it) and
// decodes it strictly into the API types, through a scheme as the API server's clients do.
func checkGolden(t *testing.T, name string, j *batchv1.Job) *batchv1.Job {
	t.Helper()
	got, err := Manifest(j)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -run TestJobGolden -update writes it)", err)
	}
	if string(got) != string(want) {
		t.Fatalf("the manifest changed (-update rewrites %s):\n%s", path, got)
	}
	if strings.Contains(string(got), "s3-secret") {
		t.Fatal("a secret is in the manifest")
	}
	var strict batchv1.Job
	if err := yaml.UnmarshalStrict(want, &strict); err != nil {
		t.Fatalf("not a Job of the API types: %v", err)
	}
	scheme, err := newScheme()
	if err != nil {
		t.Fatal(err)
	}
	obj, gvk, err := serializer.NewCodecFactory(scheme, serializer.EnableStrict).UniversalDeserializer().Decode(want, nil, nil)
	if err != nil {
		t.Fatalf("the scheme does not decode it: %v", err)
	}
	job, ok := obj.(*batchv1.Job)
	if !ok || gvk.Kind != "Job" || gvk.Group != "batch" || gvk.Version != "v1" {
		t.Fatalf("decoded %T %v", obj, gvk)
	}
	return job
}

func TestDNSName(t *testing.T) {
	r := goldenRun()
	r.ID = strings.Repeat("Long.Name_", 10)
	name := JobName(r, &fleet.Submission{Seq: 12})
	if len(name) > 63 || !strings.HasSuffix(name, "-12") || strings.ContainsAny(name, "._LN") {
		t.Fatalf("JobName = %q", name)
	}
}
