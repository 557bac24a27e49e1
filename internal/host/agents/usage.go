package agents

import "github.com/gocodex/gocodex/protocol"

// AgentUsage is one sub-agent's token usage so far, with who it is.
type AgentUsage struct {
	ThreadID string
	Path     string
	Usage    protocol.TokenUsage
}

// recordUsage keeps a child's running total (its thread's token_count carries the total).
func (r *Registry) recordUsage(n *node, ev protocol.TokenCountEvent) {
	if ev.Info == nil {
		return
	}
	r.mu.Lock()
	n.usage = ev.Info.TotalTokenUsage
	r.mu.Unlock()
}

// Usage is the token usage of every agent below threadID (its children and theirs, those
// still known), in path order, and their sum: what the thread's work cost beyond its own
// requests. gocodex's own: Codex reports each child's usage on its own thread only.
func (r *Registry) Usage(threadID string) (each []AgentUsage, sum protocol.TokenUsage) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, n := range sortedNodes(r.nodes) {
		if n.thread == nil || !descends(n, threadID) {
			continue
		}
		each = append(each, AgentUsage{ThreadID: n.threadID, Path: n.path, Usage: n.usage})
		sum = sum.Add(n.usage)
	}
	return each, sum
}
