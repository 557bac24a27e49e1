package agent

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/gocodex/gocodex/internal/prompt"
	"github.com/gocodex/gocodex/protocol"
)

// settings are the per-turn knobs; the loop owns the current ones and each turn gets a copy.
type settings struct {
	model    string
	info     ModelInfo
	cwd      string
	approval protocol.AskForApproval
	sandbox  protocol.SandboxPolicy
	effort   string
	summary  string
	// serviceTier is config `service_tier` ("fast" is sent as "priority"), changed by /fast.
	serviceTier     string
	outputSchema    []byte
	baseOverride    string
	developerInstr  string
	userInstr       string
	shell, timezone string
	// mode is the collaboration mode ("" is default); modeInstr replaces its instructions.
	mode, modeInstr string
}

func (s settings) baseInstructions() string {
	if s.baseOverride != "" {
		return s.baseOverride
	}
	if s.info.BaseInstructions != "" {
		return s.info.BaseInstructions
	}
	return prompt.DefaultBaseInstructions()
}

// contextState remembers what the model was last told about the environment, so later
// turns only send what changed.
type contextState struct {
	injected bool
	cwd      string
	sandbox  protocol.SandboxPolicy
	approval protocol.AskForApproval
	// mode is the collaboration mode the model was last told ("" is default, never told).
	mode, modeInstr string
}

func textMessage(role string, texts ...string) protocol.MessageItem {
	content := make([]protocol.ContentItem, 0, len(texts))
	for _, s := range texts {
		content = append(content, protocol.ContentItem{Type: protocol.ContentInputText, Text: s})
	}
	return protocol.MessageItem{Role: role, Content: content}
}

// contextItems returns the context messages to record before this turn's user input: the
// whole initial context on the first turn, then only a new permissions section or
// environment block when those changed.
func (t *Thread) contextItems(s settings) []protocol.ResponseItem {
	var items []protocol.ResponseItem
	cs := &t.ctxState
	if !cs.injected {
		items = t.initialContext(s)
	} else {
		if cs.sandbox.EffectiveMode() != s.sandbox.EffectiveMode() || cs.sandbox.NetworkAccess != s.sandbox.NetworkAccess ||
			cs.approval.Effective() != s.approval.Effective() {
			items = append(items, textMessage("developer", prompt.Permissions(*t.permissions(s))))
		}
		if cs.cwd != s.cwd {
			items = append(items, textMessage("user", t.environment(s).Render()))
		}
	}
	if modeOf(s.mode) != modeOf(cs.mode) || s.modeInstr != cs.modeInstr {
		// The mode message goes before the environment, as Codex places it.
		items = insertBeforeUser(items, collaborationMessage(s))
	}
	*cs = contextState{injected: true, cwd: s.cwd, sandbox: s.sandbox, approval: s.approval, mode: s.mode, modeInstr: s.modeInstr}
	return items
}

// initialContext is the full context for the settings: the developer message and the
// contextual user message that open a thread (and a compacted history). It reads no loop
// state, so a turn may call it.
func (t *Thread) initialContext(s settings) []protocol.ResponseItem {
	if t.isReviewer {
		// A reviewer is told its rubric (the base instructions) and where it is, nothing more.
		return []protocol.ResponseItem{textMessage("user", t.environment(s).Render())}
	}
	ic := prompt.BuildInitialContext(prompt.ContextOptions{
		Permissions:           t.permissions(s),
		DeveloperInstructions: s.developerInstr,
		SkillsInstructions:    t.skillsInstructions(),
		UserInstructions:      s.userInstr,
		Environment:           t.environment(s),
	})
	var items []protocol.ResponseItem
	if len(ic.Developer) > 0 {
		items = append(items, textMessage("developer", ic.Developer...))
	}
	items = append(items, t.cfg.ContextMessages...)
	if len(ic.User) > 0 {
		items = append(items, textMessage("user", ic.User...))
	}
	return items
}

func (t *Thread) permissions(s settings) *prompt.PermissionsOptions {
	p := &prompt.PermissionsOptions{Sandbox: s.sandbox, Approval: s.approval}
	if t.cfg.WritableRoots != nil {
		p.WritableRoots = t.cfg.WritableRoots(s.sandbox, s.cwd)
	} else if s.sandbox.EffectiveMode() == protocol.SandboxWorkspaceWrite {
		p.WritableRoots = append([]string{s.cwd}, s.sandbox.WritableRoots...)
	}
	return p
}

func (t *Thread) environment(s settings) prompt.EnvironmentContext {
	return prompt.EnvironmentContext{
		Cwd:         s.cwd,
		Shell:       s.shell,
		CurrentDate: t.now().Format("2006-01-02"),
		Timezone:    s.timezone,
	}
}

// maxInputImageBytes caps an attached local image; larger files are refused with a message
// the model can read.
const maxInputImageBytes = 20 << 20

// userInput converts the user's items into the user message and the user_message event.
func userInput(items []protocol.InputItem, cwd string) (protocol.MessageItem, protocol.UserMessageEvent) {
	msg := protocol.MessageItem{Role: "user"}
	var ev protocol.UserMessageEvent
	var texts []string
	for _, it := range items {
		switch it.Type {
		case protocol.InputImage:
			msg.Content = append(msg.Content, protocol.ContentItem{Type: protocol.ContentInputImage, ImageURL: it.ImageURL})
			ev.Images = append(ev.Images, it.ImageURL)
		case protocol.InputSkill:
			continue // the skill's own message follows the user's (skillMessages)
		case protocol.InputLocalImage:
			path := it.Path
			if !filepath.IsAbs(path) {
				path = filepath.Join(cwd, path)
			}
			ev.LocalImages = append(ev.LocalImages, it.Path)
			img := localImageContent(path)
			if img.Type != protocol.ContentInputImage {
				msg.Content = append(msg.Content, img)
				continue
			}
			// Codex labels each attached file as its composer shows it ([Image #N]) and
			// names the path as given.
			label := fmt.Sprintf("<image name=[Image #%d] path=%q>", len(ev.LocalImages), it.Path)
			msg.Content = append(msg.Content,
				protocol.ContentItem{Type: protocol.ContentInputText, Text: label}, img,
				protocol.ContentItem{Type: protocol.ContentInputText, Text: "</image>"})
		default:
			msg.Content = append(msg.Content, protocol.ContentItem{Type: protocol.ContentInputText, Text: it.Text})
			texts = append(texts, it.Text)
		}
	}
	ev.Message = strings.Join(texts, "\n")
	return msg, ev
}

// localImageContent reads an image into a data URL, or explains to the model why it could
// not.
func localImageContent(path string) protocol.ContentItem {
	fail := func(why string) protocol.ContentItem {
		return protocol.ContentItem{Type: protocol.ContentInputText, Text: fmt.Sprintf("[image %s could not be attached: %s]", path, why)}
	}
	info, err := os.Stat(path)
	if err != nil {
		return fail(err.Error())
	}
	if info.Size() > maxInputImageBytes {
		return fail(fmt.Sprintf("%d bytes is over the %d byte limit", info.Size(), maxInputImageBytes))
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return fail(err.Error())
	}
	mime := http.DetectContentType(data)
	if !strings.HasPrefix(mime, "image/") {
		return fail("not an image (" + mime + ")")
	}
	return protocol.ContentItem{Type: protocol.ContentInputImage, ImageURL: "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(data)}
}

// modeOf names the default mode "default" however it was set.
func modeOf(mode string) string {
	if mode == "" {
		return protocol.ModeDefault
	}
	return mode
}

// insertBeforeUser puts a developer message after the other developer messages.
func insertBeforeUser(items []protocol.ResponseItem, msg protocol.ResponseItem) []protocol.ResponseItem {
	for i, it := range items {
		if m, ok := it.(protocol.MessageItem); ok && m.Role == "user" {
			return append(items[:i:i], append([]protocol.ResponseItem{msg}, items[i:]...)...)
		}
	}
	return append(items, msg)
}
