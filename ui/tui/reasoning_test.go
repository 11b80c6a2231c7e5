package tui

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	xansi "github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/message"
)

// reasoningSSE is a streamed chat-completions body whose deltas carry
// reasoning_content before the content, as thinking models send it.
func reasoningSSE(model string, reasoning []string, content []string) string {
	var b strings.Builder
	chunk := func(delta map[string]any, finish any) {
		m := map[string]any{"id": "x", "object": "chat.completion.chunk", "created": 1, "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
		j, _ := json.Marshal(m)
		fmt.Fprintf(&b, "data: %s\n\n", j)
	}
	chunk(map[string]any{"role": "assistant"}, nil)
	for _, r := range reasoning {
		chunk(map[string]any{"reasoning_content": r}, nil)
	}
	for _, c := range content {
		chunk(map[string]any{"content": c}, nil)
	}
	chunk(map[string]any{}, "stop")
	b.WriteString("data: [DONE]\n\n")
	return b.String()
}

func TestReasoningCollapsesWhenTheAnswerStartsAndCtrlRExpandsIt(t *testing.T) {
	f := newFixture(t)
	f.srv.Script(llmtest.Reply{Raw: reasoningSSE("test-model",
		[]string{"\nThe user wants ", "a sum.\n", "Two plus two is four."},
		[]string{"The answer ", "is 4."})})
	d := newDriver(t, Options{Agent: f.ag}, 100, 40)
	d.typeText("what is 2+2")
	d.key("enter")
	d.until("the turn to end", d.idle)
	d.drain()
	s := d.screen()
	if !strings.Contains(s, "▸ Thought") || !strings.Contains(s, "(ctrl+r to expand)") || !strings.Contains(s, "The answer is 4.") {
		t.Fatalf("no collapsed reasoning line or no answer:\n%s", s)
	}
	if strings.Contains(s, "Two plus two") {
		t.Fatalf("collapsed reasoning shows its text:\n%s", s)
	}
	if strings.Index(s, "▸ Thought") > strings.Index(s, "The answer is 4.") {
		t.Errorf("reasoning is not above the answer:\n%s", s)
	}
	d.key("ctrl+r")
	s = d.screen()
	for _, want := range []string{"▾ Thought", "(ctrl+r to collapse)", "The user wants a sum.", "Two plus two is four.", "The answer is 4."} {
		if !strings.Contains(s, want) {
			t.Errorf("expanded reasoning lacks %q:\n%s", want, s)
		}
	}
	d.key("ctrl+r")
	if s := d.screen(); strings.Contains(s, "Two plus two") || !strings.Contains(s, "▸ Thought") {
		t.Errorf("ctrl+r again does not collapse it:\n%s", s)
	}
	// The reasoning is kept in the history the session saves.
	h := f.ag.History()
	if last := h[len(h)-1]; !strings.Contains(last.Reasoning, "Two plus two is four.") {
		t.Errorf("the assistant message lacks the reasoning: %+v", last)
	}
}

func TestReasoningHidden(t *testing.T) {
	f := newFixture(t)
	f.srv.Script(llmtest.Reply{Raw: reasoningSSE("test-model", []string{"secret musing"}, []string{"Shown answer."})})
	d := newDriver(t, Options{Agent: f.ag, HideReasoning: true}, 100, 40)
	d.typeText("hi")
	d.key("enter")
	d.until("the turn to end", d.idle)
	d.drain()
	d.key("ctrl+r")
	s := d.screen()
	if !strings.Contains(s, "Shown answer.") || strings.Contains(s, "Thought") || strings.Contains(s, "secret musing") {
		t.Errorf("hidden reasoning shown, or the answer missing:\n%s", s)
	}
}

func TestReasoningOfAResumedSessionShowsCollapsed(t *testing.T) {
	f := newFixture(t)
	f.ag.Restore([]message.Message{
		{Role: message.RoleUser, Content: "why"},
		{Role: message.RoleAssistant, Content: "Because.", Reasoning: "Let me weigh the options."},
	}, message.Usage{}, 1)
	d := newDriver(t, Options{Agent: f.ag}, 100, 40)
	s := d.screen()
	if !strings.Contains(s, "▸ Thought (ctrl+r to expand)") || strings.Contains(s, "weigh the options") || !strings.Contains(s, "Because.") {
		t.Fatalf("resumed reasoning not collapsed:\n%s", s)
	}
	d.key("ctrl+r")
	if s := d.screen(); !strings.Contains(s, "Let me weigh the options.") {
		t.Errorf("ctrl+r does not expand resumed reasoning:\n%s", s)
	}
	// Hidden by the setting, it is not shown at all.
	d2 := newDriver(t, Options{Agent: f.ag, HideReasoning: true}, 100, 40)
	if s := d2.screen(); strings.Contains(s, "Thought") {
		t.Errorf("hidden reasoning of a resumed session shown:\n%s", s)
	}
}

// A selected reasoning block is the one ctrl+r toggles.
func TestReasoningToggleSelected(t *testing.T) {
	f := newFixture(t)
	f.ag.Restore([]message.Message{
		{Role: message.RoleUser, Content: "one"},
		{Role: message.RoleAssistant, Content: "First.", Reasoning: "first thoughts"},
		{Role: message.RoleUser, Content: "two"},
		{Role: message.RoleAssistant, Content: "Second.", Reasoning: "second thoughts"},
	}, message.Usage{}, 2)
	d := newDriver(t, Options{Agent: f.ag}, 100, 40)
	d.key("ctrl+r")
	if s := d.screen(); !strings.Contains(s, "second thoughts") || strings.Contains(s, "first thoughts") {
		t.Fatalf("ctrl+r should expand the last block only:\n%s", s)
	}
	d.key("ctrl+r")
	for i := 0; i < 5; i++ { // Second., second thoughts, two, First., first thoughts
		d.key("alt+up")
	}
	if _, ok := d.app.chat.Selected().(*reasoningEntry); !ok {
		t.Fatalf("selected %T", d.app.chat.Selected())
	}
	d.key("ctrl+r")
	if s := d.screen(); !strings.Contains(s, "first thoughts") || strings.Contains(s, "second thoughts") {
		t.Errorf("ctrl+r should expand the selected block:\n%s", s)
	}
}

// streamReasoning feeds the app reasoning deltas as the pump would.
func streamReasoning(a *App, chunks ...string) {
	a.turn++
	a.pump = &pump{turn: a.turn}
	a.running = true
	a.chat.Add(newUserEntry("Is 1009 prime?"))
	for _, c := range chunks {
		a.handleAgentEvent(agentEventMsg{Turn: a.turn, Event: agent.ReasoningDelta{Text: c}})
	}
}

var goldenThoughts = []string{"I need to check divisibility of 1009 by primes up to its square root, ",
	"which is about 31.8.\n\n", "2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31: none divides it.\n", "So it is prime"}

func TestGoldenReasoning(t *testing.T) {
	for _, theme := range goldenThemes {
		for _, w := range goldenSizes {
			for _, state := range []string{"streaming", "collapsed", "expanded"} {
				t.Run(fmt.Sprintf("%s/%d/%s", theme, w, state), func(t *testing.T) {
					a := goldenApp(t, theme, w, agent.Config{})
					streamReasoning(a, goldenThoughts...)
					if state != "streaming" {
						t0 := a.now()
						a.now = func() time.Time { return t0.Add(4200 * time.Millisecond) }
						a.handleAgentEvent(agentEventMsg{Turn: a.turn, Event: agent.TextDelta{Text: "Yes: **1009 is prime**."}})
						a.handleAgentEvent(agentEventMsg{Turn: a.turn, Event: agent.TurnFinished{}})
					}
					if state == "expanded" {
						a.Update(keyMsg("ctrl+r"))
					}
					golden.RequireEqual(t, a.View().Content)
				})
			}
		}
	}
}

// Streaming reasoning renders only its unfinished line per chunk: the
// lines kept stay the same strings.
func TestReasoningKeepsFinishedLines(t *testing.T) {
	a := goldenApp(t, "dark", 80, agent.Config{})
	streamReasoning(a, "first line\nsecond ")
	kept := a.think.body[1]
	a.handleAgentEvent(agentEventMsg{Turn: a.turn, Event: agent.ReasoningDelta{Text: "line goes on"}})
	if a.think.doneSrc != 1 || a.think.body[1] != kept {
		t.Fatalf("finished lines were redone: doneSrc %d", a.think.doneSrc)
	}
	if s := xansi.Strip(a.View().Content); !strings.Contains(s, "second line goes on") || !strings.Contains(s, "✻ Thinking…") {
		t.Fatalf("streaming view:\n%s", s)
	}
}
