package fleet

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// The environment an S3 store reads: the standard AWS variables, so that the same settings
// reach the tasks through the engine's exported environment (never their command lines).
const (
	// EndpointEnv overrides the endpoint for S3 alone; AWS_ENDPOINT_URL for every service.
	EndpointEnv        = "AWS_ENDPOINT_URL_S3"
	endpointEnvGeneral = "AWS_ENDPOINT_URL"
)

// s3OpTimeout bounds one request and its retries; s3CheckTimeout the first contact.
const (
	s3OpTimeout    = 2 * time.Minute
	s3CheckTimeout = 20 * time.Second
)

// s3Store is an S3-compatible bucket, through minio-go: the smaller of the two maintained
// S3 clients in the binary (+1.4 MB against +2.0 MB for aws-sdk-go-v2's s3 doing the same calls).
type s3Store struct {
	bucket, prefix string

	once  sync.Once
	ops   *s3Ops
	where string // the endpoint, for errors
	err   error
}

// s3Ops are the client's calls the store makes, as closures: no field of a reachable type
// holds the *minio.Client, so the linker keeps only the methods called even in a binary that
// uses reflection's method lookup (an executed text/template), which keeps every exported
// method of every type it can reach: all of minio-go's API, 1.3 MB more.
type s3Ops struct {
	creds  func() (credentials.Value, error)
	exists func(ctx context.Context, bucket string) (bool, error)
	get    func(ctx context.Context, bucket, key string) ([]byte, error)
	put    func(ctx context.Context, bucket, key string, data []byte, opts minio.PutObjectOptions) error
	remove func(ctx context.Context, bucket, key string) error
	list   func(ctx context.Context, bucket string, opts minio.ListObjectsOptions) <-chan minio.ObjectInfo
}

func newS3Ops(c *minio.Client) *s3Ops {
	return &s3Ops{
		creds:  c.GetCreds,
		exists: c.BucketExists,
		get: func(ctx context.Context, bucket, key string) ([]byte, error) {
			obj, err := c.GetObject(ctx, bucket, key, minio.GetObjectOptions{})
			if err != nil {
				return nil, err
			}
			defer obj.Close()
			return io.ReadAll(obj)
		},
		put: func(ctx context.Context, bucket, key string, data []byte, opts minio.PutObjectOptions) error {
			_, err := c.PutObject(ctx, bucket, key, bytes.NewReader(data), int64(len(data)), opts)
			return err
		},
		remove: func(ctx context.Context, bucket, key string) error {
			return c.RemoveObject(ctx, bucket, key, minio.RemoveObjectOptions{})
		},
		list: c.ListObjects,
	}
}

// bucketName is S3's rule for bucket names (3 to 63 of a-z, 0-9, '.', '-').
var bucketName = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$`)

func openS3Store(out string) (*s3Store, error) {
	bad := func(why string) error {
		return fmt.Errorf("--out %s: %s (expected s3://BUCKET or s3://BUCKET/PREFIX)", out, why)
	}
	rest, ok := strings.CutPrefix(out, "s3://")
	if !ok {
		return nil, bad("not an s3:// URL")
	}
	bucket, prefix, _ := strings.Cut(rest, "/")
	if !bucketName.MatchString(bucket) || strings.Contains(bucket, "..") {
		return nil, bad(fmt.Sprintf("%q is not a bucket name (3 to 63 lower-case letters, digits, '.' and '-')", bucket))
	}
	prefix = strings.Trim(prefix, "/")
	if prefix != "" {
		for _, seg := range strings.Split(prefix, "/") {
			if seg == "" || seg == "." || seg == ".." || strings.ContainsAny(seg, "?#\\") {
				return nil, bad(fmt.Sprintf("the prefix %q has an empty, '.', '..' or unusual segment", prefix))
			}
		}
	}
	return &s3Store{bucket: bucket, prefix: prefix}, nil
}

func (s *s3Store) objectKey(key string) string { return path.Join(s.prefix, key) }

func (s *s3Store) Where(key string) string {
	return "s3://" + path.Join(s.bucket, s.objectKey(key))
}

func (s *s3Store) LocalPath(string) (string, bool) { return "", false }

// S3EndpointSetting is the endpoint override in the environment ("" for AWS itself) and
// the variable that set it.
func S3EndpointSetting() (endpoint, name string) {
	if v := os.Getenv(EndpointEnv); v != "" {
		return v, EndpointEnv
	}
	return os.Getenv(endpointEnvGeneral), endpointEnvGeneral
}

// s3Endpoint reads the endpoint override: scheme and host only.
func s3Endpoint() (host string, secure bool, override bool, err error) {
	raw, name := S3EndpointSetting()
	if raw == "" {
		return "s3.amazonaws.com", true, false, nil
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		strings.Trim(u.Path, "/") != "" || u.RawQuery != "" {
		return "", false, false, fmt.Errorf("%s=%q: expected http(s)://HOST[:PORT], with no path or credentials", name, raw)
	}
	return u.Host, u.Scheme == "https", true, nil
}

// open makes the client once: the endpoint and credentials come from the environment.
func (s *s3Store) open() (*s3Ops, error) {
	s.once.Do(func() {
		host, secure, override, err := s3Endpoint()
		if err != nil {
			s.err = err
			return
		}
		scheme := "https://"
		if !secure {
			scheme = "http://"
		}
		s.where = scheme + host
		region := os.Getenv("AWS_REGION")
		if region == "" {
			region = os.Getenv("AWS_DEFAULT_REGION")
		}
		lookup := minio.BucketLookupAuto
		if override {
			// S3-compatible servers (MinIO, Ceph, Garage...) answer path-style requests.
			lookup = minio.BucketLookupPath
			if region == "" {
				region = "us-east-1"
			}
		}
		creds := credentials.NewChainCredentials([]credentials.Provider{
			&credentials.EnvAWS{}, &credentials.FileAWSCredentials{},
		})
		c, err := minio.New(host, &minio.Options{Creds: creds, Secure: secure, Region: region, BucketLookup: lookup, MaxRetries: 3})
		if err != nil {
			s.err = err
			return
		}
		s.ops = newS3Ops(c)
	})
	if s.err != nil {
		return nil, fmt.Errorf("--out %s: %w", s.Where(""), s.err)
	}
	return s.ops, nil
}

// Check asks for the bucket: the endpoint answers and the credentials are accepted.
func (s *s3Store) Check(ctx context.Context) error {
	c, err := s.open()
	if err != nil {
		return err
	}
	v, err := c.creds()
	if err != nil || v.AccessKeyID == "" || v.SecretAccessKey == "" {
		return fmt.Errorf("--out %s: no S3 credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_PROFILE and a shared credentials file)", s.Where(""))
	}
	ctx, cancel := context.WithTimeout(ctx, s3CheckTimeout)
	defer cancel()
	ok, err := c.exists(ctx, s.bucket)
	switch {
	case err != nil && minio.ToErrorResponse(err).Code == "":
		return fmt.Errorf("--out %s: the S3 endpoint %s is not reachable (give the bucket's endpoint with --s3-endpoint or %s): %w", s.Where(""), s.where, EndpointEnv, err)
	case err != nil:
		return fmt.Errorf("--out %s: the S3 endpoint %s refused: %w", s.Where(""), s.where, err)
	case !ok:
		return fmt.Errorf("--out %s: the bucket %s does not exist at %s", s.Where(""), s.bucket, s.where)
	}
	return nil
}

func opContext() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), s3OpTimeout)
}

func (s *s3Store) Read(key string) ([]byte, error) {
	c, err := s.open()
	if err != nil {
		return nil, err
	}
	ctx, cancel := opContext()
	defer cancel()
	data, err := c.get(ctx, s.bucket, s.objectKey(key))
	if err == nil {
		return data, nil
	}
	if minio.ToErrorResponse(err).Code == minio.NoSuchKey {
		return nil, fmt.Errorf("%s: %w", s.Where(key), fs.ErrNotExist)
	}
	return nil, fmt.Errorf("%s: %w", s.Where(key), err)
}

func (s *s3Store) Write(key string, data []byte) error {
	c, err := s.open()
	if err != nil {
		return err
	}
	ctx, cancel := opContext()
	defer cancel()
	if err := c.put(ctx, s.bucket, s.objectKey(key), data, minio.PutObjectOptions{ContentType: contentType(key)}); err != nil {
		return fmt.Errorf("%s: %w", s.Where(key), err)
	}
	return nil
}

func contentType(key string) string {
	switch path.Ext(key) {
	case ".json":
		return "application/json"
	case ".jsonl":
		return "application/jsonl"
	}
	return "text/plain; charset=utf-8"
}

func (s *s3Store) Remove(key string) error {
	c, err := s.open()
	if err != nil {
		return err
	}
	ctx, cancel := opContext()
	defer cancel()
	if err := c.remove(ctx, s.bucket, s.objectKey(key)); err != nil &&
		minio.ToErrorResponse(err).Code != minio.NoSuchKey {
		return fmt.Errorf("%s: %w", s.Where(key), err)
	}
	return nil
}

// list names the objects under prefix/, recursively or not.
func (s *s3Store) list(prefix string, recursive bool) ([]string, error) {
	c, err := s.open()
	if err != nil {
		return nil, err
	}
	ctx, cancel := opContext()
	defer cancel()
	full := s.objectKey(prefix) + "/"
	var names []string
	for obj := range c.list(ctx, s.bucket, minio.ListObjectsOptions{Prefix: full, Recursive: recursive}) {
		if obj.Err != nil {
			return nil, fmt.Errorf("%s: %w", s.Where(prefix), obj.Err)
		}
		if name := strings.TrimPrefix(obj.Key, full); name != "" && !strings.HasSuffix(name, "/") {
			names = append(names, name)
		}
	}
	return names, nil
}

func (s *s3Store) List(prefix string) ([]string, error) { return s.list(prefix, false) }

func (s *s3Store) RemoveAll(prefix string) error {
	names, err := s.list(prefix, true)
	if err != nil {
		return err
	}
	var errs []error
	for _, name := range names {
		errs = append(errs, s.Remove(path.Join(prefix, name)))
	}
	return errors.Join(errs...)
}
