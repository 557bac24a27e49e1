// Package kubernetes is the fleet's Kubernetes engine: a run's submission is one Indexed Job
// (completions n, parallelism N, a backoff limit per index) built with the official API
// types and submitted through client-go with the user's kubeconfig. Its pods run the same
// gocodex binary, from the user's image; the results folder is a PersistentVolumeClaim
// mounted at the same path; the credentials come from a Secret the Job references.
package kubernetes

import (
	"fmt"
	"strconv"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/gocodex/gocodex/internal/fleet"
)

// Options are the engine's flags.
type Options struct {
	Namespace string
	// Image holds the gocodex binary (run as Run.Binary) and git.
	Image string
	// Claim is the PersistentVolumeClaim holding the results folder, mounted at its path.
	Claim string
	// Secret is the Secret whose keys become the tasks' environment (OPENAI_API_KEY...).
	Secret string
	// BackoffPerIndex is how many times a failed index is retried (a cancelled one never).
	BackoffPerIndex int
	// Kubeconfig is the kubeconfig file ("": KUBECONFIG, then ~/.kube/config); Context its
	// context ("": the current one).
	Kubeconfig, Context string
	// Bucket: --out is an s3:// bucket, which the pods reach through the Secret's AWS keys;
	// S3Endpoint, when set, is its endpoint (not a secret: a plain variable of the pods).
	Bucket     bool
	S3Endpoint string
}

// FromMap reads the options as run.json keeps them.
func FromMap(m map[string]string) Options {
	backoff, _ := strconv.Atoi(m["backoff_per_index"])
	return Options{Namespace: m["namespace"], Image: m["image"], Claim: m["claim"], Secret: m["secret"],
		BackoffPerIndex: backoff, Kubeconfig: m["kubeconfig"], Context: m["context"],
		Bucket: m["bucket"] == "true", S3Endpoint: m["s3_endpoint"]}
}

// Map is the options as run.json keeps them (names only: no secret value is ever held).
func (o Options) Map() map[string]string {
	m := map[string]string{"namespace": o.Namespace, "image": o.Image, "claim": o.Claim, "secret": o.Secret,
		"backoff_per_index": strconv.Itoa(o.BackoffPerIndex), "kubeconfig": o.Kubeconfig, "context": o.Context,
		"s3_endpoint": o.S3Endpoint}
	if o.Bucket {
		m["bucket"] = "true"
	}
	for k, v := range m {
		if v == "" {
			delete(m, k)
		}
	}
	return m
}

// Validate checks what a Job needs.
func (o Options) Validate() error {
	switch {
	case o.Image == "":
		return fmt.Errorf("engine kubernetes needs --image: an image holding gocodex and git")
	case o.Bucket && o.Claim != "":
		return fmt.Errorf("--claim mounts a folder --out; with an s3:// --out the pods write to the bucket: drop --claim")
	case o.Bucket && o.Secret == "":
		return fmt.Errorf("engine kubernetes with an s3:// --out needs --secret: a Secret holding AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and the model's key)")
	case !o.Bucket && o.Claim == "":
		return fmt.Errorf("engine kubernetes needs --claim: the PersistentVolumeClaim holding the --out folder, mounted in every pod at the same path")
	case o.BackoffPerIndex < 0:
		return fmt.Errorf("--backoff-per-index must be 0 or more")
	}
	return nil
}

// Labels on every Job and pod of a run.
const (
	RunLabel        = "gocodex.dev/fleet-run"
	SubmissionLabel = "gocodex.dev/fleet-submission"
	container       = "task"
	elementEnv      = "GOCODEX_FLEET_ELEMENT"
)

// dnsName makes s a DNS-1123 label of at most max characters.
func dnsName(s string, max int) string {
	s = strings.Map(func(c rune) rune {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' {
			return c
		}
		return '-'
	}, strings.ToLower(s))
	if len(s) > max {
		s = s[:max]
	}
	return strings.Trim(s, "-")
}

// JobName is the name of a submission's Job (a label value and a DNS label: at most 63).
func JobName(r *fleet.Run, s *fleet.Submission) string {
	suffix := "-" + strconv.Itoa(s.Seq)
	return dnsName("gocodex-"+r.ID, 63-len(suffix)) + suffix
}

// Job is the Indexed Job of a submission: index e runs task s.Tasks[e].
func Job(o Options, r *fleet.Run, s *fleet.Submission) *batchv1.Job {
	n := int32(len(s.Tasks))
	parallel := n
	if r.Parallel > 0 && int32(r.Parallel) < n {
		parallel = int32(r.Parallel)
	}
	name := JobName(r, s)
	labels := map[string]string{RunLabel: dnsName(r.ID, 63), SubmissionLabel: strconv.Itoa(s.Seq)}
	indexed := batchv1.IndexedCompletion
	backoff := int32(o.BackoffPerIndex)
	never := false
	c := corev1.Container{
		Name:    container,
		Image:   o.Image,
		Command: fleet.ElementCommand(r, s, "$("+elementEnv+")", name+"/$("+elementEnv+")"),
		Env: []corev1.EnvVar{{Name: elementEnv, ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{
			FieldPath: "metadata.annotations['" + batchv1.JobCompletionIndexAnnotation + "']"}}}},
	}
	var volumes []corev1.Volume
	if out, local := r.Store().LocalPath(""); local {
		c.VolumeMounts = []corev1.VolumeMount{{Name: "out", MountPath: out}}
		volumes = []corev1.Volume{{Name: "out", VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: o.Claim}}}}
	} else if o.S3Endpoint != "" {
		c.Env = append(c.Env, corev1.EnvVar{Name: fleet.EndpointEnv, Value: o.S3Endpoint})
	}
	if o.Secret != "" {
		c.EnvFrom = []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: o.Secret}}}}
	}
	return &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: o.Namespace, Labels: labels},
		Spec: batchv1.JobSpec{
			CompletionMode:       &indexed,
			Completions:          &n,
			Parallelism:          &parallel,
			BackoffLimitPerIndex: &backoff,
			// A cancelled element (its pod deleted) fails its index at once, never retried.
			PodFailurePolicy: &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{
				Action: batchv1.PodFailurePolicyActionFailIndex,
				OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{
					ContainerName: ptr(container), Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{fleet.CancelledExitCode}},
			}}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					RestartPolicy:                corev1.RestartPolicyNever,
					AutomountServiceAccountToken: &never,
					Containers:                   []corev1.Container{c},
					Volumes:                      volumes,
				},
			},
		},
	}
}

// Manifest is the Job as YAML (fleet run --dry-run).
func Manifest(job *batchv1.Job) ([]byte, error) {
	return yaml.Marshal(job)
}

func ptr[T any](v T) *T { return &v }
