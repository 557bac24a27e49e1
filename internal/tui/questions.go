package tui

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"

	tea "github.com/gocodex/gocodex/third_party/bubbletea"

	"github.com/gocodex/gocodex/protocol"
)

// Questions from the model (request_user_input): the bottom pane shows one question at a
// time with its options and a last "Other" choice for free text. ↑/↓ (or the option's
// number) choose, Enter answers, Esc interrupts the turn. Once every question has an answer
// they go to the engine as UserInputAnswer. As in Codex, a chosen option is answered by its
// label and free text as "user_note: <text>".

// questionPrompt is an open request_user_input.
type questionPrompt struct {
	req     protocol.RequestUserInputEvent
	index   int  // the question being answered
	cursor  int  // the highlighted choice; len(options) is "Other"
	typing  bool // free text is being written in the composer
	answers map[string]protocol.RequestUserInputAnswer
}

func newQuestionPrompt(req protocol.RequestUserInputEvent) *questionPrompt {
	return &questionPrompt{req: req, answers: map[string]protocol.RequestUserInputAnswer{}}
}

func (q *questionPrompt) current() protocol.RequestUserInputQuestion { return q.req.Questions[q.index] }

// choices is the number of rows: the options, then "Other" when free text is allowed (a
// question without options takes free text only).
func (q *questionPrompt) choices() int {
	n := len(q.current().Options)
	if q.current().IsOther || n == 0 {
		n++
	}
	return n
}

// isOther reports whether row i is the free-text row.
func (q *questionPrompt) isOther(i int) bool { return i >= len(q.current().Options) }

// questionOpened shows a new request; one with no questions is answered at once.
func (m *Model) questionOpened(req protocol.RequestUserInputEvent) {
	m.question = newQuestionPrompt(req)
	if len(req.Questions) == 0 {
		m.finishQuestions()
		return
	}
	m.startQuestion()
}

// startQuestion readies the current question: free text straight away when there is
// nothing to choose from.
func (m *Model) startQuestion() {
	q := m.question
	q.cursor = 0
	q.typing = len(q.current().Options) == 0
	m.input.Reset()
}

// answerQuestionKey handles a key while a question is open.
func (m *Model) answerQuestionKey(k tea.KeyPressMsg) tea.Cmd {
	q := m.question
	ks := k.String()
	if ks == "esc" {
		if q.typing && len(q.current().Options) > 0 {
			q.typing = false // back to the options
			m.input.Reset()
			return nil
		}
		m.submitOp(protocol.InterruptOp{})
		return nil
	}
	if q.typing {
		if ks == "enter" {
			text := strings.TrimSpace(m.input.Value())
			if text == "" {
				return nil
			}
			m.answer([]string{"user_note: " + text}, text)
			return nil
		}
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(k)
		return cmd
	}
	switch ks {
	case "up", "k":
		q.cursor = (q.cursor + q.choices() - 1) % q.choices()
	case "down", "j", "tab":
		q.cursor = (q.cursor + 1) % q.choices()
	case "enter":
		m.choose(q.cursor)
	default:
		if len(ks) == 1 && ks[0] >= '1' && ks[0] <= '9' {
			if i := int(ks[0] - '1'); i < q.choices() {
				m.choose(i)
			}
		}
	}
	return nil
}

// choose answers with option i, or starts free text for "Other".
func (m *Model) choose(i int) {
	q := m.question
	q.cursor = i
	if q.isOther(i) {
		q.typing = true
		m.input.Reset()
		return
	}
	label := q.current().Options[i].Label
	m.answer([]string{label}, label)
}

// answer records the current question's answer and moves on; after the last it sends them.
func (m *Model) answer(values []string, shown string) {
	q := m.question
	cur := q.current()
	q.answers[cur.ID] = protocol.RequestUserInputAnswer{Answers: values}
	if cur.IsSecret {
		shown = "(hidden)"
	}
	m.tr.add(cell{kind: cellNote, body: "✔ " + cur.Header + ": " + shown})
	m.input.Reset()
	q.index++
	if q.index < len(q.req.Questions) {
		m.startQuestion()
		m.refresh()
		return
	}
	m.finishQuestions()
}

func (m *Model) finishQuestions() {
	q := m.question
	m.question = nil
	m.submitOp(protocol.UserInputAnswerOp{ID: q.req.TurnID, Response: protocol.RequestUserInputResponse{Answers: q.answers}})
	m.refresh()
}

// questionView is the bottom pane while a question is open.
func (m *Model) questionView() string {
	q := m.question
	cur := q.current()
	title := cur.Header
	if n := len(q.req.Questions); n > 1 {
		title += fmt.Sprintf(" (%d of %d)", q.index+1, n)
	}
	lines := []string{m.st.bold.Render(title), cur.Question, ""}
	for i := 0; i < q.choices(); i++ {
		label, desc := "Other", "type your own answer"
		if !q.isOther(i) {
			label, desc = cur.Options[i].Label, cur.Options[i].Description
		}
		mark := "  "
		if i == q.cursor {
			mark = "› "
		}
		line := fmt.Sprintf("%s%d. %s", mark, i+1, label)
		if desc != "" {
			line += "  " + m.st.dim.Render(desc)
		}
		lines = append(lines, line)
	}
	inner := max(10, m.width-4)
	for i, l := range lines {
		lines[i] = truncate(l, inner)
	}
	hint := "↑/↓ choose   ⏎ answer   esc interrupt"
	if !q.typing {
		lines = append(lines, "", m.st.dim.Render(truncate(hint, inner)))
	}
	box := lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(lipgloss.Cyan).Padding(0, 1)
	out := box.Render(strings.Join(lines, "\n"))
	if q.typing {
		// The answer is written in the composer, under the question.
		hint = "⏎ answer   esc back"
		if len(cur.Options) == 0 {
			hint = "⏎ answer   esc interrupt"
		}
		composer := lipgloss.NewStyle().Border(lipgloss.RoundedBorder())
		out += "\n" + composer.Render(m.input.View()) + "\n" + m.st.dim.Render(truncate(hint, m.width))
	}
	return out
}
