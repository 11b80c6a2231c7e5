package mcp_test

import (
	"context"
	"io"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"go.opentelemetry.io/otel/trace/noop"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/agent/provider"
	"github.com/co-cli/co/tools/mcp"
)

// A turn that has to wait for a server still starting says so at once,
// naming the server and the most it may wait; Ctrl+C (the turn's context
// cancelled) ends the wait and the turn at once, before any request. The
// server never answers; the clock is testing/synctest's, so the most the
// turn may wait is known to the nanosecond, however slow the machine.
func TestTurnSaysWhatItWaitsForAndCtrlCEndsIt(t *testing.T) {
	srv := llmtest.NewServer() // outside the bubble: the turn must send it nothing
	t.Cleanup(srv.Close)
	srv.Script(llmtest.Reply{Text: "hello"})
	synctest.Test(t, func(t *testing.T) {
		// The server reads the request (so that net/http watches the
		// connection, which ends the request's context when co hangs up)
		// and never answers.
		rt := memHTTP(t, http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			<-r.Context().Done()
		}))
		f := newFixture(t, mcp.ServerConfig{Name: "slow", URL: "http://slow.test/mcp", Timeout: 30 * time.Second})
		mcp.SetRoundTripper(f.m, rt)
		ag := agent.New(agent.Config{
			Tracer:     noop.NewTracerProvider().Tracer("test"),
			Provider:   provider.Provider{Name: "openai", BaseURL: srv.URL, Model: "m"},
			Tools:      f.reg,
			ToolsStart: f.m.Start,
			ToolsReady: f.m.Ready,
		})
		// The server has been starting for 10.5 s when the turn begins:
		// the most the turn may wait, 19.5 s, is said rounded up.
		f.m.Start()
		time.Sleep(10*time.Second + 500*time.Millisecond)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		events := ag.Submit(ctx, "hi")
		var notice string
		var last agent.Event
		timeout := time.After(15 * time.Second) // a hang detector, within the server's 30 s
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
		if notice != "waiting for MCP server slow to start (up to 20 s)…" {
			t.Errorf("notice: %q", notice)
		}
		// Ctrl+C, not the server, ended the wait: it is still starting, and
		// no time has passed.
		if st := f.m.Statuses()[0]; st.State != mcp.Starting {
			t.Errorf("the turn ended but the server is %+v: the wait was not ended by Ctrl+C", st)
		}
		if fail, ok := last.(agent.TurnFailed); !ok || !fail.Interrupted {
			t.Errorf("last event: %#v", last)
		}
	})
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests were sent", n)
	}
	// Nothing starting: nothing said.
	f2 := newFixture(t, stdioServer(t, "ok", nil))
	f2.start(t)
	f2.m.Ready(context.Background(), func(n string) { t.Errorf("notice with nothing starting: %q", n) })
}
