// oauthmcp runs testkit's OAuth-protected MCP server on its own, to point a binary at by hand
// (`codex mcp add NAME --url URL`); it prints the MCP URL and serves until interrupted.
package main

import (
	"fmt"
	"os"
	"os/signal"
	"testing"

	"github.com/gocodex/gocodex/internal/testkit/oauthmcp"
)

func main() {
	testing.Init()
	var tb standalone
	s := oauthmcp.New(&tb)
	fmt.Println(s.URL())
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt)
	<-stop
	for _, r := range s.Requests() {
		fmt.Fprintln(os.Stderr, r)
	}
}

// standalone is enough of testing.TB for the server outside a test.
type standalone struct{ testing.TB }

func (standalone) Cleanup(func()) {}
