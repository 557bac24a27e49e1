package tui

import (
	tea "github.com/gocodex/gocodex/third_party/bubbletea"
)

// feedbackKinds are Codex's /feedback classifications, in its order.
var feedbackKinds = []pickerItem{
	{label: "bug", value: "bug", desc: "Crash, error message, hang, or broken UI/behavior"},
	{label: "bad result", value: "bad_result", desc: "Output was off-target, incorrect, incomplete, or unhelpful"},
	{label: "good result", value: "good_result", desc: "Helpful, correct, high-quality, or delightful result worth celebrating"},
	{label: "safety check", value: "safety_check", desc: "Benign usage blocked due to safety checks or refusals"},
	{label: "other", value: "other", desc: "Slowness, feature suggestion, UX feedback, or anything else"},
}

// feedback is /feedback [note]: the kind, then whether logs and the thread go with it;
// gocodex has no upload endpoint, so the report is a local ZIP (CODEX_HOME/feedback), as
// Codex's "save ZIP" makes. The rest of the line is the note.
func (m *Model) feedback(typed, note string) {
	m.tr.closeStreams()
	m.tr.add(cell{kind: cellUser, body: typed})
	if m.ui.host.SaveFeedback == nil {
		m.tr.add(cell{kind: cellError, body: "/feedback is not available here: the host cannot write a feedback ZIP."})
		m.refresh()
		return
	}
	p := &picker{title: "How was this?", items: feedbackKinds}
	p.onPick = func(m *Model, kind pickerItem) tea.Cmd {
		logs := &picker{title: "Include logs and session history? Saving a ZIP does not send anything anywhere; the files may contain prompts, commands, and tool output.",
			items: []pickerItem{
				{label: "Yes", value: "yes", desc: "Include session logs and the thread in the ZIP"},
				{label: "No", value: "no", desc: "Keep only your note and report metadata"},
			}}
		logs.onPick = func(m *Model, it pickerItem) tea.Cmd {
			path, err := m.ui.host.SaveFeedback(FeedbackReport{ThreadID: m.threadID, Classification: kind.value,
				Note: note, IncludeLogs: it.value == "yes", Now: m.now()})
			if err != nil {
				m.tr.add(cell{kind: cellError, body: "/feedback: " + err.Error()})
			} else {
				m.tr.add(cell{kind: cellNote, body: "Feedback ZIP saved to " + path})
			}
			m.refresh()
			return nil
		}
		m.picker = logs
		return nil
	}
	m.picker = p
	m.refresh()
}
