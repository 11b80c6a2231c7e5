package agent

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/co-cli/co/agent/provider"
	"github.com/co-cli/co/message"
)

func TestTrimmedViewCutsOnlyOldToolOutput(t *testing.T) {
	long := strings.Repeat("x", 5000)
	msgs := []message.Message{
		{Role: message.RoleUser, Content: "one"},
		{Role: message.RoleAssistant, ToolCalls: []message.ToolCall{{ID: "a", Name: "read_file", Args: "{}"}}},
		{Role: message.RoleTool, ToolCallID: "a", ToolName: "read_file", Content: long},
		{Role: message.RoleAssistant, Content: "done"},
		{Role: message.RoleUser, Content: "two"},
		{Role: message.RoleAssistant, ToolCalls: []message.ToolCall{{ID: "b", Name: "read_file", Args: "{}"}}},
		{Role: message.RoleTool, ToolCallID: "b", ToolName: "read_file", Content: long},
	}
	v := trimmedView(msgs, 2000)
	if !strings.HasPrefix(v[2].Content, strings.Repeat("x", 2000)+"\n[… 3000 more characters") || v[2].ToolCallID != "a" || v[2].ToolName != "read_file" {
		t.Errorf("old result: %q…", v[2].Content[:60])
	}
	if v[6].Content != long {
		t.Error("the current turn's tool output must not be trimmed")
	}
	if msgs[2].Content != long {
		t.Error("trimming must not change the history itself")
	}
}

// randomHistory makes a valid conversation of about n messages with tool
// calls (some batches of several) in it.
func randomHistory(r *rand.Rand, n int) []message.Message {
	var h []message.Message
	id := 0
	for len(h) < n {
		h = append(h, message.Message{Role: message.RoleUser, Content: "q"})
		for k := r.Intn(3); k > 0; k-- {
			calls := 1 + r.Intn(3)
			a := message.Message{Role: message.RoleAssistant}
			for c := 0; c < calls; c++ {
				id++
				a.ToolCalls = append(a.ToolCalls, message.ToolCall{ID: fmt.Sprint(id), Name: "t", Args: "{}"})
			}
			h = append(h, a)
			for _, tc := range a.ToolCalls {
				h = append(h, message.Message{Role: message.RoleTool, ToolCallID: tc.ID, Content: "r"})
			}
		}
		h = append(h, message.Message{Role: message.RoleAssistant, Content: "a"})
	}
	return h
}

func TestWindowNeverSplitsACallFromItsResult(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 2000; i++ {
		h := randomHistory(r, 10+r.Intn(80))
		max := 4 + r.Intn(40)
		headEnd, tailStart, ok := windowSplit(h, max)
		if !ok {
			continue
		}
		for _, part := range [][]message.Message{h[:headEnd], h[tailStart:]} {
			if part[0].Role == message.RoleTool {
				t.Fatalf("history %d: a part starts with a tool result", i)
			}
			// every call in a part has its results in the same part
			ids := map[string]bool{}
			for _, m := range part {
				for _, tc := range m.ToolCalls {
					ids[tc.ID] = true
				}
			}
			for _, m := range part {
				if m.Role == message.RoleTool && !ids[m.ToolCallID] {
					t.Fatalf("history %d: result %s without its call", i, m.ToolCallID)
				}
				delete(ids, m.ToolCallID)
			}
			if len(ids) > 0 && part[len(part)-1].Role != message.RoleAssistant {
				t.Fatalf("history %d: calls %v without results", i, ids)
			}
		}
		if headEnd < 1 || h[0].Role != message.RoleUser {
			t.Fatalf("head lost the first user message")
		}
	}
}

func TestContextWindow(t *testing.T) {
	for model, want := range map[string]int{"gemini-2.0-flash": 1_048_576, "gemini-1.5-pro-002": 2_097_152, "gpt-4o-mini": 128_000,
		"llama3.1:8b": 131_072, "llama3:8b": 8_192, "models/gemini-2.5-pro": 1_048_576, "unknown-model": 0,
		// The -latest aliases (co's default) follow Google's current models.
		"gemini-flash-latest": 1_048_576, "gemini-flash-lite-latest": 1_048_576, "gemini-pro-latest": 1_048_576, "models/gemini-3.5-flash": 1_048_576} {
		if got := provider.ContextWindow(model); got != want {
			t.Errorf("ContextWindow(%q) = %d, want %d", model, got, want)
		}
	}
}
