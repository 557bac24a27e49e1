package viewimage

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
)

func pngBytes(t testing.TB) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 2, 2))
	img.Set(0, 0, color.RGBA{R: 255, A: 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestHandle(t *testing.T) {
	dir := t.TempDir()
	pic := pngBytes(t)
	write := func(name string, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("shot.png", pic)
	write("notes.txt", []byte("hello, not an image"))
	write("broken.png", pic[:20])
	write("big.png", append(append([]byte{}, pic...), make([]byte, 200)...))
	if err := os.Mkdir(filepath.Join(dir, "folder"), 0o755); err != nil {
		t.Fatal(err)
	}
	wantURL := "data:image/png;base64,"
	tests := []struct {
		name       string
		opts       Options
		args       string
		wantPrefix string // of the text output; "" means image content expected
		wantDetail string
	}{
		{name: "relative path", args: `{"path":"shot.png"}`},
		{name: "absolute path, original detail", args: `{"path":"` + filepath.Join(dir, "shot.png") + `","detail":"original"}`, wantDetail: "original"},
		{name: "bad detail", args: `{"path":"shot.png","detail":"high"}`, wantPrefix: "view_image.detail only supports `original`; omit `detail` for default resized behavior, got `high`"},
		{name: "missing", args: `{"path":"nope.png"}`, wantPrefix: "unable to locate image at `" + filepath.Join(dir, "nope.png") + "`: "},
		{name: "directory", args: `{"path":"folder"}`, wantPrefix: "image path `" + filepath.Join(dir, "folder") + "` is not a file"},
		{name: "not an image", args: `{"path":"notes.txt"}`, wantPrefix: "unable to process image at `" + filepath.Join(dir, "notes.txt") + "`: unsupported image format (text/plain"},
		{name: "truncated png", args: `{"path":"broken.png"}`, wantPrefix: "unable to process image at `" + filepath.Join(dir, "broken.png") + "`: invalid image/png data"},
		{name: "too big", opts: Options{MaxBytes: int64(len(pic))}, args: `{"path":"big.png"}`, wantPrefix: "unable to process image at `" + filepath.Join(dir, "big.png") + "`: file is"},
		{name: "no path", args: `{}`, wantPrefix: "failed to parse function arguments: missing field `path`"},
		{name: "bad json", args: `{`, wantPrefix: "failed to parse function arguments:"},
		{name: "model without images", opts: Options{NoImageInput: true}, args: `{"path":"shot.png"}`, wantPrefix: "view_image is not allowed because you do not support image inputs"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var events []protocol.EventMsg
			env := &tool.Env{Cwd: dir, Emit: func(m protocol.EventMsg) { events = append(events, m) }}
			res, err := New(tc.opts).Handle(context.Background(), env, tool.Call{CallID: "c1", Name: "view_image", Arguments: tc.args})
			if err != nil {
				t.Fatalf("Handle error: %v", err)
			}
			if tc.wantPrefix != "" {
				if !strings.HasPrefix(res.Output, tc.wantPrefix) || res.Success || res.ContentItems != nil {
					t.Errorf("result = %+v, want output starting %q", res, tc.wantPrefix)
				}
				if len(events) != 0 {
					t.Errorf("events on failure: %v", events)
				}
				return
			}
			if !res.Success || len(res.ContentItems) != 1 {
				t.Fatalf("result = %+v", res)
			}
			c := res.ContentItems[0]
			if c.Type != protocol.ContentInputImage || !strings.HasPrefix(c.ImageURL, wantURL) || c.Detail != tc.wantDetail {
				t.Errorf("content = %+v", c)
			}
			want := []protocol.EventMsg{protocol.ViewImageToolCallEvent{CallID: "c1", Path: filepath.Join(dir, "shot.png")}}
			if diff := cmp.Diff(want, events); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			// The output the model receives is an array holding one input_image.
			payload := protocol.FunctionCallOutputPayload{ContentItems: res.ContentItems}
			raw, err := json.Marshal(payload)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(string(raw), `[{"type":"input_image","image_url":"data:image/png;base64,`) {
				t.Errorf("wire output = %.80s", raw)
			}
		})
	}
}

func FuzzDataURL(f *testing.F) {
	f.Add(pngBytes(f))
	f.Add([]byte("GIF89a"))
	f.Add([]byte("\xff\xd8\xff"))
	f.Fuzz(func(t *testing.T, data []byte) {
		url, err := DataURL(data)
		if err == nil && !strings.HasPrefix(url, "data:image/") {
			t.Errorf("accepted data gave %q", url[:min(len(url), 30)])
		}
	})
}
