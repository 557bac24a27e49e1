package kubernetes

import (
	"context"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/rest"
)

// apiClient is the engine's REST access to Jobs (batch/v1) and Pods (v1).
type apiClient struct {
	batch, core rest.Interface
}

// newScheme knows the two groups the engine uses. It is built when a client is made, never
// at package init: other commands of the binary do not pay for it.
func newScheme() (*runtime.Scheme, error) {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{batchv1.AddToScheme, corev1.AddToScheme} {
		if err := add(scheme); err != nil {
			return nil, err
		}
	}
	metav1.AddToGroupVersion(scheme, corev1.SchemeGroupVersion)
	return scheme, nil
}

func newAPIClient(cfg *rest.Config) (*apiClient, error) {
	scheme, err := newScheme()
	if err != nil {
		return nil, err
	}
	codecs := serializer.NewCodecFactory(scheme).WithoutConversion()
	batchCfg := rest.CopyConfig(cfg)
	batchCfg.APIPath, batchCfg.GroupVersion, batchCfg.NegotiatedSerializer = "/apis", &batchv1.SchemeGroupVersion, codecs
	coreCfg := rest.CopyConfig(cfg)
	coreCfg.APIPath, coreCfg.GroupVersion, coreCfg.NegotiatedSerializer = "/api", &corev1.SchemeGroupVersion, codecs
	for _, c := range []*rest.Config{batchCfg, coreCfg} {
		if c.UserAgent == "" {
			c.UserAgent = "gocodex-fleet"
		}
	}
	batch, err := rest.RESTClientFor(batchCfg)
	if err != nil {
		return nil, err
	}
	core, err := rest.RESTClientFor(coreCfg)
	if err != nil {
		return nil, err
	}
	return &apiClient{batch: batch, core: core}, nil
}

// version asks GET /version: the API server answers and the credentials are accepted.
func (c *apiClient) version(ctx context.Context) error {
	return c.core.Get().AbsPath("/version").Do(ctx).Error()
}

func (c *apiClient) createJob(ctx context.Context, job *batchv1.Job) (*batchv1.Job, error) {
	var out batchv1.Job
	err := c.batch.Post().Namespace(job.Namespace).Resource("jobs").Body(job).Do(ctx).Into(&out)
	return &out, err
}

func (c *apiClient) getJob(ctx context.Context, ns, name string) (*batchv1.Job, error) {
	var out batchv1.Job
	err := c.batch.Get().Namespace(ns).Resource("jobs").Name(name).Do(ctx).Into(&out)
	return &out, err
}

func (c *apiClient) deleteJob(ctx context.Context, ns, name string) error {
	background := metav1.DeletePropagationBackground
	return c.batch.Delete().Namespace(ns).Resource("jobs").Name(name).
		Body(&metav1.DeleteOptions{PropagationPolicy: &background}).Do(ctx).Error()
}

func (c *apiClient) listPods(ctx context.Context, ns, selector string) ([]corev1.Pod, error) {
	var out corev1.PodList
	err := c.core.Get().Namespace(ns).Resource("pods").Param("labelSelector", selector).Do(ctx).Into(&out)
	return out.Items, err
}

func (c *apiClient) deletePod(ctx context.Context, ns, name string) error {
	return c.core.Delete().Namespace(ns).Resource("pods").Name(name).Do(ctx).Error()
}
