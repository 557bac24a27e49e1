// fakebrowser is the $BROWSER of the MCP OAuth tests: it opens the authorization URL it is
// given as a person's browser would, following the authorization server's redirect to the
// local callback, and exits 0 when the callback answered 200. With FAKEBROWSER_STATE set it
// replaces the state of the redirect, as an attacker's forged callback would.
package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: fakebrowser URL")
		os.Exit(2)
	}
	client := &http.Client{Timeout: 30 * time.Second}
	if forged := os.Getenv("FAKEBROWSER_STATE"); forged != "" {
		client.CheckRedirect = func(req *http.Request, _ []*http.Request) error {
			q := req.URL.Query()
			q.Set("state", forged)
			req.URL.RawQuery = q.Encode()
			return nil
		}
	}
	resp, err := client.Get(os.Args[len(os.Args)-1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakebrowser:", err)
		os.Exit(1)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		fmt.Fprintf(os.Stderr, "fakebrowser: %s: %s\n", resp.Status, body)
		os.Exit(1)
	}
}
