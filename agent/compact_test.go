package agent_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/message"
)

// longHistory is a valid conversation of n exchanges, each with a tool call.
func longHistory(n int) []message.Message {
	var h []message.Message
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("h%d", i)
		h = append(h,
			message.Message{Role: message.RoleUser, Content: fmt.Sprintf("question %d", i)},
			message.Message{Role: message.RoleAssistant, ToolCalls: []message.ToolCall{{ID: id, Name: "echo_text", Args: `{"text":"x"}`}}},
			message.Message{Role: message.RoleTool, ToolCallID: id, ToolName: "echo_text", Content: "echo: x"},
			message.Message{Role: message.RoleAssistant, Content: fmt.Sprintf("answer %d", i)},
		)
	}
	return h
}

func TestSlidingWindowSummarises(t *testing.T) {
	f := newFixture(t, func(c *agent.Config) { c.History = agent.HistoryOptions{MaxMessages: 12, SummaryModel: "cheap-model"} })
	f.ag.SetHistory(longHistory(5)) // 20 messages
	f.srv.Script(
		llmtest.Reply{Text: "- the user asked questions 0-3", Usage: &llmtest.Usage{PromptTokens: 100, CompletionTokens: 10}},
		llmtest.Reply{Text: "fine", Usage: &llmtest.Usage{PromptTokens: 50, CompletionTokens: 5}},
	)
	evs := run(t, context.Background(), f.ag, "next", nil)
	finished(t, evs)
	reqs := f.srv.Requests()
	sum, chat := reqs[0], reqs[1]
	if sum.Stream || len(sum.Body.Tools) != 0 || sum.Body.Model != "cheap-model" || !strings.Contains(sum.Body.Messages[1].Content, "question 1") {
		t.Fatalf("summary request: stream %v, %d tools, model %q", sum.Stream, len(sum.Body.Tools), sum.Body.Model)
	}
	assertValidHistory(t, chat)
	msgs := chat.Body.Messages
	if msgs[1].Content != "question 0" || msgs[2].Role != "assistant" {
		t.Errorf("the first exchange must be kept: %+v", msgs[1:3])
	}
	var found bool
	for _, m := range msgs {
		if m.Role == "user" && strings.HasPrefix(m.Content, agent.SummaryIntro) && strings.Contains(m.Content, "questions 0-3") {
			found = true
		}
	}
	if !found || len(msgs) > 16 || msgs[len(msgs)-1].Content != "next" {
		t.Errorf("window not applied: %d messages", len(msgs))
	}
	if u := f.ag.Usage(); u.InputTokens != 150 {
		t.Errorf("summary tokens must count: %+v", u)
	}
}

func TestSlidingWindowFallsBackToAMarker(t *testing.T) {
	f := newFixture(t, func(c *agent.Config) { c.History = agent.HistoryOptions{MaxMessages: 12} })
	f.ag.SetHistory(longHistory(5))
	for i := 0; i < 4; i++ {
		f.srv.Script(llmtest.Reply{Status: 500, ErrorMessage: "summariser down"})
	}
	f.srv.Script(llmtest.Reply{Text: "still works"})
	evs := run(t, context.Background(), f.ag, "next", nil)
	if fin := finished(t, evs); fin.Text != "still works" {
		t.Fatalf("fin = %+v", fin)
	}
	chat := f.srv.Requests()[4]
	assertValidHistory(t, chat)
	var marker bool
	for _, m := range chat.Body.Messages {
		marker = marker || strings.Contains(m.Content, "summarising them failed")
	}
	if !marker {
		t.Error("a failed summary must leave a marker")
	}
}

func TestCompact(t *testing.T) {
	f := newFixture(t, nil)
	f.ag.SetHistory(longHistory(3))
	f.srv.Script(llmtest.Reply{Text: "- three questions answered"}, llmtest.Reply{Text: "ok"})
	n, err := f.ag.Compact(context.Background())
	if err != nil || n != 12 {
		t.Fatalf("Compact = %d, %v", n, err)
	}
	if h := f.ag.History(); len(h) != 2 || !strings.Contains(h[0].Content, "three questions answered") {
		t.Fatalf("history after /compact = %+v", h)
	}
	finished(t, run(t, context.Background(), f.ag, "go on", nil))
	msgs := f.srv.Requests()[1].Body.Messages
	if len(msgs) != 4 || msgs[3].Content != "go on" {
		t.Errorf("request after /compact: %+v", msgs)
	}
	// A short conversation is not compacted; a failed summary changes nothing.
	f.ag.Reset()
	if _, err := f.ag.Compact(context.Background()); err == nil {
		t.Error("compacting an empty conversation should say it is too short")
	}
	f.ag.SetHistory(longHistory(2))
	for i := 0; i < 4; i++ {
		f.srv.Script(llmtest.Reply{Status: 500, ErrorMessage: "down"})
	}
	if _, err := f.ag.Compact(context.Background()); err == nil || !strings.Contains(err.Error(), "unchanged") {
		t.Errorf("failed compact: %v", err)
	}
	if len(f.ag.History()) != 8 {
		t.Error("a failed /compact must keep the history")
	}
}

func TestNearlyFullContextCompactsBeforeSending(t *testing.T) {
	f := newFixture(t, func(c *agent.Config) { c.History = agent.HistoryOptions{ContextWindow: 1000} })
	f.ag.SetHistory(longHistory(3))
	f.srv.Script(
		llmtest.Reply{Text: "big", Usage: &llmtest.Usage{PromptTokens: 900, CompletionTokens: 1}},
		llmtest.Reply{Text: "- summary"},
		llmtest.Reply{Text: "small again"},
	)
	finished(t, run(t, context.Background(), f.ag, "one", nil))
	finished(t, run(t, context.Background(), f.ag, "two", nil))
	reqs := f.srv.Requests()
	if reqs[1].Stream || len(reqs) != 3 {
		t.Fatalf("expected a summary request before the second turn; got %d requests", len(reqs))
	}
	assertValidHistory(t, reqs[2])
}
