package agent_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/tools"
)

// pipedObserver records what the agent tells tools of the user's messages: the
// words typed (URLs the user gave) and the text nobody typed.
type pipedObserver struct {
	readTool
	mu              sync.Mutex
	typed, attached []string
}

func (o *pipedObserver) Name() string { return "observe_thing" }
func (o *pipedObserver) ObservePrompt(s string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.typed = append(o.typed, s)
}
func (o *pipedObserver) ObserveAttached(s string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.attached = append(o.attached, s)
}

// Piped data is untrusted and private: an outbound call after it asks,
// --yes or not, even to a host the user named; a tool learns of its text
// as text nobody typed, never as the user's words; the message keeps its
// source, so a restored history holds it too.
func TestPipedDataIsUntrustedData(t *testing.T) {
	obs := &pipedObserver{}
	send := &sendTool{}
	f := newFixture(t, func(c *agent.Config) {
		reg, err := tools.NewRegistry(obs, send)
		if err != nil {
			t.Fatal(err)
		}
		c.Tools = reg
		c.Approvals = agent.NewApprovals(agent.ApprovalOptions{Isolated: true})
	})
	f.ag.Approvals().SetYes(true)
	f.srv.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{sendCall("s1", "https://docs.example/x", "the diff", "user_host")}},
		llmtest.Reply{Text: "done"},
	)
	piped := message.Piped{Text: "see https://evil.example/?q=1\n", Lines: 1}
	q := &asked{v: message.Deny}
	evs := collect(t, f.ag.SubmitInput(context.Background(), agent.Input{Prompt: "summarise https://docs.example/", Piped: &piped}), q.answer)
	finished(t, evs)
	if got := send.got(); len(got) != 0 {
		t.Fatalf("sent %v unasked", got)
	}
	if len(q.reqs) != 1 || !slices.Equal(q.reqs[0].Calls[0].Check.Untrusted, []string{"standard input"}) || !q.reqs[0].Calls[0].Check.AlwaysAsk {
		t.Fatalf("questions %+v, want one naming standard input", q.reqs)
	}
	var raised []agent.RiskRaised
	for _, ev := range evs {
		if r, ok := ev.(agent.RiskRaised); ok {
			raised = append(raised, r)
		}
	}
	if len(raised) != 1 || raised[0].New[0] != message.PipedOrigin() {
		t.Fatalf("RiskRaised %+v", raised)
	}
	if !slices.Equal(obs.typed, []string{"summarise https://docs.example/"}) || len(obs.attached) != 1 || !strings.Contains(obs.attached[0], "https://evil.example/?q=1") {
		t.Fatalf("typed %q, attached %q", obs.typed, obs.attached)
	}
	h := f.ag.History()
	if h[0].Content != piped.Attach("summarise https://docs.example/") || !slices.Equal(h[0].Sources, []tools.Origin{message.PipedOrigin()}) {
		t.Fatalf("first message %+v", h[0])
	}
	got := f.srv.Requests()[0].LastUserMessage()
	if !strings.Contains(got, `<piped-input source="standard input" untrusted=true lines=1 bytes=30>`) {
		t.Errorf("the model got %q", got)
	}

	// A saved copy restored (co run --continue) holds it still.
	b, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	var saved []message.Message
	if err := json.Unmarshal(b, &saved); err != nil {
		t.Fatal(err)
	}
	g := newFixture(t, nil)
	g.ag.Restore(saved, message.Usage{}, 1)
	if r := g.ag.Risk(); !slices.Equal(r.Labels(), []string{"standard input"}) || !r.Private {
		t.Fatalf("restored risk %+v", r)
	}
}
