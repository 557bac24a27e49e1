package uicommands

import (
	"context"
	"errors"

	"github.com/gocodex/gocodex/agent"
	"github.com/gocodex/gocodex/internal/app"
	"github.com/gocodex/gocodex/internal/host/threads"
	"github.com/gocodex/gocodex/protocol"
)

// ErrNothingToRecap is Codex's answer when the thread has no conversation yet.
var ErrNothingToRecap = errors.New("There is no conversation history to recap.")

// recapPrompt asks for the recap (our wording of what Codex's /recap asks).
const recapPrompt = "Write a short recap of this conversation so far for the person: what they asked for, what was done (files changed, commands run, decisions made), and what is still open. Use a few bullet points. Do not call any tools."

// OpenSide starts a thread over the recorded thread's history that records nothing: what
// happens in it never reaches the thread (/side, /recap).
func OpenSide(ctx context.Context, a *app.App, codexHome, threadID string) (*agent.Thread, error) {
	store := threads.New(codexHome)
	path, archived, err := store.Find(threadID)
	if err != nil {
		return nil, err
	}
	if archived {
		return nil, errors.New("thread is archived: " + threadID)
	}
	ro, err := store.Read(path)
	if err != nil {
		return nil, err
	}
	history := ro.Reconstruct().History
	if len(history) == 0 {
		return nil, ErrNothingToRecap
	}
	return a.StartThread(ctx, app.ThreadOptions{Source: "cli", Ephemeral: true, InitialHistory: history})
}

// Recap has the model summarize the thread in a side thread, so neither the request nor
// the recap enters the thread's history, and returns the recap.
func Recap(ctx context.Context, a *app.App, codexHome, threadID string) (string, error) {
	th, err := OpenSide(ctx, a, codexHome, threadID)
	if err != nil {
		return "", err
	}
	defer func() {
		th.Submit(protocol.ShutdownOp{})
		for {
			ev, err := th.NextEvent(context.Background())
			if err != nil {
				return
			}
			if _, done := ev.Msg.(protocol.ShutdownCompleteEvent); done {
				return
			}
		}
	}()
	if _, err := th.Submit(protocol.UserInputOp{Items: []protocol.InputItem{protocol.TextInput(recapPrompt)}}); err != nil {
		return "", err
	}
	for {
		ev, err := th.NextEvent(ctx)
		if err != nil {
			return "", err
		}
		switch e := ev.Msg.(type) {
		case protocol.TurnCompleteEvent:
			if e.Error != nil {
				return "", errors.New(e.Error.Message)
			}
			if e.LastAgentMessage == nil || *e.LastAgentMessage == "" {
				return "", errors.New("Could not generate a recap. Please try again.")
			}
			return *e.LastAgentMessage, nil
		case protocol.TurnAbortedEvent:
			return "", errors.New("Could not generate a recap. Please try again.")
		case protocol.ErrorEvent:
			return "", errors.New(e.Message)
		}
	}
}
