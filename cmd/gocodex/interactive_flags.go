package main

import (
	"fmt"

	"github.com/spf13/pflag"
)

// interactiveExtras are the flags of Codex's interactive UI (`codex`, `codex resume`,
// `codex fork`) beyond the shared ones. gocodex parses all of them so that a command line
// written for Codex gets a clear answer: --no-daemon (gocodex never uses a daemon) is
// honoured (--strict-config is a shared flag, faceopts), --worktree too for a new session; the
// rest name what gocodex lacks and refuse to start.
type interactiveExtras struct {
	Remote         string
	RemoteTokenEnv string
	ApproveForMe   bool
	Worktree       bool
	NoDaemon       bool
}

func (x *interactiveExtras) register(f *pflag.FlagSet) {
	registerRemoteFlags(f, &x.Remote, &x.RemoteTokenEnv)
	f.BoolVar(&x.ApproveForMe, "approve-for-me", false, "not supported by gocodex: route approvals through automatic review")
	f.BoolVar(&x.Worktree, "worktree", false, "run a new session in a new managed Git worktree (in $CODEX_HOME/worktrees)")
	f.BoolVar(&x.NoDaemon, "no-daemon", false, "run without a shared background server (gocodex never uses one)")
}

// check refuses the flags gocodex cannot honour, before anything starts; resuming says the
// command opens a saved session (resume, fork), which --worktree cannot move.
func (x interactiveExtras) check(resuming bool) error {
	if err := checkNoRemote(x.Remote, x.RemoteTokenEnv); err != nil {
		return err
	}
	switch {
	case x.ApproveForMe:
		return fmt.Errorf("gocodex does not support --approve-for-me (automatic approval review); use -a and -s to choose approvals and sandbox")
	case x.Worktree && resuming:
		return fmt.Errorf("gocodex does not support --worktree when resuming or forking a session: it starts new sessions in a managed worktree; resume from inside the worktree instead")
	}
	return nil
}
