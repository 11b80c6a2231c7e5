package agent_test

import (
	"context"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/llmtest"
)

// The first request waits for MorePrompt (read in the background) and sends
// its text after the system prompt; later requests reuse it without asking
// again. A turn cancelled while it waits ends interrupted.
func TestMorePromptIsWaitedForOnce(t *testing.T) {
	release := make(chan struct{})
	calls := 0
	f := newFixture(t, func(c *agent.Config) {
		c.MorePrompt = func(ctx context.Context) (string, error) {
			calls++
			select {
			case <-release:
				return "### Project instructions\nPROJECT TEXT\n", nil
			case <-ctx.Done():
				return "", ctx.Err()
			}
		}
	})
	f.srv.Script(llmtest.Reply{Text: "one"}, llmtest.Reply{Text: "two"})

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	evs := run(t, ctx, f.ag, "too early", nil)
	cancel()
	if tf, ok := evs[len(evs)-1].(agent.TurnFailed); !ok || !tf.Interrupted {
		t.Fatalf("last event %#v, want an interrupted TurnFailed", evs[len(evs)-1])
	}
	if n := len(f.srv.Requests()); n != 0 {
		t.Fatalf("%d requests sent before the prompt was ready", n)
	}
	close(release)
	run(t, context.Background(), f.ag, "hi", nil)
	run(t, context.Background(), f.ag, "again", nil)
	reqs := f.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	for i, r := range reqs {
		m := r.Body.Messages[0]
		if m.Role != openai.ChatMessageRoleSystem || !strings.HasPrefix(m.Content, "You are a test.\n### Project instructions\nPROJECT TEXT") {
			t.Errorf("request %d system message %q", i, m.Content)
		}
	}
	if calls != 2 {
		t.Errorf("MorePrompt called %d times, want 2 (the cancelled wait, then once)", calls)
	}
}
