package model

import (
	"context"
	"net/http"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// Authorizer supplies each request's credentials in place of a fixed API key (ChatGPT
// sign-in: a bearer token that is refreshed, an account header) and recovers from a 401.
type Authorizer interface {
	// Authorize sets the credential headers on h, refreshing them first when they are about
	// to expire.
	Authorize(ctx context.Context, h http.Header) error
	// Unauthorized is told the server answered 401; retry says to send the request again at
	// once with fresh credentials. After the authorizer's recovery is spent, a 401 is an
	// ordinary error.
	Unauthorized(ctx context.Context) (retry bool, err error)
	// Succeeded ends a run of 401s.
	Succeeded()
}

var (
	zstdOnce sync.Once
	zstdEnc  *zstd.Encoder
)

// compressZstd compresses a request body, as Codex does for the ChatGPT backend.
func compressZstd(body []byte) []byte {
	zstdOnce.Do(func() {
		zstdEnc, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault))
	})
	return zstdEnc.EncodeAll(body, make([]byte, 0, len(body)/3))
}

// authError is an Authorizer's refusal to authorize a request (no credentials, a routing check
// that failed): the request is not sent and not retried.
type authError struct{ err error }

func (e *authError) Error() string { return e.err.Error() }
func (e *authError) Unwrap() error { return e.err }
