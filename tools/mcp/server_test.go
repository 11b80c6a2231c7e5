package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The fault-case servers are real MCP servers built with the SDK: this test
// binary runs one over stdio when CO_MCP_TEST_SERVER says so (as a local
// server co starts), and the tests serve the same over streamable HTTP in
// process.
func TestMain(m *testing.M) {
	switch os.Getenv("CO_MCP_TEST_SERVER") {
	case "":
		os.Exit(m.Run())
	case "hang-start":
		fmt.Fprintln(os.Stderr, "test server: never answering initialize")
		if p := os.Getenv("CO_MCP_TEST_PIDFILE"); p != "" {
			mark(p, []byte(strconv.Itoa(os.Getpid())))
		}
		time.Sleep(time.Hour)
	case "junk":
		// A server that prints a banner, with an escape sequence, to
		// stdout before it serves: stdout is the protocol's.
		fmt.Print("hello from the server \x1b[2J, version 1.0\n")
		if err := newTestServer().Run(context.Background(), &sdk.StdioTransport{}); err != nil {
			os.Exit(1)
		}
	case "elicit":
		if err := elicitStdioServer().Run(context.Background(), &sdk.StdioTransport{}); err != nil {
			os.Exit(1)
		}
	case "stubborn":
		// Serves, then ignores both the end of stdin and SIGTERM.
		signal.Ignore(syscall.SIGTERM)
		// A child in its group, which only killing the group ends (the
		// SDK's own close signals the server's process alone).
		_ = exec.Command("sleep", "3600").Start()
		if p := os.Getenv("CO_MCP_TEST_PIDFILE"); p != "" {
			mark(p, []byte(strconv.Itoa(os.Getpid())))
		}
		_ = newTestServer().Run(context.Background(), &sdk.StdioTransport{})
		time.Sleep(time.Hour)
	default:
		fmt.Fprintln(os.Stderr, "test server: serving on stdio")
		if p := os.Getenv("CO_MCP_TEST_PIDFILE"); p != "" {
			mark(p, []byte(strconv.Itoa(os.Getpid())))
		}
		if p := os.Getenv("CO_MCP_TEST_ENVFILE"); p != "" { // what environment it was given
			mark(p, []byte(strings.Join(os.Environ(), "\n")+"\n"))
		}
		if err := newTestServer().Run(context.Background(), &sdk.StdioTransport{}); err != nil {
			fmt.Fprintln(os.Stderr, "test server:", err)
			os.Exit(1)
		}
		if p := os.Getenv("CO_MCP_TEST_EXITED"); p != "" { // a clean shutdown: stdin ended
			mark(p, []byte("exited"))
		}
	}
	os.Exit(0)
}

// mark writes the marker file p for the test; one it cannot write leaves
// the test waiting for it, so the reason goes to stderr, which the test
// shows.
func mark(p string, b []byte) {
	if err := os.WriteFile(p, b, 0o600); err != nil {
		fmt.Fprintln(os.Stderr, "test server:", err)
	}
}

func text(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}

var objectSchema = json.RawMessage(`{"type":"object"}`)

// newTestServer is a server with one tool per fault case.
func newTestServer() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "co-test", Version: "1"}, nil)
	s.AddTool(&sdk.Tool{Name: "echo", Description: "Echo the text back.",
		InputSchema: json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",` +
			`"properties":{"text":{"type":"string"}},"required":["text"],"additionalProperties":false}`)},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			var a struct{ Text string }
			_ = json.Unmarshal(req.Params.Arguments, &a)
			return text("echo: " + a.Text), nil
		})
	s.AddTool(&sdk.Tool{Name: "big", Description: "Return 1 MB of text.", InputSchema: objectSchema},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return text(strings.Repeat("x", 1<<20)), nil
		})
	s.AddTool(&sdk.Tool{Name: "fail", Description: "Fail as a tool does.", InputSchema: objectSchema},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			r := text("the widget is jammed; try widget 2")
			r.IsError = true
			return r, nil
		})
	s.AddTool(&sdk.Tool{Name: "hang", Description: "Never answer.", InputSchema: objectSchema},
		func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			if p := os.Getenv("CO_MCP_TEST_HANGING"); p != "" { // the call has arrived
				mark(p, []byte("hanging"))
			}
			<-ctx.Done()
			// The SDK cancels a handler's context on notifications/cancelled.
			if p := os.Getenv("CO_MCP_TEST_CANCELLED"); p != "" {
				mark(p, []byte("cancelled"))
			}
			return nil, ctx.Err()
		})
	s.AddTool(&sdk.Tool{Name: "exit", Description: "Exit in the middle of the call.", InputSchema: objectSchema},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			os.Exit(3)
			return nil, nil
		})
	s.AddTool(&sdk.Tool{Name: "grow", Description: "Add a tool.", InputSchema: objectSchema},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			s.AddTool(&sdk.Tool{Name: "added", Description: "Added at run time.", InputSchema: objectSchema},
				func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) { return text("added"), nil })
			return text("grown"), nil
		})
	s.AddTool(&sdk.Tool{Name: "picture", Description: "Return an image and a resource.", InputSchema: objectSchema},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{
				&sdk.TextContent{Text: "here it is"},
				&sdk.ImageContent{MIMEType: "image/png", Data: make([]byte, 2048)},
				&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///a.txt", MIMEType: "text/plain", Text: "abc"}},
			}}, nil
		})
	return s
}
