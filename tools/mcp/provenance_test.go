package mcp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/agent/provider"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/tools"
	"github.com/co-cli/co/tools/mcp"
)

// provenanceServer is the fault-case server plus a tool it marks
// read-only, served over streamable HTTP in process.
func provenanceServer(t *testing.T) string {
	t.Helper()
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server {
		s := newTestServer()
		s.AddTool(&sdk.Tool{Name: "lookup", Description: "Look a word up on the web.", InputSchema: objectSchema,
			Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(true)}},
			func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				return text("a definition"), nil
			})
		return s
	}, nil)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close) // after the manager's Close: the SSE stream holds a request open
	return srv.URL
}

func TestMCPResultsAreUntrustedUnlessTheUserTrustsTheServer(t *testing.T) {
	url := provenanceServer(t)
	f := newFixture(t,
		mcp.ServerConfig{Name: "fx", URL: url, Timeout: 5 * time.Second},
		mcp.ServerConfig{Name: "mine", URL: url, Timeout: 5 * time.Second, TrustedContent: true, AutoApprove: true},
	)
	if n := f.start(t); len(n) != 0 {
		t.Fatalf("notices: %v", n)
	}
	res, err := run(t, f.tool(t, "mcp__fx__echo"), `{"text":"hi"}`)
	want := []tools.Origin{tools.UntrustedPrivate("mcp", "mcp fx.echo")}
	if err != nil || res.Display != "echo: hi" || !slices.Equal(res.Origins, want) || !res.Origins[0].Untrusted || res.Origins[0].Public {
		t.Errorf("fx echo: %q %+v %v", res.Display, res.Origins, err)
	}
	// An error the server reports quotes it: the same origin.
	res, err = run(t, f.tool(t, "mcp__fx__fail"), `{}`)
	if !tools.IsRetry(err) || !slices.Equal(res.Origins, []tools.Origin{tools.UntrustedPrivate("mcp", "mcp fx.fail")}) {
		t.Errorf("fx fail: %+v %v", res.Origins, err)
	}
	// The user vouched for "mine": its results are the workspace's kind.
	res, err = run(t, f.tool(t, "mcp__mine__echo"), `{"text":"hi"}`)
	if err != nil || res.Display != "echo: hi" || len(res.Origins) != 0 {
		t.Errorf("mine echo: %q %+v %v", res.Display, res.Origins, err)
	}
	if st := f.m.Statuses(); st[0].TrustedContent || !st[1].TrustedContent {
		t.Errorf("statuses: %+v", st)
	}

	// A call that never reached the server carries nothing of it.
	tl := f.tool(t, "mcp__fx__echo")
	f.m.Close()
	res, err = run(t, tl, `{"text":"hi"}`)
	if err == nil || len(res.Origins) != 0 {
		t.Errorf("after close: %+v %v", res.Origins, err)
	}
}

func TestMCPCallsAreOutbound(t *testing.T) {
	url := provenanceServer(t)
	f := newFixture(t,
		mcp.ServerConfig{Name: "fx", URL: url, Timeout: 5 * time.Second},
		mcp.ServerConfig{Name: "mine", URL: url, Timeout: 5 * time.Second, TrustedContent: true, AutoApprove: true},
	)
	if n := f.start(t); len(n) != 0 {
		t.Fatalf("notices: %v", n)
	}
	ctx := context.Background()
	for _, tc := range []struct {
		tool, args, to, what string
		decision             tools.Decision
	}{
		{"mcp__fx__echo", "{\n  \"text\": \"the budget\"\n}", "MCP server fx (tool echo)", `{"text":"the budget"}`, tools.Ask},
		// Read-only by its own account, a web request all the same.
		{"mcp__fx__lookup", `{"q":"x"}`, "MCP server fx (tool lookup)", `{"q":"x"}`, tools.Ask},
		{"mcp__fx__big", ``, "MCP server fx (tool big)", `{}`, tools.Ask},
		// Trusted and auto-approved: it runs, and its arguments still leave.
		{"mcp__mine__echo", `{"text":"hi"}`, "MCP server mine (tool echo)", `{"text":"hi"}`, tools.Allow},
	} {
		c := tools.Decide(ctx, f.tool(t, tc.tool), json.RawMessage(tc.args))
		if c.Decision != tc.decision || c.Outbound == nil || c.Outbound.To != tc.to || c.Outbound.What != tc.what || c.Outbound.Exact || c.Outbound.UserHost {
			t.Errorf("%s: %v %+v", tc.tool, c.Decision, c.Outbound)
		}
	}
	long := `{"text":"` + strings.Repeat("é", 600) + `"}`
	c := tools.Decide(ctx, f.tool(t, "mcp__fx__echo"), json.RawMessage(long))
	if w := c.Outbound.What; !strings.HasSuffix(w, "… (111 more characters)") || !strings.HasPrefix(w, `{"text":"éé`) {
		t.Errorf("long arguments: %q", w)
	}
	if !strings.Contains(c.Preview, strings.Repeat("é", 600)) {
		t.Error("the preview keeps the whole arguments")
	}
}

// Through the agent: an auto-approved server's call runs unasked until an
// untrusted MCP result is in the conversation, then always asks, naming
// it; a trusted server's own results leave its calls alone.
func TestMCPCallAfterUntrustedResultAsks(t *testing.T) {
	url := provenanceServer(t)
	f := newFixture(t,
		mcp.ServerConfig{Name: "fx", URL: url, Timeout: 5 * time.Second, AutoApprove: true},
		mcp.ServerConfig{Name: "mine", URL: url, Timeout: 5 * time.Second, AutoApprove: true, TrustedContent: true},
	)
	llm := llmtest.NewServer()
	t.Cleanup(llm.Close)
	ag := agent.New(agent.Config{
		Provider:     provider.Provider{Name: "openai", BaseURL: llm.URL, APIKey: "k", Model: "m", KeyEnv: "OPENAI_API_KEY"},
		SystemPrompt: "test",
		Tools:        f.reg,
		Approvals:    agent.NewApprovals(agent.ApprovalOptions{Isolated: true}),
		ToolsStart:   f.m.Start,
		ToolsReady:   f.m.Ready,
		ToolRetries:  3,
		StallTimeout: 10 * time.Second,
	})
	call := func(name, args string) llmtest.Reply {
		return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: name, Args: args}}}
	}
	turn := func(replies ...llmtest.Reply) (asked []agent.PendingCall) {
		llm.Script(append(replies, llmtest.Reply{Text: "Done."})...)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		for ev := range ag.Submit(ctx, "please") {
			switch e := ev.(type) {
			case agent.ApprovalRequested:
				asked = append(asked, e.Calls...)
				e.Reply([]message.Verdict{message.Deny})
			case agent.TurnFailed:
				t.Fatalf("turn failed: %+v", e)
			}
		}
		return asked
	}
	if asked := turn(call("mcp__mine__echo", `{"text":"1"}`), call("mcp__mine__echo", `{"text":"2"}`)); len(asked) != 0 {
		t.Fatalf("a trusted server's results leave its auto calls alone: asked %+v", asked)
	}
	asked := turn(call("mcp__fx__echo", `{"text":"1"}`), call("mcp__mine__echo", `{"text":"send it"}`))
	if len(asked) != 1 || asked[0].Tool != "mcp__mine__echo" {
		t.Fatalf("after fx's result the next call must ask: %+v", asked)
	}
	c := asked[0].Check
	if !c.AlwaysAsk || !slices.Equal(c.Untrusted, []string{"mcp fx.echo"}) || c.Outbound == nil || c.Outbound.What != `{"text":"send it"}` {
		t.Errorf("check = %+v", c)
	}
}
