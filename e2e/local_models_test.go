package e2e

import (
	"strings"
	"testing"

	"github.com/co-cli/co/agent/llmtest"
)

// Local models as issue 26 found them against real Ollama v0.24.0 and
// llama-server b10573, against their imitations in agent/llmtest.

func toollessOllama(t *testing.T) (*llmtest.Server, []string) {
	t.Helper()
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	srv.SetProfile(llmtest.ProfileOllama)
	srv.SetOllamaModels(llmtest.OllamaModel{Name: "tiny-chat:latest", Family: "llama", ContextLength: 4096, Capabilities: []string{"completion"}})
	root := strings.TrimSuffix(srv.URL, "/v1")
	return srv, env(t, nil, "LLM_PROVIDER=ollama", "OLLAMA_HOST="+root, "OLLAMA_MODEL=tiny-chat")
}

// A model without tool support chats (without tools, said once on stderr),
// and co status says so, shows the endpoint co uses and one context line.
func TestToollessOllamaModelChatsAndStatusSaysSo(t *testing.T) {
	srv, environ := toollessOllama(t)
	srv.Script(llmtest.Reply{Text: "Hello from a tiny scripted model."})
	out, errOut, code := runCo(t, t.TempDir(), environ, "", "run", "hi")
	if code != 0 || !strings.Contains(out, "Hello from a tiny scripted model.") || !strings.Contains(errOut, "tiny-chat does not support tools, so co chats with it without them") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	root := strings.TrimSuffix(srv.URL, "/v1")
	out, errOut, code = runCo(t, t.TempDir(), environ, "", "status")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"endpoint        " + root + " (Ollama's native API, /api/chat)\n",
		"context window  4096 tokens asked (model max 4096; ",
		"tools           none — tiny-chat does not support tools (",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("status lacks %q:\n%s", want, out)
		}
	}
	if strings.Count(out, "context window") != 1 || strings.Contains(out, "\ncontext  ") || strings.Contains(out, "/v1") {
		t.Errorf("status: one context line and no /v1 wanted:\n%s", out)
	}
}

// llama-server answers with its one model whatever name is asked: co
// status warns when the model list does not name the configured model.
func TestStatusWarnsWhenTheModelIsNotListed(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.SetModels("gguf/tiny-tools-8k.gguf")
	out, _, _ := runCo(t, t.TempDir(), env(t, srv, "OPENAI_MODEL=qwen"), "", "status")
	if !strings.Contains(out, "WARNING: the server does not list qwen (it lists gguf/tiny-tools-8k.gguf)") {
		t.Errorf("no warning:\n%s", out)
	}
	out, _, _ = runCo(t, t.TempDir(), env(t, srv, "OPENAI_MODEL=gguf/tiny-tools-8k.gguf"), "", "status")
	if strings.Contains(out, "WARNING: the server does not list") {
		t.Errorf("warning for a listed model:\n%s", out)
	}
}

// Ollama swallowed a model's unfinished <tool_call>: co run used to print
// nothing and exit 0. It says so on stderr and exits 1.
func TestRunSaysSoWhenTheReplyIsEmpty(t *testing.T) {
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	srv.SetProfile(llmtest.ProfileOllama)
	srv.SetOllamaModels(llmtest.OllamaModel{Name: "tiny-malformed:latest", Family: "llama", ContextLength: 8192, Capabilities: []string{"completion", "tools"}})
	srv.Rules(llmtest.Reply{Text: "<tool_call>\n{\"name\": \"list_directory\", \"arguments\": {\"path\": ", Reusable: true})
	environ := env(t, nil, "LLM_PROVIDER=ollama", "OLLAMA_HOST="+strings.TrimSuffix(srv.URL, "/v1"), "OLLAMA_MODEL=tiny-malformed")
	out, errOut, code := runCo(t, t.TempDir(), environ, "", "run", "list")
	if code != 1 || strings.TrimSpace(out) != "" || !strings.Contains(errOut, "error: tiny-malformed answered with nothing: no text and no tool call") {
		t.Fatalf("exit %d\nstdout: %q\nstderr: %s", code, out, errOut)
	}
	out, _, code = runCo(t, t.TempDir(), environ, "", "run", "--json", "list")
	if code != 1 || !strings.Contains(out, `"type":"turn_failed"`) {
		t.Fatalf("--json: exit %d\n%s", code, out)
	}
}
