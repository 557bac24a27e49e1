package main

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/gocodex/gocodex/internal/faceopts"
)

// sessionCommandFlags are the flags Codex's archive, unarchive and delete accept (its
// interactive UI's, shared by every session command). The configuration ones choose the
// CODEX_HOME and config the command reads; the rest change nothing for these commands,
// except --remote, which would act on another machine's sessions and is refused.
type sessionCommandFlags struct {
	faceopts.Flags
	Remote          string
	RemoteTokenEnv  string
	ApproveForMe    bool
	BypassHookTrust bool
	Worktree        bool
}

const sessionCommandSets = faceopts.Config | faceopts.Features | faceopts.Model | faceopts.Profile | faceopts.Sandbox |
	faceopts.Cd | faceopts.OSS | faceopts.Images | faceopts.AddDir | faceopts.Bypass | faceopts.StrictConfig

func (o *sessionCommandFlags) register(f *pflag.FlagSet) {
	o.Flags.Register(f, sessionCommandSets)
	registerRemoteFlags(f, &o.Remote, &o.RemoteTokenEnv)
	f.BoolVar(&o.ApproveForMe, "approve-for-me", false, "accepted for compatibility with Codex; no effect here")
	f.BoolVar(&o.BypassHookTrust, "dangerously-bypass-hook-trust", false, "accepted for compatibility with Codex; no effect here")
	f.BoolVar(&o.Worktree, "worktree", false, "accepted for compatibility with Codex; no effect here")
}

// registerRemoteFlags adds Codex's --remote and --remote-auth-token-env, which gocodex
// parses only to refuse (checkNoRemote): it has no client for a remote app server.
func registerRemoteFlags(f *pflag.FlagSet, remote, tokenEnv *string) {
	f.StringVar(remote, "remote", "", "not supported by gocodex: connect to a remote app server")
	f.StringVar(tokenEnv, "remote-auth-token-env", "", "not supported by gocodex: bearer token variable for --remote")
}

func checkNoRemote(remote, tokenEnv string) error {
	if remote != "" || tokenEnv != "" {
		return fmt.Errorf("gocodex does not support --remote: it has no client for a remote app server; run the command on that machine")
	}
	return nil
}
