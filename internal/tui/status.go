package tui

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// diffTimeout bounds the git commands of /diff.
const diffTimeout = 10 * time.Second

// maxDiffLines keeps a huge diff from burying the conversation.
const maxDiffLines = 400

// showStatus is /status: the session's model, place, permissions, thread and token usage.
func (m *Model) showStatus(typed string) {
	m.tr.closeStreams()
	m.tr.add(cell{kind: cellUser, body: typed})
	var b strings.Builder
	fmt.Fprintf(&b, "Model:      %s\nDirectory:  %s\nApproval:   %s\nSandbox:    %s", m.header.Model, m.header.Cwd, m.header.Approval, m.header.Sandbox)
	if m.threadID != "" {
		fmt.Fprintf(&b, "\nSession:    %s", m.threadID)
	}
	mode := "default"
	if m.planMode {
		mode = "plan"
	}
	fmt.Fprintf(&b, "\nMode:       %s", mode)
	if m.usage != nil {
		b.WriteString("\n" + usageText(m.usage.TotalTokenUsage))
	}
	m.tr.add(cell{kind: cellNote, body: b.String()})
	m.refresh()
}

// showDiff is /diff: the working tree's changes against HEAD, untracked files included.
func (m *Model) showDiff(typed string) {
	m.tr.closeStreams()
	m.tr.add(cell{kind: cellUser, body: typed})
	defer m.refresh()
	ctx, cancel := context.WithTimeout(context.Background(), diffTimeout)
	defer cancel()
	git := func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, "git", args...)
		cmd.Dir = m.header.Cwd
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Run(); err != nil {
			return "", fmt.Errorf("%s", strings.TrimSpace(errOut.String()+" "+err.Error()))
		}
		return out.String(), nil
	}
	if _, err := git("rev-parse", "--is-inside-work-tree"); err != nil {
		m.tr.add(cell{kind: cellError, body: "/diff: not inside a git work tree: " + m.header.Cwd})
		return
	}
	diff, err := git("diff", "HEAD", "--no-color")
	if err != nil {
		// No commit yet: the index against the empty tree.
		diff, err = git("diff", "--no-color")
	}
	if err != nil {
		m.tr.add(cell{kind: cellError, body: "/diff: " + err.Error()})
		return
	}
	untracked, _ := git("ls-files", "--others", "--exclude-standard")
	var b strings.Builder
	b.WriteString(strings.TrimRight(diff, "\n"))
	for _, f := range strings.Fields(untracked) {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString("new file (untracked): " + f)
	}
	text := b.String()
	if text == "" {
		text = "No changes."
	}
	if lines := strings.Split(text, "\n"); len(lines) > maxDiffLines {
		text = strings.Join(lines[:maxDiffLines], "\n") + fmt.Sprintf("\n… %d more lines", len(lines)-maxDiffLines)
	}
	m.tr.add(cell{kind: cellNote, body: text})
}
