package agent

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/internal/testkit"
	"github.com/gocodex/gocodex/internal/tools"
	"github.com/gocodex/gocodex/internal/tools/plan"
	"github.com/gocodex/gocodex/internal/tools/viewimage"
	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
)

// TestPlanAndImageTools runs the real update_plan and view_image handlers through a turn.
func TestPlanAndImageTools(t *testing.T) {
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, 1, 1))); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, harnessOpts{cfg: func(c *ThreadConfig) {
		c.ModelInfo.Tools = tool.Options{ShellType: tools.ShellTypeDisabled, PlanTool: true, ViewImage: true}
		c.ToolHandlers = map[string]tool.Handler{
			tools.NameUpdatePlan: plan.New(),
			tools.NameViewImage:  viewimage.New(viewimage.Options{}),
		}
	}})
	if err := os.WriteFile(filepath.Join(h.thread.cfg.Cwd, "dot.png"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	h.srv.Enqueue(
		testkit.SSE(testkit.Created(),
			testkit.FunctionCall("p1", "update_plan", `{"plan":[{"step":"look","status":"in_progress"}]}`),
			testkit.FunctionCall("v1", "view_image", `{"path":"dot.png"}`),
			testkit.Completed(testkit.Usage{})),
		testkit.SSE(testkit.Created(), testkit.AssistantMessage("m1", "a dot"), testkit.Completed(testkit.Usage{})),
	)
	h.say("plan and look")
	evs := h.until(turnEnd)
	pu, ok := find[protocol.PlanUpdateEvent](evs)
	if !ok || len(pu.Plan) != 1 || pu.Plan[0].Status != protocol.PlanInProgress {
		t.Errorf("plan_update = %+v (found %v)", pu, ok)
	}
	if vi, ok := find[protocol.ViewImageToolCallEvent](evs); !ok || vi.CallID != "v1" {
		t.Errorf("view_image_tool_call = %+v (found %v)", vi, ok)
	}
	in := h.requestInput(1)
	got := summarize(in)[3:5]
	if diff := cmp.Diff([]string{"function_call update_plan p1", "function_call view_image v1"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if out := in[5]["output"]; out != "Plan updated" {
		t.Errorf("update_plan output = %v", out)
	}
	items, _ := in[6]["output"].([]any)
	if len(items) != 1 || !strings.HasPrefix(items[0].(map[string]any)["image_url"].(string), "data:image/png;base64,") {
		t.Errorf("view_image output = %v", in[6]["output"])
	}
}

func TestLocalImageInput(t *testing.T) {
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, 1, 1))); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, harnessOpts{})
	if err := os.WriteFile(filepath.Join(h.thread.cfg.Cwd, "in.png"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	h.srv.Enqueue(testkit.SSE(testkit.Created(), testkit.AssistantMessage("m1", "seen"), testkit.Completed(testkit.Usage{})))
	h.submit(protocol.UserInputOp{Items: []protocol.InputItem{
		protocol.TextInput("what is this"),
		{Type: protocol.InputLocalImage, Path: "in.png"},
		{Type: protocol.InputLocalImage, Path: "missing.png"},
	}})
	evs := h.until(turnEnd)
	um, _ := find[protocol.UserMessageEvent](evs)
	if um.Message != "what is this" || len(um.LocalImages) != 2 {
		t.Errorf("user_message = %+v", um)
	}
	in := h.requestInput(0)
	content := in[len(in)-1]["content"].([]any)
	// As Codex 0.169 sends it: the image between its label and a closing tag.
	if len(content) != 5 {
		t.Fatalf("content = %v", content)
	}
	if c := content[1].(map[string]any); c["text"] != `<image name=[Image #1] path="in.png">` {
		t.Errorf("image label = %v", c)
	}
	if c := content[2].(map[string]any); c["type"] != "input_image" || !strings.HasPrefix(c["image_url"].(string), "data:image/png;base64,") {
		t.Errorf("image content = %v", c)
	}
	if c := content[3].(map[string]any); c["text"] != "</image>" {
		t.Errorf("image end = %v", c)
	}
	if c := content[4].(map[string]any); c["type"] != "input_text" || !strings.Contains(c["text"].(string), "could not be attached") {
		t.Errorf("missing image content = %v", c)
	}
}
