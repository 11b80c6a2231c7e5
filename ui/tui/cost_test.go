package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/agent/provider"
)

// The status line shows what the session has cost so far: gpt-4.1 at
// $2.00 in, $0.50 cached, $8.00 out per million, 6,000 + 4,000 cached in
// and 500 out is $0.0180.
func TestStatusLineShowsSessionCost(t *testing.T) {
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	srv.SetProfile(llmtest.ProfileOpenAI)
	ag := agent.New(agent.Config{Provider: provider.Provider{Name: "openai", BaseURL: srv.URL, APIKey: "k", Model: "gpt-4.1"},
		Approvals: agent.NewApprovals(agent.ApprovalOptions{}), StallTimeout: 10 * time.Second})
	srv.Script(llmtest.Reply{Text: "hello", Usage: &llmtest.Usage{PromptTokens: 10000, CachedTokens: 4000, CompletionTokens: 500}})
	d := newDriver(t, Options{Agent: ag}, 120, 30)
	d.typeText("hi")
	d.key("enter")
	d.until("the turn to end", d.idle)
	d.drain()
	if s := d.screen(); !strings.Contains(s, "10.5k session · $0.0180") {
		t.Errorf("the status line does not show the session's cost:\n%s", s)
	}
}
