package items

import (
	"time"

	"github.com/gocodex/gocodex/protocol"
)

// applyTool handles commands, patches, MCP calls, web searches and hook runs, and the
// approval requests that start a command or patch before it begins.
func (f *Fold) applyTool(msg protocol.EventMsg) {
	switch m := msg.(type) {
	case protocol.ExecApprovalRequestEvent:
		f.closeReasoning()
		if _, ok := f.open[m.CallID]; !ok {
			f.startTool(m.CallID, &Command{Argv: m.Command, Cwd: m.Cwd, ParsedCmd: m.ParsedCmd, Status: StatusInProgress})
		}
	case protocol.ApplyPatchApprovalRequestEvent:
		f.closeReasoning()
		if _, ok := f.open[m.CallID]; !ok {
			f.startTool(m.CallID, &Patch{Changes: m.Changes, Status: StatusInProgress})
		}
	case protocol.ExecCommandBeginEvent:
		f.closeReasoning()
		if it, ok := f.open[m.CallID]; ok {
			if c, ok := it.body.(*Command); ok {
				c.Argv, c.Cwd, c.ParsedCmd = m.Command, m.Cwd, m.ParsedCmd
				c.ProcessID, c.Source, c.Begun = m.ProcessID, m.Source, true
				f.update(it, Delta{Kind: DeltaBegun})
			}
			return
		}
		f.startTool(m.CallID, &Command{Argv: m.Command, Cwd: m.Cwd, ParsedCmd: m.ParsedCmd, Source: m.Source,
			ProcessID: m.ProcessID, Begun: true, Status: StatusInProgress})
	case protocol.ExecCommandOutputDeltaEvent:
		if it, ok := f.open[m.CallID]; ok {
			if c, ok := it.body.(*Command); ok {
				if f.copies {
					c.output.Write(m.Chunk)
				}
				f.update(it, Delta{Kind: DeltaOutput, Chunk: m.Chunk})
			}
		}
	case protocol.ExecCommandEndEvent:
		it := f.endTool(m.CallID, &Command{})
		c, ok := it.body.(*Command)
		if !ok {
			c = &Command{}
			it.body = c
		}
		c.Argv, c.Cwd, c.ParsedCmd = m.Command, m.Cwd, m.ParsedCmd
		if m.Source != "" || !c.Begun {
			c.Source = m.Source
		}
		if m.ProcessID != "" {
			c.ProcessID = m.ProcessID
		}
		code := m.ExitCode
		c.ExitCode, c.Duration = &code, durationOf(m.Duration)
		c.AggregatedOutput, c.Stdout, c.Stderr = m.AggregatedOutput, m.Stdout, m.Stderr
		c.Status, c.RawStatus = commandStatus(m), m.Status
		f.emit(Completed, it)

	case protocol.PatchApplyBeginEvent:
		f.closeReasoning()
		if it, ok := f.open[m.CallID]; ok {
			if p, ok := it.body.(*Patch); ok {
				if len(m.Changes) > 0 {
					p.Changes = m.Changes
				}
				p.Begun = true
				f.update(it, Delta{Kind: DeltaBegun})
			}
			return
		}
		f.startTool(m.CallID, &Patch{Changes: m.Changes, Begun: true, Status: StatusInProgress})
	case protocol.PatchApplyEndEvent:
		it := f.endTool(m.CallID, &Patch{Changes: m.Changes})
		p, ok := it.body.(*Patch)
		if !ok {
			p = &Patch{Changes: m.Changes}
			it.body = p
		}
		if len(m.Changes) > 0 {
			p.Changes = m.Changes
		}
		p.Reported = m.Changes
		p.Status, p.RawStatus, p.Success = patchStatus(m), m.Status, m.Success
		p.Stdout, p.Stderr = m.Stdout, m.Stderr
		f.emit(Completed, it)

	case protocol.McpToolCallBeginEvent:
		f.closeReasoning()
		f.startTool(m.CallID, &McpCall{Invocation: m.Invocation, Status: StatusInProgress})
	case protocol.McpToolCallEndEvent:
		it := f.endTool(m.CallID, &McpCall{})
		c, ok := it.body.(*McpCall)
		if !ok {
			c = &McpCall{}
			it.body = c
		}
		c.Invocation, c.Duration, c.Result = m.Invocation, durationOf(m.Duration), m.Result
		c.Status = StatusCompleted
		if m.Result.Err != nil || !m.Result.IsSuccess() {
			c.Status = StatusFailed
		}
		f.emit(Completed, it)

	case protocol.HookStartedEvent:
		f.startTool("hook:"+m.Run.ID, &HookRun{TurnID: m.TurnID, Run: m.Run})
	case protocol.HookCompletedEvent:
		it := f.endTool("hook:"+m.Run.ID, nil)
		it.body = &HookRun{TurnID: m.TurnID, Run: m.Run}
		f.emit(Completed, it)

	case protocol.WebSearchBeginEvent:
		f.closeReasoning()
		f.startTool(m.CallID, &WebSearch{})
	case protocol.WebSearchEndEvent:
		it := f.endTool(m.CallID, &WebSearch{})
		w, ok := it.body.(*WebSearch)
		if !ok {
			w = &WebSearch{}
			it.body = w
		}
		w.Query, w.Action = m.Query, m.Action
		f.emit(Completed, it)
	}
}

func durationOf(d protocol.Duration) time.Duration { return time.Duration(d) }
