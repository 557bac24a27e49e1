package appserver

import "context"

//go:generate go run ./rpcgen/cmd -schema schemagen/codex-schema.tar.zst -out . -source "Codex 0.171"

// unsupportedMethods are the requests of the schema gocodex does not implement: their API
// methods answer errUnsupportedMethod, and they stay out of the method table so that they
// answer as every method gocodex does not serve (unhandledMethod) and are left out of the
// schema `gocodex app-server generate-*` writes.
//
// Codex 0.171's stable requests are all answered; a newer schema's new methods are listed
// here, one by one, until they are implemented.
var unsupportedMethods = map[string]bool{}

// noParams adapts an API method whose request has no params: absent or null params, or an
// object (its members ignored), as Codex reads them.
func noParams[R any](f func(ctx context.Context, c *Conn) (R, error)) TypedHandler {
	return TypedOptional(func(ctx context.Context, c *Conn, _ struct{}) (R, error) {
		return f(ctx, c)
	})
}

// api answers the requests of the generated interfaces (rpc_api_gen.go); its methods live
// beside the code of their family (v2_fs.go: FsAPI, …).
type api struct {
	s *Server
	r *threads
	// features are the runtime switches experimentalFeature/enablement/set flips.
	features *runtimeFeatures
	// logins are the sign-ins account/login/start began.
	logins *logins
	// imports is the history of externalAgentConfig/import.
	imports *importHistories
}
