package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	tea "github.com/gocodex/gocodex/third_party/bubbletea"

	"github.com/gocodex/gocodex/protocol"
)

// ModelChoice is a model the /model picker offers.
type ModelChoice struct {
	Slug        string
	DisplayName string
	Description string
	// Efforts are the reasoning efforts it supports; DefaultEffort is used when none is chosen.
	Efforts       []string
	DefaultEffort string
}

// openModelPicker is /model: a model, then (when it reasons) an effort; the choice applies to
// the next turns through override_turn_context, as Codex's picker does.
func (m *Model) openModelPicker(typed, _ string) {
	if len(m.models) == 0 && len(m.providers) < 2 {
		m.commandError(typed, "/model: no model catalog is known for this provider; set `model` in config.toml or pass -m.")
		return
	}
	p := &picker{title: "Select Model and Effort"}
	for _, c := range m.models {
		label := c.DisplayName
		if label == "" {
			label = c.Slug
		}
		p.items = append(p.items, pickerItem{label: label, desc: c.Description, value: c.Slug, current: c.Slug == m.header.Model})
	}
	m.addProviderItems(p)
	for i, it := range p.items {
		if it.current && !strings.HasPrefix(it.value, providerValue) {
			p.selected = i
		}
	}
	p.onPick = func(m *Model, it pickerItem) tea.Cmd {
		if strings.HasPrefix(it.value, providerValue) {
			return m.pickProvider(it.value)
		}
		for _, c := range m.models {
			if c.Slug == it.value {
				m.pickEffort(c)
			}
		}
		return nil
	}
	m.picker = p
}

func (m *Model) pickEffort(c ModelChoice) {
	if len(c.Efforts) == 0 {
		m.setModel(c.Slug, "")
		return
	}
	p := &picker{title: "Select Reasoning Level for " + c.Slug}
	for _, e := range c.Efforts {
		desc := ""
		if e == c.DefaultEffort {
			desc = "default"
		}
		p.items = append(p.items, pickerItem{label: e, desc: desc, value: e,
			current: c.Slug == m.header.Model && e == m.header.Effort})
		if e == c.DefaultEffort {
			p.selected = len(p.items) - 1
		}
	}
	slug := c.Slug
	p.onPick = func(m *Model, it pickerItem) tea.Cmd { m.setModel(slug, it.value); return nil }
	m.picker = p
}

func (m *Model) setModel(slug, effort string) {
	op := protocol.OverrideTurnContextOp{Model: &slug}
	if effort != "" {
		op.Effort = &effort
	}
	if m.submitOp(op) {
		m.header.Model, m.header.Effort = slug, effort
		note := "Model changed to " + slug
		if effort != "" {
			note += " " + effort
		}
		m.tr.add(cell{kind: cellNote, body: note})
	}
	m.refresh()
}

// permissionPreset is one choice of /permissions, named as Codex 0.169 names it.
type permissionPreset struct {
	label, desc string
	approval    protocol.AskForApproval
	sandbox     protocol.SandboxMode
}

// permissionPresets are Codex's presets but "Approve for me", which needs the automatic
// reviewer gocodex does not have.
func permissionPresets() []permissionPreset {
	return []permissionPreset{
		{"Ask for approval", "Read and edit workspace files and run commands, with approval required for internet access or edits outside the workspace",
			protocol.ApprovalOnRequest, protocol.SandboxWorkspaceWrite},
		{"Full Access", "Use with caution: Codex can edit files outside this workspace and access the internet without approval",
			protocol.ApprovalNever, protocol.SandboxDangerFullAccess},
		{"Read Only", "Read workspace files, with approval required for edits or internet access",
			protocol.ApprovalOnRequest, protocol.SandboxReadOnly},
	}
}

// openPermissionsPicker is /permissions (and /approvals): what the agent may do without asking.
func (m *Model) openPermissionsPicker(_, _ string) {
	p := &picker{title: "Update Model Permissions"}
	for i, pr := range permissionPresets() {
		cur := pr.approval.String() == m.header.Approval && string(pr.sandbox) == m.header.Sandbox
		p.items = append(p.items, pickerItem{label: pr.label, desc: pr.desc, value: fmt.Sprint(i), current: cur})
		if cur {
			p.selected = i
		}
	}
	p.onPick = func(m *Model, it pickerItem) tea.Cmd {
		var i int
		fmt.Sscan(it.value, &i)
		pr := permissionPresets()[i]
		approval, sandbox := pr.approval, protocol.SandboxPolicy{Mode: pr.sandbox}
		if m.submitOp(protocol.OverrideTurnContextOp{ApprovalPolicy: &approval, SandboxPolicy: &sandbox}) {
			m.header.Approval, m.header.Sandbox = approval.String(), string(pr.sandbox)
			m.tr.add(cell{kind: cellNote, body: "Permissions updated to " + pr.label})
			m.refresh()
		}
		return nil
	}
	m.picker = p
}

// compact is /compact: the thread summarizes its history to free the context window.
func (m *Model) compact(typed, _ string) {
	m.tr.closeStreams()
	m.tr.add(cell{kind: cellUser, body: typed})
	if m.submitOp(protocol.CompactOp{}) {
		m.running = true
	}
	m.refresh()
}

// listMcpTools is /mcp: the thread answers with mcp_list_tools_response (mcp_cells.go draws it).
func (m *Model) listMcpTools(typed, _ string) {
	m.tr.closeStreams()
	m.tr.add(cell{kind: cellUser, body: typed})
	m.submitOp(protocol.ListMcpToolsOp{})
	m.refresh()
}

// initPrompt asks the model to write AGENTS.md (our wording of what Codex's /init asks).
const initPrompt = `Generate a file named AGENTS.md in the current directory that serves as a contributor guide for this repository.
Look around the repository first (its layout, build files, tests, CI configuration and recent history) and write down only what is true of it.
Use Markdown with short sections, for example:
- Project structure and module organization: where the source, tests and assets live.
- Build, test and development commands, each with a one-line explanation.
- Coding style and naming conventions, and the formatters or linters in use.
- Testing guidelines: frameworks, how to run a single test, naming of test files.
- Commit and pull request guidelines, as the history shows them.
Keep it concise (200 to 400 words is usually enough), practical and specific to this repository.`

// initAgentsFile is /init: the model writes AGENTS.md, unless the directory has one already.
func (m *Model) initAgentsFile(typed, _ string) {
	if _, err := os.Stat(filepath.Join(m.header.Cwd, "AGENTS.md")); err == nil {
		m.tr.closeStreams()
		m.tr.add(cell{kind: cellUser, body: typed})
		m.tr.add(cell{kind: cellInfo, body: "AGENTS.md already exists here. Skipping /init to avoid overwriting it."})
		m.refresh()
		return
	}
	m.tr.closeStreams()
	m.tr.add(cell{kind: cellUser, body: typed})
	m.running = true
	m.submitOp(protocol.UserInputOp{Items: []protocol.InputItem{protocol.TextInput(initPrompt)}})
	m.refresh()
}

// mention is /mention: an @ in the composer starts a file mention.
func (m *Model) mention(_, _ string) {
	v := m.input.Value()
	if v != "" && !strings.HasSuffix(v, " ") && !strings.HasSuffix(v, "\n") {
		m.input.InsertString(" ")
	}
	m.input.InsertString("@")
}
