package kubernetes

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/gocodex/gocodex/internal/fleet"
)

// Engine submits Jobs to the cluster of the user's kubeconfig. It talks to the API server
// with client-go's REST client and a scheme of the two API groups it uses (batch/v1, v1):
// the generated clientset would link every API group into the binary (+37 MB).
type Engine struct {
	opts Options
	// api is made on first use from the kubeconfig (tests give one to a scripted server).
	api *apiClient
}

// New returns the engine; it reads no kubeconfig yet.
func New(o Options) *Engine { return &Engine{opts: o} }

// NewWithConfig is New with the REST configuration given (tests: a scripted API server).
func NewWithConfig(o Options, cfg *rest.Config) (*Engine, error) {
	api, err := newAPIClient(cfg)
	if err != nil {
		return nil, err
	}
	return &Engine{opts: o, api: api}, nil
}

// Name is "kubernetes".
func (*Engine) Name() string { return "kubernetes" }

func (e *Engine) client() (*apiClient, error) {
	if e.api != nil {
		return e.api, nil
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = e.opts.Kubeconfig
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: e.opts.Context})
	cfg, err := cc.ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("engine kubernetes is not reachable: the kubeconfig: %w", err)
	}
	if e.opts.Namespace == "" {
		if e.opts.Namespace, _, err = cc.Namespace(); err != nil {
			return nil, fmt.Errorf("engine kubernetes: the kubeconfig's namespace: %w", err)
		}
	}
	if e.api, err = newAPIClient(cfg); err != nil {
		return nil, fmt.Errorf("engine kubernetes: %w", err)
	}
	return e.api, nil
}

func (e *Engine) namespace() string {
	if e.opts.Namespace == "" {
		return "default"
	}
	return e.opts.Namespace
}

// Check validates the options and asks the API server its version.
func (e *Engine) Check(ctx context.Context) error {
	if err := e.opts.Validate(); err != nil {
		return err
	}
	c, err := e.client()
	if err != nil {
		return err
	}
	if err := c.version(ctx); err != nil {
		return fmt.Errorf("engine kubernetes is not reachable: %w", err)
	}
	return nil
}

// Submit creates the submission's Job.
func (e *Engine) Submit(ctx context.Context, r *fleet.Run, s *fleet.Submission) (string, error) {
	c, err := e.client()
	if err != nil {
		return "", err
	}
	job := Job(e.opts, r, s)
	job.Namespace = e.namespace()
	created, err := c.createJob(ctx, job)
	if err != nil {
		return "", err
	}
	return created.Name, nil
}

// States reads the Job's completed and failed indexes and its pods: a deleted Job has none.
func (e *Engine) States(ctx context.Context, jobID string) (map[int]fleet.State, error) {
	c, err := e.client()
	if err != nil {
		return nil, err
	}
	job, err := c.getJob(ctx, e.namespace(), jobID)
	if apierrors.IsNotFound(err) {
		return map[int]fleet.State{}, nil
	}
	if err != nil {
		return nil, err
	}
	pods, err := c.listPods(ctx, e.namespace(), batchv1.JobNameLabel+"="+jobID)
	if err != nil {
		return nil, err
	}
	return JobStates(job, pods)
}

// JobStates merges a Job's status and its pods into element states: completed and failed
// indexes from the status, running or pending from the live pods, pending for the indexes
// not started while the Job is not finished.
func JobStates(job *batchv1.Job, pods []corev1.Pod) (map[int]fleet.State, error) {
	states := map[int]fleet.State{}
	finished := false
	for _, cond := range job.Status.Conditions {
		if (cond.Type == batchv1.JobComplete || cond.Type == batchv1.JobFailed) && cond.Status == corev1.ConditionTrue {
			finished = true
		}
	}
	if !finished && job.Spec.Completions != nil {
		for i := 0; i < int(*job.Spec.Completions); i++ {
			states[i] = fleet.Pending
		}
	}
	for _, p := range pods {
		i, err := strconv.Atoi(p.Annotations[batchv1.JobCompletionIndexAnnotation])
		if err != nil || p.DeletionTimestamp != nil {
			continue
		}
		switch p.Status.Phase {
		case corev1.PodRunning:
			states[i] = fleet.Running
		case corev1.PodPending:
			states[i] = fleet.Pending
		}
	}
	done, err := fleet.ParseIndexList(job.Status.CompletedIndexes)
	if err != nil {
		return nil, fmt.Errorf("job %s: completedIndexes %q: %w", job.Name, job.Status.CompletedIndexes, err)
	}
	for _, i := range done {
		states[i] = fleet.Succeeded
	}
	if job.Status.FailedIndexes != nil {
		failed, err := fleet.ParseIndexList(*job.Status.FailedIndexes)
		if err != nil {
			return nil, fmt.Errorf("job %s: failedIndexes %q: %w", job.Name, *job.Status.FailedIndexes, err)
		}
		for _, i := range failed {
			states[i] = fleet.Failed
		}
	}
	return states, nil
}

// Cancel deletes the Job (all elements) or the pods of the given indexes: their element
// ends with the cancelled exit code, which the Job's pod failure policy does not retry.
// An index whose pod does not exist yet cannot be stopped alone: Kubernetes has no way to
// skip one index of a Job.
func (e *Engine) Cancel(ctx context.Context, jobID string, elements []int) error {
	c, err := e.client()
	if err != nil {
		return err
	}
	if elements == nil {
		err := c.deleteJob(ctx, e.namespace(), jobID)
		if apierrors.IsNotFound(err) {
			return nil
		}
		return err
	}
	var missing []string
	for _, el := range elements {
		sel := batchv1.JobNameLabel + "=" + jobID + "," + batchv1.JobCompletionIndexAnnotation + "=" + strconv.Itoa(el)
		pods, err := c.listPods(ctx, e.namespace(), sel)
		if err != nil {
			return err
		}
		if len(pods) == 0 {
			missing = append(missing, strconv.Itoa(el))
		}
		for _, p := range pods {
			if err := c.deletePod(ctx, e.namespace(), p.Name); err != nil && !apierrors.IsNotFound(err) {
				return err
			}
		}
	}
	if len(missing) > 0 {
		return errors.New("index " + strings.Join(missing, ", ") + " has not started: Kubernetes cannot skip one index of a Job; cancel the whole run, or wait")
	}
	return nil
}
