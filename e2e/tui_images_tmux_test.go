package e2e

import (
	"os"
	"path/filepath"
	"testing"
)

// onePixelPNG is a valid 1×1 PNG.
const onePixelPNG = "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\xff\xff?\x00\x05\xfe\x02\xfe\xa7\x35\x81\x84\x00\x00\x00\x00IEND\xaeB`\x82"

// -i/--image attaches a file to the first prompt of the terminal UI, and a pasted image
// path (a drag and drop) becomes an [Image #1] placeholder whose file goes with the next
// message; both reach the model as Codex sends them.
func TestTUITmuxImages(t *testing.T) {
	e := newEnv(t)
	if err := os.WriteFile(filepath.Join(e.Workdir, "pixel.png"), []byte(onePixelPNG), 0o644); err != nil {
		t.Fatal(err)
	}
	e.Model.Enqueue(answer("FIRST-SEEN"), answer("SECOND-SEEN"))
	u := e.startTmuxUI("-i", "pixel.png", "what is this?")
	u.waitFor("[Image #1]", "what is this?", "FIRST-SEEN")
	waitIdle(u)

	pasted := filepath.Join(e.Workdir, "pixel.png")
	u.pane.tmux("set-buffer", "-b", "img", pasted)
	u.pane.tmux("paste-buffer", "-p", "-d", "-b", "img", "-t", "0")
	u.waitFor("› [Image #1]")
	u.typeLine("and this?")
	u.waitFor("SECOND-SEEN")
	waitIdle(u)
	u.quit()

	reqs := e.Model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	checkImageMessage(t, reqs[0], "pixel.png", "what is this?")
	checkImageMessage(t, reqs[1], pasted, "[Image #1] and this?")
}
