package testkit

import (
	"bufio"
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// S3 is a scripted S3-compatible object store on 127.0.0.1 (a remote service, so scripted):
// path-style buckets answering PUT, GET, HEAD and DELETE of objects, HEAD and GET ?location
// of buckets and ListObjectsV2, every request signed with AWS Signature V4 by the one key
// pair it knows (a signed or streaming aws-chunked payload is checked too). Objects live in
// memory; every request is recorded.
type S3 struct {
	AccessKey, SecretKey, Region string

	srv *httptest.Server

	mu       sync.Mutex
	buckets  map[string]map[string][]byte
	requests []S3Request
}

// S3Request is a request the store answered.
type S3Request struct {
	Method, Path, Query string
	Status              int
}

// StartS3 starts a store with the given buckets that closes when the test ends.
func StartS3(t TB, buckets ...string) *S3 {
	t.Helper()
	s := &S3{AccessKey: "AKIAFLEETTEST", SecretKey: "fleet-secret-" + strconv.Itoa(len(buckets)) + "-s3cr3tK3y",
		Region: "us-east-1", buckets: map[string]map[string][]byte{}}
	for _, b := range buckets {
		s.buckets[b] = map[string][]byte{}
	}
	s.srv = httptest.NewServer(s)
	t.Cleanup(s.srv.Close)
	return s
}

// URL is the endpoint, http://127.0.0.1:PORT.
func (s *S3) URL() string { return s.srv.URL }

// Env is the environment a client of the store needs (the standard AWS variables).
func (s *S3) Env() []string {
	return []string{"AWS_ACCESS_KEY_ID=" + s.AccessKey, "AWS_SECRET_ACCESS_KEY=" + s.SecretKey,
		"AWS_REGION=" + s.Region, "AWS_ENDPOINT_URL_S3=" + s.URL()}
}

// Objects is a copy of a bucket's objects by key.
func (s *S3) Objects(bucket string) map[string][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string][]byte{}
	for k, v := range s.buckets[bucket] {
		out[k] = bytes.Clone(v)
	}
	return out
}

// Requests are the requests answered so far.
func (s *S3) Requests() []S3Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]S3Request(nil), s.requests...)
}

type s3Error struct {
	status     int
	code, msg  string
	bucket, ky string
}

func (s *S3) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	status := http.StatusOK
	defer func() {
		s.mu.Lock()
		s.requests = append(s.requests, S3Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Status: status})
		s.mu.Unlock()
	}()
	var body []byte
	var e *s3Error
	body, e = s.authenticate(r)
	if e == nil {
		status, e = s.serve(w, r, body)
	}
	if e != nil {
		status = e.status
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(e.status)
		if r.Method != http.MethodHead {
			fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>%s</Code><Message>%s</Message><BucketName>%s</BucketName><Key>%s</Key></Error>`,
				e.code, xmlText(e.msg), e.bucket, xmlText(e.ky))
		}
	}
}

func xmlText(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

func (s *S3) serve(w http.ResponseWriter, r *http.Request, body []byte) (int, *s3Error) {
	bucket, key, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	s.mu.Lock()
	defer s.mu.Unlock()
	objects, ok := s.buckets[bucket]
	if !ok {
		return 0, &s3Error{http.StatusNotFound, "NoSuchBucket", "The specified bucket does not exist", bucket, ""}
	}
	q := r.URL.Query()
	switch {
	case key == "" && r.Method == http.MethodHead:
		return http.StatusOK, nil
	case key == "" && r.Method == http.MethodGet && q.Has("location"):
		w.Header().Set("Content-Type", "application/xml")
		fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8"?><LocationConstraint xmlns="http://s3.amazonaws.com/doc/2006-03-01/"></LocationConstraint>`)
		return http.StatusOK, nil
	case key == "" && r.Method == http.MethodGet && q.Get("list-type") == "2":
		return http.StatusOK, listV2(w, bucket, objects, q)
	case key == "":
		return 0, &s3Error{http.StatusNotImplemented, "NotImplemented", r.Method + " on a bucket is not scripted", bucket, ""}
	}
	switch r.Method {
	case http.MethodPut:
		if r.Header.Get("X-Amz-Copy-Source") != "" {
			return 0, &s3Error{http.StatusNotImplemented, "NotImplemented", "copy is not scripted", bucket, key}
		}
		objects[key] = body
		w.Header().Set("ETag", etag(body))
		return http.StatusOK, nil
	case http.MethodGet, http.MethodHead:
		data, ok := objects[key]
		if !ok {
			return 0, &s3Error{http.StatusNotFound, "NoSuchKey", "The specified key does not exist.", bucket, key}
		}
		w.Header().Set("ETag", etag(data))
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
		w.Header().Set("Last-Modified", "Mon, 07 Dec 2026 00:00:00 GMT")
		if r.Method == http.MethodGet {
			w.Write(data)
		}
		return http.StatusOK, nil
	case http.MethodDelete:
		delete(objects, key)
		w.WriteHeader(http.StatusNoContent)
		return http.StatusNoContent, nil
	}
	return 0, &s3Error{http.StatusMethodNotAllowed, "MethodNotAllowed", r.Method + " is not scripted", bucket, key}
}

func etag(data []byte) string {
	sum := sha256.Sum256(data)
	return `"` + hex.EncodeToString(sum[:16]) + `"`
}

// listV2 answers ListObjectsV2 (prefix, delimiter, max-keys, continuation by start-after).
func listV2(w http.ResponseWriter, bucket string, objects map[string][]byte, q url.Values) *s3Error {
	prefix, delim := q.Get("prefix"), q.Get("delimiter")
	maxKeys := 1000
	if m, err := strconv.Atoi(q.Get("max-keys")); err == nil && m > 0 && m < maxKeys {
		maxKeys = m
	}
	after := q.Get("start-after")
	if tok := q.Get("continuation-token"); tok != "" {
		after = tok
	}
	keys := make([]string, 0, len(objects))
	for k := range objects {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	type content struct {
		Key          string
		Size         int
		ETag         string
		LastModified string
		StorageClass string
	}
	type commonPrefix struct{ Prefix string }
	var result struct {
		XMLName               xml.Name `xml:"ListBucketResult"`
		Name, Prefix          string
		Delimiter             string `xml:",omitempty"`
		EncodingType          string `xml:",omitempty"`
		KeyCount, MaxKeys     int
		IsTruncated           bool
		NextContinuationToken string `xml:",omitempty"`
		Contents              []content
		CommonPrefixes        []commonPrefix
	}
	result.Name, result.Prefix, result.Delimiter, result.MaxKeys = bucket, prefix, delim, maxKeys
	encode := func(s string) string { return s }
	if q.Get("encoding-type") == "url" {
		result.EncodingType = "url"
		encode = func(s string) string { return strings.ReplaceAll(url.QueryEscape(s), "+", "%20") }
		result.Prefix = encode(prefix)
	}
	seen := map[string]bool{}
	last := ""
	for _, k := range keys {
		if !strings.HasPrefix(k, prefix) || k <= after {
			continue
		}
		if result.KeyCount == maxKeys {
			result.IsTruncated, result.NextContinuationToken = true, last
			break
		}
		if delim != "" {
			if i := strings.Index(k[len(prefix):], delim); i >= 0 {
				cp := k[:len(prefix)+i+len(delim)]
				if !seen[cp] {
					seen[cp] = true
					result.CommonPrefixes = append(result.CommonPrefixes, commonPrefix{encode(cp)})
					result.KeyCount++
				}
				last = k
				continue
			}
		}
		result.Contents = append(result.Contents, content{Key: encode(k), Size: len(objects[k]), ETag: etag(objects[k]),
			LastModified: "2026-12-07T00:00:00.000Z", StorageClass: "STANDARD"})
		result.KeyCount++
		last = k
	}
	w.Header().Set("Content-Type", "application/xml")
	io.WriteString(w, xml.Header)
	return xmlEncode(w, result)
}

func xmlEncode(w io.Writer, v any) *s3Error {
	if err := xml.NewEncoder(w).Encode(v); err != nil {
		return &s3Error{http.StatusInternalServerError, "InternalError", err.Error(), "", ""}
	}
	return nil
}

// authenticate checks the request's Signature V4 and returns its payload (aws-chunked
// decoded and each chunk's signature checked).
func (s *S3) authenticate(r *http.Request) ([]byte, *s3Error) {
	denied := func(code, msg string) *s3Error { return &s3Error{http.StatusForbidden, code, msg, "", ""} }
	auth := r.Header.Get("Authorization")
	rest, ok := strings.CutPrefix(auth, "AWS4-HMAC-SHA256 ")
	if !ok {
		return nil, denied("AccessDenied", "a Signature V4 Authorization header is required")
	}
	fields := map[string]string{}
	for _, f := range strings.Split(rest, ",") {
		if k, v, ok := strings.Cut(strings.TrimSpace(f), "="); ok {
			fields[k] = v
		}
	}
	cred := strings.Split(fields["Credential"], "/")
	if len(cred) != 5 || cred[3] != "s3" || cred[4] != "aws4_request" {
		return nil, denied("AuthorizationHeaderMalformed", "bad Credential "+fields["Credential"])
	}
	if cred[0] != s.AccessKey {
		return nil, denied("InvalidAccessKeyId", "The AWS Access Key Id you provided does not exist in our records.")
	}
	date, scope := r.Header.Get("X-Amz-Date"), strings.Join(cred[1:], "/")
	payloadHash := r.Header.Get("X-Amz-Content-Sha256")
	signed := strings.Split(fields["SignedHeaders"], ";")
	var canon strings.Builder
	canon.WriteString(r.Method + "\n" + r.URL.EscapedPath() + "\n" + canonicalQuery(r.URL.Query()) + "\n")
	for _, h := range signed {
		v := r.Header.Get(h)
		if h == "host" {
			v = r.Host
		}
		if h == "content-length" {
			v = strconv.FormatInt(r.ContentLength, 10)
		}
		canon.WriteString(h + ":" + strings.Join(strings.Fields(v), " ") + "\n")
	}
	canon.WriteString("\n" + fields["SignedHeaders"] + "\n" + payloadHash)
	key := signingKey(s.SecretKey, cred[1], cred[2])
	toSign := "AWS4-HMAC-SHA256\n" + date + "\n" + scope + "\n" + sha256Hex([]byte(canon.String()))
	seed := hex.EncodeToString(hmacSHA256(key, toSign))
	if !hmac.Equal([]byte(seed), []byte(fields["Signature"])) {
		return nil, denied("SignatureDoesNotMatch", "The request signature we calculated does not match the signature you provided.")
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, &s3Error{http.StatusBadRequest, "IncompleteBody", err.Error(), "", ""}
	}
	switch payloadHash {
	case "UNSIGNED-PAYLOAD":
		return body, nil
	case "STREAMING-AWS4-HMAC-SHA256-PAYLOAD":
		data, err := decodeChunks(body, key, date, scope, seed)
		if err != nil {
			return nil, denied("SignatureDoesNotMatch", "aws-chunked payload: "+err.Error())
		}
		return data, nil
	}
	if sha256Hex(body) != payloadHash {
		return nil, &s3Error{http.StatusBadRequest, "XAmzContentSHA256Mismatch", "The provided 'x-amz-content-sha256' header does not match what was computed.", "", ""}
	}
	return body, nil
}

// decodeChunks reads an aws-chunked body, checking each chunk's signature in the chain that
// starts at the request's own.
func decodeChunks(body, key []byte, date, scope, prev string) ([]byte, error) {
	var out bytes.Buffer
	br := bufio.NewReader(bytes.NewReader(body))
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return nil, errors.New("truncated chunk header")
		}
		sizeHex, sig, ok := strings.Cut(strings.TrimRight(line, "\r\n"), ";chunk-signature=")
		size, perr := strconv.ParseInt(sizeHex, 16, 64)
		if !ok || perr != nil || size < 0 || size > int64(len(body)) {
			return nil, fmt.Errorf("bad chunk header %q", line)
		}
		chunk := make([]byte, size)
		if _, err := io.ReadFull(br, chunk); err != nil {
			return nil, errors.New("truncated chunk")
		}
		if crlf, err := br.ReadString('\n'); err != nil || crlf != "\r\n" {
			return nil, errors.New("chunk not ended by CRLF")
		}
		want := hex.EncodeToString(hmacSHA256(key, "AWS4-HMAC-SHA256-PAYLOAD\n"+date+"\n"+scope+"\n"+prev+"\n"+
			sha256Hex(nil)+"\n"+sha256Hex(chunk)))
		if !hmac.Equal([]byte(want), []byte(sig)) {
			return nil, errors.New("a chunk's signature does not match")
		}
		prev = sig
		if size == 0 {
			return out.Bytes(), nil
		}
		out.Write(chunk)
	}
}

// canonicalQuery is SigV4's query string: sorted, each name and value URI-encoded.
func canonicalQuery(q url.Values) string {
	enc := func(s string) string { return strings.ReplaceAll(url.QueryEscape(s), "+", "%20") }
	var parts []string
	for k, vs := range q {
		for _, v := range vs {
			parts = append(parts, enc(k)+"="+enc(v))
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, "&")
}

func signingKey(secret, day, region string) []byte {
	k := hmacSHA256([]byte("AWS4"+secret), day)
	k = hmacSHA256(k, region)
	k = hmacSHA256(k, "s3")
	return hmacSHA256(k, "aws4_request")
}

func hmacSHA256(key []byte, data string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(data))
	return m.Sum(nil)
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
