package agent_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/agent/provider"
	"github.com/co-cli/co/tools"
)

func notices(evs []agent.Event) []string {
	var out []string
	for _, e := range evs {
		if n, ok := e.(agent.Notice); ok {
			out = append(out, n.Text)
		}
	}
	return out
}

func toolNotices(evs []agent.Event) int {
	n := 0
	for _, s := range notices(evs) {
		if strings.Contains(s, "does not support tools") {
			n++
		}
	}
	return n
}

// A model whose /api/show capabilities lack "tools" gets no tools: co
// chats with it, says so once, and /model back to a tool model sends them
// again (and back once more says so again).
func TestOllamaToollessModel(t *testing.T) {
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	srv.SetProfile(llmtest.ProfileOllama)
	srv.SetOllamaModels(
		llmtest.OllamaModel{Name: "qwen3:8b", Family: "qwen3", ContextLength: 40960, Capabilities: []string{"completion", "tools"}},
		llmtest.OllamaModel{Name: "tiny-chat:latest", Family: "llama", ContextLength: 4096, Capabilities: []string{"completion"}},
	)
	reg, _ := tools.NewRegistry(echoTool{})
	p := provider.Provider{Name: "ollama", BaseURL: srv.URL, APIKey: "ollama", Model: "tiny-chat"}
	ag := agent.New(agent.Config{Provider: p, Tools: reg, Approvals: agent.NewApprovals(agent.ApprovalOptions{Isolated: true}), StallTimeout: 5 * time.Second})
	srv.Script(llmtest.Reply{Text: "Hello."}, llmtest.Reply{Text: "Again."}, llmtest.Reply{Text: "Tools."}, llmtest.Reply{Text: "Back."})

	evs := run(t, context.Background(), ag, "hi", nil)
	if finished(t, evs).Text != "Hello." || toolNotices(evs) != 1 {
		t.Fatalf("first turn: notices %q", notices(evs))
	}
	if got := ag.NoTools(); got != "none — tiny-chat does not support tools" {
		t.Fatalf("NoTools = %q", got)
	}
	evs = run(t, context.Background(), ag, "hi again", nil)
	if finished(t, evs).Text != "Again." || toolNotices(evs) != 0 {
		t.Fatalf("second turn: notices %q", notices(evs))
	}
	if _, err := ag.SetModel("qwen3:8b"); err != nil {
		t.Fatal(err)
	}
	evs = run(t, context.Background(), ag, "with tools", nil)
	if finished(t, evs).Text != "Tools." || toolNotices(evs) != 0 || ag.NoTools() != "" {
		t.Fatalf("tool model: notices %q, NoTools %q", notices(evs), ag.NoTools())
	}
	if _, err := ag.SetModel("tiny-chat"); err != nil {
		t.Fatal(err)
	}
	evs = run(t, context.Background(), ag, "back", nil)
	if finished(t, evs).Text != "Back." || toolNotices(evs) != 1 {
		t.Fatalf("back to the tool-less model: notices %q", notices(evs))
	}
	reqs := srv.Requests()
	var chats []llmtest.Request
	for _, r := range reqs {
		if r.Path == "/api/chat" {
			chats = append(chats, r)
		}
	}
	if len(chats) != 4 {
		t.Fatalf("%d chat requests", len(chats))
	}
	for i, want := range []bool{false, false, true, false} {
		_, has := chats[i].Fields()["tools"]
		if has != want {
			t.Errorf("request %d (%s): tools sent %v, want %v", i, chats[i].Body.Model, has, want)
		}
	}
}

// The imitation answers as the real Ollama v0.24.0 does when tools go to a
// tool-less model anyway, on both routes.
func TestOllamaProfileRefusesToolsForToollessModel(t *testing.T) {
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	srv.SetProfile(llmtest.ProfileOllama)
	srv.SetOllamaModels(llmtest.OllamaModel{Name: "tiny-chat:latest", Family: "llama", ContextLength: 4096, Capabilities: []string{"completion"}})
	tools := `"tools":[{"type":"function","function":{"name":"list_directory","description":"List a directory","parameters":{"type":"object","properties":{"path":{"type":"string"}}}}}]`
	for _, c := range []struct{ path, body, want string }{
		{"/api/chat", `{"model":"tiny-chat","messages":[{"role":"user","content":"hi"}],` + tools + `}`,
			`{"error":"registry.ollama.ai/library/tiny-chat:latest does not support tools"}`},
		{"/v1/chat/completions", `{"model":"tiny-chat","stream":true,"messages":[{"role":"user","content":"hi"}],` + tools + `}`,
			`{"error":{"code":null,"message":"registry.ollama.ai/library/tiny-chat:latest does not support tools","param":null,"type":"invalid_request_error"}}`},
	} {
		status, body := post(t, srv.URL[:len(srv.URL)-len("/v1")]+c.path, c.body)
		if status != 400 || strings.TrimSpace(body) != c.want {
			t.Errorf("%s: %d %s, want 400 %s", c.path, status, body, c.want)
		}
	}
}

// An OpenAI-compatible server co cannot ask (here Ollama's /v1 through
// LLM_PROVIDER=openai) answers the 400: co retries the turn once without
// tools and sends none to that model from then on.
func TestToolsRefusedRetriedWithout(t *testing.T) {
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	srv.SetProfile(llmtest.ProfileOllama)
	srv.SetOllamaModels(llmtest.OllamaModel{Name: "tiny-chat:latest", Family: "llama", ContextLength: 4096, Capabilities: []string{"completion"}})
	srv.Script(llmtest.Reply{Text: "Hello."}, llmtest.Reply{Text: "Again."})
	reg, _ := tools.NewRegistry(echoTool{})
	p := provider.Provider{Name: "openai", BaseURL: srv.URL, APIKey: "k", Model: "tiny-chat"}
	ag := agent.New(agent.Config{Provider: p, Tools: reg, Approvals: agent.NewApprovals(agent.ApprovalOptions{Isolated: true}), StallTimeout: 5 * time.Second})
	evs := run(t, context.Background(), ag, "hi", nil)
	if finished(t, evs).Text != "Hello." || toolNotices(evs) != 1 {
		t.Fatalf("notices %q", notices(evs))
	}
	evs = run(t, context.Background(), ag, "again", nil)
	if finished(t, evs).Text != "Again." || toolNotices(evs) != 0 {
		t.Fatalf("notices %q", notices(evs))
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3 (refused, retried, next)", len(reqs))
	}
	for i, want := range []bool{true, false, false} {
		if _, has := reqs[i].Fields()["tools"]; has != want {
			t.Errorf("request %d: tools %v, want %v", i, has, want)
		}
	}
}

func post(t *testing.T, url, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
