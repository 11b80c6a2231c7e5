package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/agent/provider"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/tools"
	"github.com/co-cli/co/tools/mcp"
	"github.com/co-cli/co/tools/mcp/mcptest"
)

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startHTTPEverything runs the reference server over streamable HTTP on a
// free port (it reads PORT) and returns its URL once it listens.
func startHTTPEverything(t *testing.T) string {
	t.Helper()
	port := freePort(t)
	cmd := exec.Command("node", mcptest.Everything(t), "streamableHttp")
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// The server runs until killed: Kill fails only if it died on its
		// own, and Wait, which reaps it either way, reports the kill.
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	waitFor(t, func() bool {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	return "http://" + addr + "/mcp"
}

func checkEverything(t *testing.T, f *fixture, server string) {
	t.Helper()
	if n := f.start(t); len(n) != 0 {
		t.Fatalf("notices: %v", n)
	}
	st := f.m.Statuses()[0]
	if st.State != mcp.Connected || len(st.Tools) < 5 {
		t.Fatalf("status: %+v", st)
	}
	res, err := run(t, f.tool(t, "mcp__"+server+"__echo"), `{"message":"hello"}`)
	if err != nil || res.Display != "Echo: hello" {
		t.Errorf("echo: %q %v", res.Display, err)
	}
	// The server's words are someone else's: an untrusted, private source.
	if want := []tools.Origin{tools.UntrustedPrivate("mcp", "mcp "+server+".echo")}; !slices.Equal(res.Origins, want) {
		t.Errorf("echo origins: %+v, want %+v", res.Origins, want)
	}
	// And every call is outbound, get-sum's arithmetic included.
	c := tools.Decide(context.Background(), f.tool(t, "mcp__"+server+"__get-sum"), json.RawMessage(`{"a":2,"b":3}`))
	if c.Outbound == nil || c.Outbound.To != "MCP server "+server+" (tool get-sum)" || c.Outbound.What != `{"a":2,"b":3}` {
		t.Errorf("get-sum check: %+v", c.Outbound)
	}
	res, err = run(t, f.tool(t, "mcp__"+server+"__get-sum"), `{"a":2,"b":3}`)
	if err != nil || !strings.Contains(res.Display, "is 5") {
		t.Errorf("get-sum: %q %v", res.Display, err)
	}
	res, err = run(t, f.tool(t, "mcp__"+server+"__get-tiny-image"), `{}`)
	if err != nil || !strings.Contains(res.Display, "[image: image/png,") {
		t.Errorf("get-tiny-image: %q %v", res.Display, err)
	}
	// Every schema the server sends is one Gemini accepts once simplified,
	// and still one co's validator compiles.
	v := tools.NewValidator()
	for _, tl := range f.reg.All() {
		if err := v.Validate(tl, json.RawMessage(`{}`)); err != nil && !tools.IsRetry(err) {
			t.Errorf("%s: %v", tl.Name(), err)
		}
	}
}

func TestEverythingStdio(t *testing.T) {
	cfg := mcp.ServerConfig{Name: "everything", Command: "node", Args: []string{mcptest.Everything(t), "stdio"},
		Env: map[string]string{"CO_TEST_PASSED": "${CO_TEST_MCP_VALUE}"}, Timeout: 20 * time.Second}
	t.Setenv("CO_TEST_MCP_VALUE", "from-co")
	f := newFixture(t, cfg)
	checkEverything(t, f, "everything")
	res, err := run(t, f.tool(t, "mcp__everything__get-env"), `{}`)
	if err != nil || !strings.Contains(res.Display, `"CO_TEST_PASSED": "from-co"`) && !strings.Contains(res.Display, `"CO_TEST_PASSED":"from-co"`) {
		t.Errorf("env with ${VAR} reaches the server: %v", err)
	}
}

func TestEverythingStreamableHTTP(t *testing.T) {
	url := startHTTPEverything(t)
	f := newFixture(t, mcp.ServerConfig{Name: "remote", URL: url, Timeout: 20 * time.Second})
	checkEverything(t, f, "remote")
}

// A model calls a tool of the reference server through the agent, against
// the imitation of Gemini: the request carrying the server's tools is one
// Google accepts, the call asks for approval, and its result reaches the
// model.
func TestEverythingThroughAgentGemini(t *testing.T) {
	cfg := mcp.ServerConfig{Name: "everything", Command: "node", Args: []string{mcptest.Everything(t), "stdio"}, Timeout: 20 * time.Second}
	f := newFixture(t, cfg)
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	srv.SetProfile(llmtest.ProfileGemini)
	srv.SetAPIKey("k")
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	defer func() {
		if err := tp.Shutdown(context.Background()); err != nil {
			t.Error(err)
		}
	}()
	ag := agent.New(agent.Config{
		Tracer:     tp.Tracer("test"),
		Provider:   provider.Provider{Name: "gemini", BaseURL: srv.URL, APIKey: "k", Model: "gemini-3.8-flash"},
		Tools:      f.reg,
		Approvals:  agent.NewApprovals(agent.ApprovalOptions{Isolated: true}),
		ToolsStart: f.m.Start,
		ToolsReady: f.m.Ready,
		Retry:      provider.RetryPolicy{Base: 10 * time.Millisecond},
	})
	srv.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "mcp__everything__get-sum", Args: `{"a":40,"b":2}`}}},
		llmtest.Reply{Text: "42"},
	)
	var asked []agent.PendingCall
	var evs []agent.Event
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for ev := range ag.Submit(ctx, "add 40 and 2") {
		evs = append(evs, ev)
		if req, ok := ev.(agent.ApprovalRequested); ok {
			asked = append(asked, req.Calls...)
			req.Reply([]message.Verdict{message.ApproveOnce})
		}
	}
	if fin, ok := evs[len(evs)-1].(agent.TurnFinished); !ok || fin.Text != "42" {
		t.Fatalf("turn: %#v", evs[len(evs)-1])
	}
	if len(asked) != 1 || !strings.Contains(asked[0].Check.Preview, "server: everything\ntool: get-sum") {
		t.Errorf("asked: %+v", asked)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("requests: %d", len(reqs))
	}
	if !strings.Contains(string(reqs[0].Raw), `"mcp__everything__echo"`) {
		t.Errorf("the first request lacks the server's tools (the turn must wait for them)")
	}
	results := reqs[1].ToolResults()
	result := ""
	if len(results) > 0 {
		result = results[len(results)-1]
	}
	if !strings.Contains(result, "The sum of 40 and 2 is 42.") {
		t.Errorf("the model received %q", result)
	}
	attrs := map[string]string{}
	for _, s := range rec.Ended() {
		if s.Name() == "execute_tool mcp__everything__get-sum" {
			for _, kv := range s.Attributes() {
				attrs[string(kv.Key)] = kv.Value.String()
			}
		}
	}
	if attrs["co.mcp.server"] != "everything" || attrs["co.mcp.tool"] != "get-sum" || attrs["co.tool.family"] != "mcp" {
		t.Errorf("execute_tool span attributes: %v", attrs)
	}
}
