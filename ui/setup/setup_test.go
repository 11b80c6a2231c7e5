package setup_test

import (
	"context"
	"net"
	"strings"
	"testing"

	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/agent/provider"
	"github.com/co-cli/co/ui/setup"
)

const geminiKey = "AIzaSyTEST-secret-key-0123456789"

// recorder is the chat's side of a flow: what was saved and configured.
type recorder struct {
	saved      [][2]string
	configured *provider.ProviderSettings
}

func (r *recorder) env(s provider.ProviderSettings) setup.Env {
	return setup.Env{
		Settings: s,
		UserFile: "/home/u/.config/co-cli/settings.json",
		Save:     func(pairs [][2]string) (string, error) { r.saved = append(r.saved, pairs...); return "", nil },
		Configure: func(ctx context.Context, s provider.ProviderSettings) (provider.Provider, error) {
			r.configured = &s
			s.ProviderExplicit = true
			p, _, err := provider.ResolveProvider(ctx, s, nil)
			return p, err
		},
	}
}

// closedAddr is an address where nothing listens.
func closedAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}

func noKey(t *testing.T, r setup.Result) {
	t.Helper()
	if strings.Contains(r.Said, geminiKey) || strings.Contains(r.Said, "secret-key") {
		t.Fatalf("the key is in what the flow shows: %q", r.Said)
	}
}

// Gemini: a wrong key is refused with Google's reason and asked again; the
// right one lists the models (Google's "models/…" ids, from the Gemini
// profile of agent/llmtest, which cites Google's OpenAI-compatibility docs),
// Press Enter for gemini-flash-latest, and the settings are saved and used.
func TestGeminiSetup(t *testing.T) {
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	srv.SetProfile(llmtest.ProfileGemini)
	srv.SetAPIKey(geminiKey)
	var rec recorder
	f := setup.New(rec.env(provider.ProviderSettings{GeminiBaseURL: srv.URL, GeminiModel: "gemini-flash-latest", OllamaHost: closedAddr(t)}))
	ctx := context.Background()
	f.Start(ctx)
	if p := f.Prompt(); !strings.Contains(p.Text, "1  Gemini") || !strings.Contains(p.Text, "Ollama: models on this machine; not found at") {
		t.Fatalf("first question:\n%s", p.Text)
	}
	if r := f.Answer(ctx, "1"); r.Err || r.Done {
		t.Fatalf("choosing Gemini: %+v", r)
	}
	if p := f.Prompt(); !p.Secret || !strings.Contains(p.Text, setup.GeminiKeyURL) {
		t.Fatalf("key question: %+v", p)
	}
	r := f.Answer(ctx, "AIzaSy-wrong-key-0000000000")
	noKey(t, r)
	if !r.Err || !strings.Contains(r.Said, "API key not valid") || !strings.Contains(r.Said, "Paste the key again") || strings.Contains(r.Said, "/setup") {
		t.Fatalf("wrong key: %+v", r)
	}
	if p := f.Prompt(); !p.Secret {
		t.Fatalf("after a wrong key the question is %+v", p)
	}
	r = f.Answer(ctx, geminiKey)
	noKey(t, r)
	if r.Err {
		t.Fatalf("right key: %+v", r)
	}
	q := f.Prompt().Text
	if !strings.Contains(q, "Press Enter for gemini-flash-latest") || !strings.Contains(q, "gemini-3.5-flash") || strings.Contains(q, "models/") {
		t.Fatalf("model question:\n%s", q)
	}
	r = f.Answer(ctx, "")
	noKey(t, r)
	if !r.Done || r.Provider == nil || r.Provider.Name != "gemini" || r.Provider.Model != "gemini-flash-latest" {
		t.Fatalf("choosing the default: %+v", r)
	}
	want := [][2]string{{"llm_provider", "gemini"}, {"gemini_api_key", geminiKey}, {"gemini_model", "gemini-flash-latest"}}
	if len(rec.saved) != len(want) {
		t.Fatalf("saved %v", rec.saved)
	}
	for i := range want {
		if rec.saved[i] != want[i] {
			t.Errorf("saved[%d] = %v, want %v", i, rec.saved[i], want[i])
		}
	}
	if rec.configured == nil || rec.configured.GeminiAPIKey != geminiKey {
		t.Errorf("configured %+v", rec.configured)
	}
	if !strings.Contains(r.Said, "gemini_api_key (set)") {
		t.Errorf("done: %q", r.Said)
	}
}

// Ollama found running (its /api/version and /api/tags, as the Ollama
// profile of agent/llmtest answers them, citing Ollama's API docs): the
// first question says so, and choosing it goes straight to its models.
func TestOllamaFound(t *testing.T) {
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	srv.SetProfile(llmtest.ProfileOllama)
	srv.SetOllamaModels(llmtest.OllamaModel{Name: "llama3.2:latest", Family: "llama"}, llmtest.OllamaModel{Name: "qwen3:8b", Family: "qwen3"})
	host := strings.TrimSuffix(srv.URL, "/v1")
	var rec recorder
	f := setup.New(rec.env(provider.ProviderSettings{OllamaHost: host, OllamaModel: "glm-4.7-flash:q8_0"}))
	ctx := context.Background()
	f.Start(ctx)
	if p := f.Prompt(); !strings.Contains(p.Text, "running at "+host+", 2 models") {
		t.Fatalf("first question:\n%s", p.Text)
	}
	if r := f.Answer(ctx, "ollama"); r.Err {
		t.Fatalf("choosing Ollama: %+v", r)
	}
	if q := f.Prompt().Text; !strings.Contains(q, " 1  llama3.2:latest") || !strings.Contains(q, "Press Enter for llama3.2:latest") {
		t.Fatalf("model question:\n%s", q)
	}
	if r := f.Answer(ctx, "9"); !r.Err || !strings.Contains(r.Said, "from 1 to 2") {
		t.Fatalf("a number out of range: %+v", r)
	}
	r := f.Answer(ctx, "2")
	if !r.Done || r.Provider == nil || r.Provider.Model != "qwen3:8b" {
		t.Fatalf("choosing 2: %+v", r)
	}
	if len(rec.saved) != 2 || rec.saved[1] != [2]string{"ollama_model", "qwen3:8b"} {
		t.Errorf("saved %v (the address was not typed: not saved)", rec.saved)
	}
}

// Ollama not running: the first question says so, and the setup waits for
// it to be started or for another address, which it then saves.
func TestOllamaNotFound(t *testing.T) {
	dead := closedAddr(t)
	var rec recorder
	f := setup.New(rec.env(provider.ProviderSettings{OllamaHost: dead}))
	ctx := context.Background()
	f.Start(ctx)
	if p := f.Prompt(); !strings.Contains(p.Text, "not found at "+dead) {
		t.Fatalf("first question:\n%s", p.Text)
	}
	f.Answer(ctx, "2")
	if q := f.Prompt().Text; !strings.Contains(q, "Ollama does not answer at "+dead) {
		t.Fatalf("question:\n%s", q)
	}
	// An address where nothing answers is looked at, and asked about again.
	other := closedAddr(t)
	f.Answer(ctx, other)
	if q := f.Prompt().Text; !strings.Contains(q, "Ollama does not answer at "+other) {
		t.Fatalf("after another dead address:\n%s", q)
	}
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	srv.SetProfile(llmtest.ProfileOllama)
	host := strings.TrimSuffix(srv.URL, "/v1")
	if r := f.Answer(ctx, host); r.Err {
		t.Fatalf("the running address: %+v", r)
	}
	r := f.Answer(ctx, "")
	if !r.Done || r.Provider.Model != "qwen3:8b" {
		t.Fatalf("default model: %+v", r)
	}
	if rec.saved[1] != [2]string{"ollama_host", host} {
		t.Errorf("saved %v", rec.saved)
	}
}

// An OpenAI-compatible server: the URL is checked as the settings loader
// checks it, a wrong address says so and asks again, a key may be left out.
func TestOpenAICompatibleSetup(t *testing.T) {
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	srv.SetProfile(llmtest.ProfileOpenAI)
	var rec recorder
	env := rec.env(provider.ProviderSettings{OllamaHost: closedAddr(t)})
	env.Check = func(key, value string) error {
		if !strings.HasPrefix(value, "http") {
			return &checkErr{`"` + key + `" must be an http or https URL, got "` + value + `"`}
		}
		return nil
	}
	f := setup.New(env)
	ctx := context.Background()
	f.Start(ctx)
	f.Answer(ctx, "3")
	if r := f.Answer(ctx, "api.example"); !r.Err || !strings.Contains(r.Said, "must be an http or https URL") {
		t.Fatalf("a bad URL: %+v", r)
	}
	host := strings.TrimSuffix(srv.URL, "/v1")
	r := f.Answer(ctx, host+"/nothing-here")
	if !r.Err || !strings.Contains(r.Said, "Check the URL") || f.Prompt().Secret {
		t.Fatalf("a wrong address: %+v, then %+v", r, f.Prompt())
	}
	if f.Answer(ctx, srv.URL).Err {
		t.Fatal("the right URL was refused")
	}
	if r := f.Answer(ctx, "sk-test"); r.Err {
		t.Fatalf("key: %+v", r)
	}
	if q := f.Prompt().Text; !strings.Contains(q, "gpt-") {
		t.Fatalf("model question:\n%s", q)
	}
	if r := f.Answer(ctx, ""); !r.Err {
		t.Fatalf("Enter with no default: %+v", r)
	}
	r = f.Answer(ctx, "gpt-4.1")
	if !r.Done || r.Provider.Name != "openai" {
		t.Fatalf("choosing by name: %+v", r)
	}
	want := [][2]string{{"llm_provider", "openai"}, {"openai_base_url", srv.URL}, {"openai_api_key", "sk-test"}, {"openai_model", "gpt-4.1"}}
	for i := range want {
		if i >= len(rec.saved) || rec.saved[i] != want[i] {
			t.Fatalf("saved %v, want %v", rec.saved, want)
		}
	}
}

type checkErr struct{ s string }

func (e *checkErr) Error() string { return e.s }

// An empty line (or Esc) at the first question skips, saving nothing.
func TestSkip(t *testing.T) {
	var rec recorder
	f := setup.New(rec.env(provider.ProviderSettings{OllamaHost: closedAddr(t)}))
	f.Start(context.Background())
	r := f.Answer(context.Background(), "")
	if !r.Done || r.Provider != nil || len(rec.saved) != 0 || !strings.Contains(r.Said, "/setup") {
		t.Fatalf("skip: %+v, saved %v", r, rec.saved)
	}
}

// What the user types (an address) and what a server lists (model names)
// reach the screen only through the sanitiser.
func TestPromptIsSanitised(t *testing.T) {
	var rec recorder
	f := setup.New(rec.env(provider.ProviderSettings{OllamaHost: "http://127.0.0.1:1"}))
	ctx := context.Background()
	f.Start(ctx)
	f.Answer(ctx, "2")
	f.Answer(ctx, "http://127.0.0.1:1/\x1b]52;c;ZXZpbA==\x07\x1b[2J")
	if q := f.Prompt().Text; strings.ContainsAny(q, "\x1b\x07") || !strings.Contains(q, "Ollama does not answer at") {
		t.Fatalf("raw control characters in the question: %q", q)
	}
}

// Gemini cannot be reached (here: nothing listens at its address; with no
// network it is the host not resolved): that is not a rejected key. The
// flow says Gemini could not be reached, not that it refused the key, and
// offers to try again, to give another key, or to save this one anyway.
func TestGeminiUnreachableIsNotARejectedKey(t *testing.T) {
	var rec recorder
	f := setup.New(rec.env(provider.ProviderSettings{GeminiBaseURL: closedAddr(t), GeminiModel: "gemini-flash-latest", OllamaHost: closedAddr(t)}))
	ctx := context.Background()
	f.Start(ctx)
	f.Answer(ctx, "1")
	r := f.Answer(ctx, geminiKey)
	noKey(t, r)
	if !r.Err || strings.Contains(r.Said, "did not accept") || strings.Contains(r.Said, "Paste the key again") ||
		!strings.Contains(r.Said, "Could not reach Gemini") || !strings.Contains(r.Said, "connection refused") {
		t.Fatalf("unreachable Gemini: %+v", r)
	}
	p := f.Prompt()
	if p.Secret || !strings.Contains(p.Text, "s to save the key anyway") || !strings.Contains(p.Text, "r or Enter to try Gemini again") || !strings.Contains(p.Text, "k to paste another key") {
		t.Fatalf("the question after an unreachable Gemini: %+v", p)
	}
	if r := f.Answer(ctx, "x"); !r.Err || !strings.Contains(r.Said, "Type s") {
		t.Fatalf("a wrong answer: %+v", r)
	}
	if r := f.Answer(ctx, "r"); !r.Err || !strings.Contains(r.Said, "Could not reach Gemini") {
		t.Fatalf("trying again: %+v", r)
	}
	if r := f.Answer(ctx, "k"); r.Err || !f.Prompt().Secret {
		t.Fatalf("another key: %+v, then %+v", r, f.Prompt())
	}
	f.Answer(ctx, geminiKey)
	r = f.Answer(ctx, "s")
	noKey(t, r)
	if !r.Done || r.Provider == nil || r.Provider.Name != "gemini" || r.Provider.Model != "gemini-flash-latest" {
		t.Fatalf("saving anyway: %+v", r)
	}
	want := [][2]string{{"llm_provider", "gemini"}, {"gemini_api_key", geminiKey}, {"gemini_model", "gemini-flash-latest"}}
	if len(rec.saved) != len(want) || rec.saved[1] != want[1] || rec.saved[2] != want[2] {
		t.Fatalf("saved %v, want %v", rec.saved, want)
	}
}
