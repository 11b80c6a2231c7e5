package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/agent/provider"
	"github.com/co-cli/co/tools"
)

func TestModelListsSwitchesAndTheNextRequestCarriesIt(t *testing.T) {
	f := newFixture(t)
	f.srv.SetModels("alpha-large", "alpha-mini", "test-model")
	f.srv.Script(llmtest.Reply{Text: "from mini"})
	d := newDriver(t, Options{Agent: f.ag}, 110, 40)
	d.typeText("/model")
	d.key("enter")
	d.until("the list", func() bool { return strings.Contains(d.screen(), "Models of openai (* current):") })
	s := d.screen()
	for _, want := range []string{"  alpha-large", "  alpha-mini", "* test-model"} {
		if !strings.Contains(s, want) {
			t.Errorf("list lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "fetching models…") {
		t.Errorf("the fetching line was not replaced by the list:\n%s", s)
	}
	// Tab completes from the cached list: a common prefix, then a name.
	d.typeText("/model al")
	d.key("tab")
	if v := d.app.input.Value(); v != "/model alpha-" {
		t.Fatalf("tab gave %q", v)
	}
	if s := d.screen(); !strings.Contains(s, "alpha-large  alpha-mini") {
		t.Errorf("no candidates shown:\n%s", s)
	}
	d.typeText("m")
	d.key("tab")
	if v := d.app.input.Value(); v != "/model alpha-mini" {
		t.Fatalf("tab gave %q", v)
	}
	d.key("enter")
	s = d.screen()
	if !strings.Contains(s, "Switched to openai · alpha-mini") || !strings.Contains(s, "openai · alpha-mini ") {
		t.Fatalf("switch not shown in the chat and the status bar:\n%s", s)
	}
	d.typeText("hi")
	d.key("enter")
	d.until("the turn to end", d.idle)
	if got := f.srv.Requests()[0].Body.Model; got != "alpha-mini" {
		t.Errorf("the next request asked for %q", got)
	}
}

func TestModelTabBeforeTheListArrives(t *testing.T) {
	f := newFixture(t)
	f.srv.SetModels("only-one", "test-model")
	d := newDriver(t, Options{Agent: f.ag}, 110, 40)
	d.typeText("/model on")
	d.key("tab")
	// The list was fetched in the background since "/model" was typed;
	// Tab completes as soon as it is there.
	d.until("the completion", func() bool { return d.app.input.Value() == "/model only-one" })
}

func TestModelListFailureStillAllowsSwitching(t *testing.T) {
	f := newFixture(t)
	f.srv.Close() // nothing answers GET /models
	d := newDriver(t, Options{Agent: f.ag}, 110, 40)
	d.typeText("/model")
	d.key("enter")
	d.until("the error", func() bool { return strings.Contains(d.screen(), "could not list the models of openai") })
	if s := d.screen(); !strings.Contains(s, "/model NAME still switches") {
		t.Errorf("no hint:\n%s", s)
	}
	d.typeText("/model other")
	d.key("enter")
	if s := d.screen(); !strings.Contains(s, "openai · other") {
		t.Errorf("switch without a list failed:\n%s", s)
	}
}

// An alias answered by another model shows both, in the status bar and
// the banner; a switch drops the stale one until the next answer.
func TestReportedModelShown(t *testing.T) {
	f := newFixture(t)
	f.srv.Script(llmtest.Reply{Raw: reasoningSSE("test-model-2025", nil, []string{"hello"})})
	d := newDriver(t, Options{Agent: f.ag}, 130, 40)
	d.typeText("hi")
	d.key("enter")
	d.until("the turn to end", d.idle)
	d.drain()
	s := d.screen()
	if strings.Count(s, "openai · test-model → test-model-2025") != 2 {
		t.Fatalf("reported model not in the banner and the status bar:\n%s", s)
	}
	d.typeText("/model next")
	d.key("enter")
	if s := d.screen(); strings.Contains(s, "→ test-model-2025") || !strings.Contains(s, "openai · next") {
		t.Errorf("after the switch:\n%s", s)
	}
}

// Issue 27: after /model other (answered as other-model) and /model back,
// nothing may say the model is answered as other-model: not the status
// bar, not the banner, not /model's list, not while the next turn waits
// for its first request. The arrow comes back only when a server says so.
func TestReportedModelBelongsToTheModelItWasReportedFor(t *testing.T) {
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	reg, err := tools.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	// The third turn's request waits here, as a turn waits for an MCP
	// server still starting: the bar is drawn meanwhile.
	hold, held := make(chan struct{}), make(chan struct{}, 4)
	turns := 0
	ag := agent.New(agent.Config{
		Provider:  provider.Provider{Name: "openai", BaseURL: srv.URL, APIKey: "k", Model: "test-model"},
		Tools:     reg,
		Approvals: agent.NewApprovals(agent.ApprovalOptions{}),
		ToolsReady: func(ctx context.Context, _ func(string)) []string {
			turns++
			if turns == 3 {
				held <- struct{}{}
				select {
				case <-hold:
				case <-ctx.Done():
				}
			}
			return nil
		},
		StallTimeout: 10 * time.Second,
	})
	srv.Script(llmtest.Reply{Text: "one"},
		llmtest.Reply{Raw: reasoningSSE("other-model", nil, []string{"two"})},
		llmtest.Reply{Text: "three"})
	d := newDriver(t, Options{Agent: ag}, 130, 40)
	d.typeText("hi")
	d.key("enter")
	d.until("the first turn to end", d.idle)
	d.typeText("/model other")
	d.key("enter")
	d.typeText("hi")
	d.key("enter")
	d.until("the second turn to end", d.idle)
	d.drain()
	if s := d.screen(); strings.Count(s, "openai · other → other-model") != 2 {
		t.Fatalf("the alias other → other-model not in the banner and the bar:\n%s", s)
	}
	d.typeText("/model test-model")
	d.key("enter")
	d.typeText("/model")
	d.key("enter")
	d.until("the list", func() bool { return strings.Contains(d.screen(), "Models of openai (* current):") })
	if s := d.screen(); strings.Contains(s, "answers test-model as other-model") || strings.Contains(s, "test-model → other-model") {
		t.Fatalf("after /model test-model, other-model's answer is still put on test-model:\n%s", s)
	}
	d.typeText("hi")
	d.key("enter")
	select {
	case <-held:
	case <-time.After(time.Minute): // a hang detector
		t.Fatal("the third turn never reached its request")
	}
	// No wait: the bar's model is set by the switch and the turn's start,
	// both handled already; nothing else can come while the request is
	// held (and drain would wait for the held turn).
	if s := d.screen(); strings.Contains(s, "→ other-model") {
		t.Errorf("while test-model's first request waits, the bar shows other-model's alias:\n%s", s)
	}
	close(hold)
	d.until("the third turn to end", d.idle)
	d.drain()
	if s := d.screen(); strings.Contains(s, "test-model →") {
		t.Errorf("test-model answered as itself, yet an arrow is shown:\n%s", s)
	}
}
