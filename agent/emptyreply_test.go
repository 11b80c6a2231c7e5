package agent_test

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

// What the tiny model of issue 26 wrote: an unfinished call, then EOS.
const unfinishedCall = "<tool_call>\n{\"name\": \"list_directory\", \"arguments\": {\"path\": "

func ollamaAgent(t *testing.T, models ...llmtest.OllamaModel) (*llmtest.Server, *agent.Agent) {
	t.Helper()
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	srv.SetProfile(llmtest.ProfileOllama)
	srv.SetOllamaModels(models...)
	reg, _ := tools.NewRegistry(echoTool{})
	p := provider.Provider{Name: "ollama", BaseURL: srv.URL, APIKey: "ollama", Model: models[0].Name}
	return srv, agent.New(agent.Config{Provider: p, Tools: reg, Approvals: agent.NewApprovals(agent.ApprovalOptions{Isolated: true}), StallTimeout: 5 * time.Second})
}

// Ollama swallows an unfinished <tool_call> when the request has tools:
// the turn fails with a message instead of finishing with nothing.
func TestSwallowedToolCallIsNotASilentEmptyAnswer(t *testing.T) {
	srv, ag := ollamaAgent(t, llmtest.OllamaModel{Name: "tiny-malformed:latest", Family: "llama", ContextLength: 8192, Capabilities: []string{"completion", "tools"}})
	srv.Script(llmtest.Reply{Text: unfinishedCall})
	evs := run(t, context.Background(), ag, "list", nil)
	fl := failed(t, evs)
	if !strings.Contains(fl.Message, "tiny-malformed:latest answered with nothing: no text and no tool call") || text(evs) != "" {
		t.Fatalf("message %q, text %q", fl.Message, text(evs))
	}
}

// The imitation sends what the real server sent: one done line with empty
// content; and a whole call after the tag becomes a tool call.
func TestOllamaProfileToolParser(t *testing.T) {
	srv, ag := ollamaAgent(t, llmtest.OllamaModel{Name: "tiny-tools:latest", Family: "llama", ContextLength: 8192, Capabilities: []string{"completion", "tools"}})
	srv.Script(
		llmtest.Reply{Text: "<tool_call>\n{\"name\": \"echo_text\", \"arguments\": {\"text\": \"hi\"}}\n</tool_call>"},
		llmtest.Reply{Text: "I listed the directory."},
	)
	evs := run(t, context.Background(), ag, "list", nil)
	if fin := finished(t, evs); fin.Text != "I listed the directory." {
		t.Fatalf("text %q", fin.Text)
	}
	var calls int
	for _, e := range evs {
		if _, ok := e.(agent.ToolCallStarted); ok {
			calls++
		}
	}
	if calls != 1 {
		t.Fatalf("%d calls", calls)
	}
}

// Without tools in the request (a tool-less model) the markup reaches co
// as text: it is kept, and a notice says nothing ran.
func TestUnparsedToolCallMarkupIsKept(t *testing.T) {
	srv, ag := ollamaAgent(t, llmtest.OllamaModel{Name: "tiny-chat:latest", Family: "llama", ContextLength: 4096, Capabilities: []string{"completion"}})
	srv.Script(llmtest.Reply{Text: unfinishedCall})
	evs := run(t, context.Background(), ag, "list", nil)
	if fin := finished(t, evs); fin.Text != unfinishedCall || text(evs) != unfinishedCall {
		t.Fatalf("text %q", fin.Text)
	}
	found := false
	for _, n := range notices(evs) {
		found = found || strings.Contains(n, "wrote a tool call as text (<tool_call>…)") && strings.Contains(n, "raw text is kept")
	}
	if !found {
		t.Fatalf("notices %q", notices(evs))
	}
}
