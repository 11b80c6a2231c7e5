package e2e

import (
	"strings"
	"testing"

	"github.com/co-cli/co/agent/llmtest"
)

func TestModelsListsChatModelsAndMarksTheConfiguredOne(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	// Gemini lists its models as "models/…", embeddings and image models
	// among them.
	srv.SetModels("models/gemini-3.5-pro", "models/gemini-3.5-flash", "models/text-embedding-004", "models/imagen-4.0-generate-001")
	out, errOut, code := runCo(t, t.TempDir(), env(t, nil, "LLM_PROVIDER=gemini", "GEMINI_API_KEY=k", "GEMINI_BASE_URL="+srv.URL, "GEMINI_MODEL=gemini-3.5-flash"), "", "models")
	if code != 0 {
		t.Fatalf("exit %d; stderr: %s", code, errOut)
	}
	if want := "* gemini-3.5-flash\n  gemini-3.5-pro\n"; out != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", out, want)
	}
	if errOut != "" {
		t.Errorf("stderr: %s", errOut)
	}
}

func TestModelsNotesAnAliasNotInTheList(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.SetModels("models/gemini-3.5-flash")
	out, errOut, code := runCo(t, t.TempDir(), env(t, nil, "LLM_PROVIDER=gemini", "GEMINI_API_KEY=k", "GEMINI_BASE_URL="+srv.URL, "GEMINI_MODEL=gemini-flash-latest"), "", "models")
	if code != 0 {
		t.Fatalf("exit %d; stderr: %s", code, errOut)
	}
	if out != "  gemini-3.5-flash\n" {
		t.Errorf("stdout: %q", out)
	}
	if !strings.Contains(errOut, "gemini-flash-latest (configured) is not in the list") || !strings.Contains(errOut, "alias") {
		t.Errorf("stderr lacks the alias note: %s", errOut)
	}
}

func TestModelsUnknownModelSaysWhatToSet(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.SetModels("deepseek-flash", "deepseek-v4-pro")
	out, errOut, code := runCo(t, t.TempDir(), env(t, srv, "OPENAI_MODEL=deepseek-r1"), "", "models")
	if code != 0 {
		t.Fatalf("exit %d; stderr: %s", code, errOut)
	}
	if out != "  deepseek-flash\n  deepseek-v4-pro\n" {
		t.Errorf("stdout: %q", out)
	}
	if !strings.Contains(errOut, "deepseek-r1 (configured) is not in the list") || !strings.Contains(errOut, "OPENAI_MODEL") {
		t.Errorf("stderr: %s", errOut)
	}
}

func TestModelsListingFailsPlainly(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	for _, tc := range []struct {
		name string
		env  []string
		want []string
	}{
		{"unreachable", []string{"LLM_PROVIDER=openai", "OPENAI_BASE_URL=http://127.0.0.1:9/v1", "OPENAI_MODEL=m"},
			[]string{"cannot connect to openai at http://127.0.0.1:9/v1", "connection refused"}},
		{"no such endpoint", []string{"LLM_PROVIDER=openai", "OPENAI_BASE_URL=" + strings.TrimSuffix(srv.URL, "/v1") + "/nowhere", "OPENAI_MODEL=m"},
			[]string{"HTTP 404 at " + strings.TrimSuffix(srv.URL, "/v1") + "/nowhere/models", "unknown request URL", "check OPENAI_BASE_URL"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := runCo(t, t.TempDir(), env(t, nil, tc.env...), "", "models")
			if code != 1 {
				t.Errorf("exit %d, want 1", code)
			}
			if out != "" {
				t.Errorf("stdout: %q", out)
			}
			for _, w := range tc.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr lacks %q: %s", w, errOut)
				}
			}
			if strings.Contains(errOut, `{"`) || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
				t.Errorf("stderr is not one plain line: %q", errOut)
			}
		})
	}
}

func TestStatusShowsTheModelThatLastAnswered(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.SetProfile(llmtest.ProfileGemini)
	home := t.TempDir()
	e := geminiEnv(t, srv, home)

	out, errOut, code := runCo(t, t.TempDir(), e, "", "status")
	if code != 0 {
		t.Fatalf("status: exit %d; %s", code, errOut)
	}
	if line := statusLine(out, "model"); line != "gemini-flash-latest" {
		t.Errorf("before any chat, model line %q; want the configured name alone", line)
	}

	// The server names the model behind the alias in its chunks.
	srv.Script(llmtest.Reply{Raw: `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"gemini-3.5-flash","choices":[{"index":0,"delta":{"role":"assistant","content":"Hi."},"finish_reason":"stop"}]}` + "\n\n" +
		`data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"gemini-3.5-flash","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}` + "\n\ndata: [DONE]\n\n"})
	if _, errOut, code := runCo(t, t.TempDir(), e, "", "run", "hello"); code != 0 {
		t.Fatalf("run: exit %d; %s", code, errOut)
	}
	out, errOut, code = runCo(t, t.TempDir(), e, "", "status")
	if code != 0 {
		t.Fatalf("status: exit %d; %s", code, errOut)
	}
	if line, want := statusLine(out, "model"), "gemini-flash-latest (last answered as gemini-3.5-flash, just now)"; line != want {
		t.Errorf("model line %q, want %q\n%s", line, want, out)
	}
}

// statusLine is the value of a `co status` row.
func statusLine(out, key string) string {
	for _, l := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(l, " "); ok && k == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
