// Package viewimage is the view_image tool: the model names a local image file and gets it
// back as an input_image content item (a data URL), so it can look at screenshots, diagrams
// and renders that are already on disk.
package viewimage

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	_ "image/gif" // decoders for image.DecodeConfig
	_ "image/jpeg"
	_ "image/png"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"

	"github.com/gocodex/gocodex/internal/tools"
	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
)

// DefaultMaxBytes caps the size of an image file: larger files are refused rather than sent
// as a request the API would reject.
const DefaultMaxBytes = 20 << 20

// FS is the file access the tool needs; OSFS reads the real file system.
type FS interface {
	Stat(name string) (fs.FileInfo, error)
	ReadFile(name string) ([]byte, error)
}

// OSFS reads the operating system's file system.
type OSFS struct{}

// Stat follows symlinks.
func (OSFS) Stat(name string) (fs.FileInfo, error) { return os.Stat(name) }

// ReadFile reads a whole file.
func (OSFS) ReadFile(name string) ([]byte, error) { return os.ReadFile(name) }

// Options configure the handler.
type Options struct {
	// MaxBytes is the largest file accepted; 0 means DefaultMaxBytes.
	MaxBytes int64
	// FS reads files; nil means OSFS.
	FS FS
	// NoImageInput is set for models that cannot read images: every call is refused.
	NoImageInput bool
}

// Handler handles view_image calls.
type Handler struct{ opts Options }

// New returns a view_image handler.
func New(opts Options) *Handler {
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.FS == nil {
		opts.FS = OSFS{}
	}
	return &Handler{opts: opts}
}

// Spec is the view_image spec Codex sends.
func (*Handler) Spec() tool.Spec { return tools.ViewImageSpec() }

// SupportsParallel: reading a file touches nothing.
func (*Handler) SupportsParallel() bool { return true }

// The texts the model sees when a call fails, as Codex words them.
const unsupportedMessage = "view_image is not allowed because you do not support image inputs"

// Handle reads the image, emits view_image_tool_call and returns the image as content.
// Every failure is the model's to read; none ends the turn.
func (h *Handler) Handle(ctx context.Context, env *tool.Env, call tool.Call) (tool.Result, error) {
	fail := func(format string, a ...any) (tool.Result, error) {
		return tool.Result{Output: fmt.Sprintf(format, a...)}, nil
	}
	if h.opts.NoImageInput {
		return fail("%s", unsupportedMessage)
	}
	var args struct {
		Path   *string `json:"path"`
		Detail *string `json:"detail"`
	}
	if err := json.Unmarshal([]byte(call.Arguments), &args); err != nil {
		return fail("failed to parse function arguments: %v", err)
	}
	if args.Path == nil {
		return fail("failed to parse function arguments: missing field `path`")
	}
	detail := ""
	if args.Detail != nil {
		if *args.Detail != "original" {
			return fail("view_image.detail only supports `original`; omit `detail` for default resized behavior, got `%s`", *args.Detail)
		}
		detail = "original"
	}
	path := *args.Path
	if !filepath.IsAbs(path) && env != nil {
		path = filepath.Join(env.Cwd, path)
	}
	path = filepath.Clean(path)
	info, err := h.opts.FS.Stat(path)
	if err != nil {
		return fail("unable to locate image at `%s`: %v", path, err)
	}
	if !info.Mode().IsRegular() {
		return fail("image path `%s` is not a file", path)
	}
	if info.Size() > h.opts.MaxBytes {
		return fail("unable to process image at `%s`: file is %d bytes, over the %d byte limit", path, info.Size(), h.opts.MaxBytes)
	}
	data, err := h.opts.FS.ReadFile(path)
	if err != nil {
		return fail("unable to read image at `%s`: %v", path, err)
	}
	url, err := DataURL(data)
	if err != nil {
		return fail("unable to process image at `%s`: %v", path, err)
	}
	if env != nil && env.Emit != nil {
		env.Emit(protocol.ViewImageToolCallEvent{CallID: call.CallID, Path: path})
	}
	return tool.Result{
		ContentItems: []protocol.ContentItem{{Type: protocol.ContentInputImage, ImageURL: url, Detail: detail}},
		Success:      true,
	}, nil
}

// DataURL checks that data is an image the API accepts (PNG, JPEG, GIF or WebP) and returns
// it as a base64 data URL. PNG, JPEG and GIF headers are decoded to catch truncated or
// mislabelled files.
func DataURL(data []byte) (string, error) {
	mime := http.DetectContentType(data)
	switch mime {
	case "image/png", "image/jpeg", "image/gif":
		if _, _, err := image.DecodeConfig(bytes.NewReader(data)); err != nil {
			return "", fmt.Errorf("invalid %s data: %v", mime, err)
		}
	case "image/webp":
	default:
		return "", fmt.Errorf("unsupported image format (%s); supported formats are PNG, JPEG, GIF and WebP", mime)
	}
	return "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(data), nil
}
