// Command testserver is an MCP server built on the go-sdk, used by the MCP client tests. One
// binary plays every server the tests need:
//
//	testserver                        stdio server
//	testserver -http                  streamable-HTTP server on 127.0.0.1; prints its URL
//	testserver -hang                  never answers initialize (a server that never starts)
//	testserver -start-delay 300ms     answers only after a delay (a server that joins later)
//	testserver -require-header K=V;…  (HTTP) answers 401 unless the request carries the headers
//
// Tools: echo{text}, add{a,b}, slow{ms} (sleeps), fail (isError), env{name}, cwd, and a tool
// whose name needs sanitising. Resources: test://readme and the template test://items/{id}.
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	useHTTP := flag.Bool("http", false, "serve streamable HTTP on 127.0.0.1 and print the URL")
	hang := flag.Bool("hang", false, "never answer")
	delay := flag.Duration("start-delay", 0, "wait before serving")
	name := flag.String("name", "testserver", "server name reported in initialize")
	header := flag.String("require-header", "", "K=V[;K2=V2…] headers every HTTP request must carry")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	if *hang && !*useHTTP {
		// Read and drop stdin so the client's writes never block, and never answer.
		buf := make([]byte, 4096)
		for {
			if _, err := os.Stdin.Read(buf); err != nil {
				<-ctx.Done() // stdin closed: still do not exit until signalled
				return
			}
		}
	}
	if *delay > 0 {
		time.Sleep(*delay)
	}
	srv := newServer(*name)
	if !*useHTTP {
		if err := srv.Run(ctx, &mcp.StdioTransport{}); err != nil && ctx.Err() == nil {
			fmt.Fprintln(os.Stderr, "testserver:", err)
			os.Exit(1)
		}
		return
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "testserver:", err)
		os.Exit(1)
	}
	var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	if *hang {
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	}
	for _, kv := range strings.Split(*header, ";") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		inner := h
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get(k) != v {
				http.Error(w, "missing "+k, http.StatusUnauthorized)
				return
			}
			inner.ServeHTTP(w, r)
		})
	}
	fmt.Printf("http://%s/mcp\n", ln.Addr())
	hs := &http.Server{Handler: h}
	go func() { <-ctx.Done(); hs.Close() }()
	_ = hs.Serve(ln)
}

type echoIn struct {
	Text string `json:"text" jsonschema:"the text to echo"`
}
type addIn struct {
	A int `json:"a"`
	B int `json:"b"`
}
type sumOut struct {
	Sum int `json:"sum"`
}
type slowIn struct {
	MS int `json:"ms" jsonschema:"milliseconds to sleep"`
}
type envIn struct {
	Name string `json:"name"`
}
type empty struct{}

const longToolName = "a_really_long_tool_name_that_goes_on_and_on_and_on_beyond_sixty_four_characters"

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func newServer(name string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: name, Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echoes the text back."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			return text("echo: " + in.Text), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "peek", Description: "Echoes the text back; read-only.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			return text("peek: " + in.Text), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "Adds two numbers."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in addIn) (*mcp.CallToolResult, sumOut, error) {
			return nil, sumOut{Sum: in.A + in.B}, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "slow", Description: "Sleeps, then answers."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in slowIn) (*mcp.CallToolResult, any, error) {
			select {
			case <-time.After(time.Duration(in.MS) * time.Millisecond):
				return text("slept"), nil, nil
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			}
		})
	mcp.AddTool(s, &mcp.Tool{Name: "fail", Description: "Always fails."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ empty) (*mcp.CallToolResult, any, error) {
			r := text("it failed")
			r.IsError = true
			return r, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "env", Description: "Returns an environment variable."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in envIn) (*mcp.CallToolResult, any, error) {
			return text(os.Getenv(in.Name)), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "cwd", Description: "Returns the working directory."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ empty) (*mcp.CallToolResult, any, error) {
			wd, _ := os.Getwd()
			return text(wd), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "weird.name-tool", Description: "A name with dots and dashes."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ empty) (*mcp.CallToolResult, any, error) {
			return text("weird"), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: longToolName, Description: "A name too long for the model."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ empty) (*mcp.CallToolResult, any, error) {
			return text("long"), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "crash", Description: "Exits the server without answering."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ empty) (*mcp.CallToolResult, any, error) {
			os.Exit(3)
			return nil, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "grow", Description: "Adds the tool `grown` (the client is told the list changed)."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ empty) (*mcp.CallToolResult, any, error) {
			mcp.AddTool(s, &mcp.Tool{Name: "grown", Description: "Added at run time."},
				func(ctx context.Context, _ *mcp.CallToolRequest, _ empty) (*mcp.CallToolResult, any, error) {
					return text("grown"), nil, nil
				})
			return text("grew"), nil, nil
		})
	s.AddResource(&mcp.Resource{URI: "test://readme", Name: "readme", MIMEType: "text/plain"},
		func(ctx context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: r.Params.URI, MIMEType: "text/plain", Text: "read me"}}}, nil
		})
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "test://items/{id}", Name: "item"},
		func(ctx context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: r.Params.URI, Text: "item " + strings.TrimPrefix(r.Params.URI, "test://items/")}}}, nil
		})
	return s
}
