package mcp_test

import (
	"context"
	"os"
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace/noop"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/agent/provider"
	"github.com/co-cli/co/tools/mcp"
)

// A turn that has to wait for a server still starting says so at once,
// naming the server and the most it may wait; Ctrl+C (the turn's context
// cancelled) ends the wait and the turn at once, before any request.
func TestTurnSaysWhatItWaitsForAndCtrlCEndsIt(t *testing.T) {
	exe, _ := os.Executable()
	hang := mcp.ServerConfig{Name: "slow", Command: exe, Env: map[string]string{"CO_MCP_TEST_SERVER": "hang-start"}, Timeout: 30 * time.Second}
	f := newFixture(t, hang)
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	srv.Script(llmtest.Reply{Text: "hello"})
	ag := agent.New(agent.Config{
		Tracer:     noop.NewTracerProvider().Tracer("test"),
		Provider:   provider.Provider{Name: "openai", BaseURL: srv.URL, Model: "m"},
		Tools:      f.reg,
		ToolsStart: f.m.Start,
		ToolsReady: f.m.Ready,
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events := ag.Submit(ctx, "hi")
	var notice string
	var last agent.Event
	timeout := time.After(20 * time.Second) // a hang detector, within the server's 30 s
loop:
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				break loop
			}
			last = ev
			if n, isNotice := ev.(agent.Notice); isNotice && notice == "" {
				notice = n.Text
				cancel() // Ctrl+C
			}
		case <-timeout:
			t.Fatalf("the turn neither said what it waits for nor ended; notice %q", notice)
		}
	}
	if notice != "waiting for MCP server slow to start (up to 30 s)…" {
		t.Errorf("notice: %q", notice)
	}
	// Ctrl+C, not the server, ended the wait: it is still starting (its
	// 30 s timeout has not run out).
	if st := f.m.Statuses()[0]; st.State != mcp.Starting {
		t.Errorf("the turn ended but the server is %+v: the wait was not ended by Ctrl+C", st)
	}
	if fail, ok := last.(agent.TurnFailed); !ok || !fail.Interrupted {
		t.Errorf("last event: %#v", last)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests were sent", n)
	}
	// Nothing starting: nothing said.
	f2 := newFixture(t, stdioServer(t, "ok", nil))
	f2.start(t)
	f2.m.Ready(context.Background(), func(n string) { t.Errorf("notice with nothing starting: %q", n) })
}
