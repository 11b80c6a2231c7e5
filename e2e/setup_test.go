package e2e

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/co-cli/co/agent/llmtest"
)

// co --plain without a provider: /setup chooses Gemini, takes the key
// (checked against Gemini's model list; the llmtest Gemini profile speaks
// Google's OpenAI-compatible wire format and refuses other keys), takes
// the default model, saves with co config set's code (the user file, mode
// 0600), and the next line is answered by Gemini in the same run. The key
// is never printed, and never in the data dir (spans, sessions, history).
// A second run starts with the saved provider and no setup.
func TestPlainFirstRunSetupGemini(t *testing.T) {
	const key = "AIzaSyE2E-plain-setup-key-0123456789ab"
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.SetProfile(llmtest.ProfileGemini)
	srv.SetAPIKey(key)
	srv.Script(llmtest.Reply{Text: "Hello from the set-up Gemini."}, llmtest.Reply{Text: "Second run answered."})
	environ := env(t, nil, "OLLAMA_HOST=http://127.0.0.1:9", "GEMINI_BASE_URL="+srv.URL)
	home := strings.TrimPrefix(environ[0], "HOME=")
	dir := t.TempDir()

	out, errOut, code := runCo(t, dir, environ, "/setup\n1\n"+key+"\n\nhi\n", "--plain")
	if code != 0 {
		t.Fatalf("exit %d:\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{
		"No LLM provider is set up: type /setup",
		"1  Gemini", "Paste your Gemini API key", "(key not shown)",
		"Press Enter for gemini-flash-latest.",
		"Saved to " + filepath.Join(home, ".config", "co-cli", "settings.json"),
		"Hello from the set-up Gemini.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out+errOut, key) {
		t.Errorf("the key was printed:\n%s\n%s", out, errOut)
	}
	user := filepath.Join(home, ".config", "co-cli", "settings.json")
	data, err := os.ReadFile(user)
	if err != nil {
		t.Fatal(err)
	}
	const want = "{\n  \"llm_provider\": \"gemini\",\n  \"gemini_api_key\": \"" + key + "\",\n  \"gemini_model\": \"gemini-flash-latest\"\n}\n"
	if string(data) != want {
		t.Errorf("settings file:\n%s\nwant\n%s", data, want)
	}
	if fi, err := os.Stat(user); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("settings file mode: %v, %v", fi, err)
	}

	out, errOut, code = runCo(t, dir, environ, "again\n", "--plain")
	if code != 0 || strings.Contains(out, "1  Gemini") || !strings.Contains(out, "Second run answered.") {
		t.Errorf("second run: exit %d:\n%s\n%s", code, out, errOut)
	}

	// The data dir (the span store, sessions, input history, logs) never
	// holds the key.
	dataDir := filepath.Join(home, ".local", "share")
	err = filepath.WalkDir(dataDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.Contains(string(b), key) || strings.Contains(string(b), "plain-setup-key") {
			t.Errorf("%s holds the key", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// An OpenAI-compatible server with no key: the URL, Enter for no key, the
// one model it lists taken with Enter, and the chat goes on with it.
// LLM_PROVIDER=openai was set without a URL: the setup says that variable
// will still win at the next start.
func TestPlainFirstRunSetupOpenAICompatible(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(llmtest.Reply{Text: "Local server here."})
	environ := env(t, nil, "OLLAMA_HOST=http://127.0.0.1:9", "LLM_PROVIDER=openai")
	out, errOut, code := runCo(t, t.TempDir(), environ, "/setup\n3\nlocalhost:8080\n"+srv.URL+"\n\n\nhi\n", "--plain")
	if code != 0 {
		t.Fatalf("exit %d:\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{
		"No LLM provider is set up: type /setup",
		"Ollama: models on this machine; not found at http://127.0.0.1:9",
		`error: "openai_base_url" must be an http or https URL, got "localhost:8080"`,
		"Press Enter for test.",
		"llm_provider openai, openai_base_url " + srv.URL + ", openai_model test",
		"Local server here.",
		"Note: at the next start these come from elsewhere, which wins over your user file: llm_provider ($LLM_PROVIDER)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// Ollama found running at OLLAMA_HOST (the llmtest Ollama profile: its
// /api/version, /api/tags and native /api/chat): "2", Enter for the model
// it lists, and the chat goes on with Ollama in the same run.
func TestPlainFirstRunSetupOllama(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.SetProfile(llmtest.ProfileOllama)
	srv.Script(llmtest.Reply{Text: "Ollama answers."})
	host := strings.TrimSuffix(srv.URL, "/v1")
	// LLM_PROVIDER=gemini chosen explicitly without a key: co does not
	// fall back to Ollama by itself, so there is no provider.
	environ := env(t, nil, "OLLAMA_HOST="+host, "LLM_PROVIDER=gemini")
	out, errOut, code := runCo(t, t.TempDir(), environ, "/setup\n2\n\nhi\n", "--plain")
	if code != 0 {
		t.Fatalf("exit %d:\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{
		"Ollama: models on this machine; running at " + host + ", 1 model",
		"Press Enter for qwen3:8b.",
		"llm_provider ollama, ollama_model qwen3:8b",
		"Ollama answers.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if reqs := srv.Requests(); len(reqs) == 0 || reqs[len(reqs)-1].Path != "/api/chat" || reqs[len(reqs)-1].Body.Model != "qwen3:8b" {
		t.Errorf("the turn did not go to Ollama's /api/chat with qwen3:8b: %+v", reqs)
	}
}

// A key of no known shape, given in the setup and then (carelessly) typed
// into the chat: the span store of the same run holds it redacted, as it
// would for a key configured before start-up.
func TestPlainSetupKeyRedactedFromSpans(t *testing.T) {
	const key = "zq7-custom-e2e-provider-key-abcdef123"
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(llmtest.Reply{Text: "Noted."})
	environ := env(t, nil, "OLLAMA_HOST=http://127.0.0.1:9")
	home := strings.TrimPrefix(environ[0], "HOME=")
	out, errOut, code := runCo(t, t.TempDir(), environ, "/setup\n3\n"+srv.URL+"\n"+key+"\n\nmy key is "+key+"\n", "--plain")
	if code != 0 || !strings.Contains(out, "Noted.") {
		t.Fatalf("exit %d:\n%s\n%s", code, out, errOut)
	}
	// The setup does not print it back (the chat line is the user's own).
	if before, _, _ := strings.Cut(out, "co> my key is"); strings.Contains(before, key) || !strings.Contains(before, "(key not shown)") {
		t.Errorf("the setup printed the key back:\n%s", out)
	}
	if got := srv.Requests(); len(got) == 0 || got[len(got)-1].Header.Get("Authorization") != "Bearer "+key {
		t.Fatalf("the turn did not use the key")
	}
	dir := filepath.Join(home, ".local", "share", "co-cli")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var spans strings.Builder
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "co-cli.db") {
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			spans.Write(b)
		}
	}
	if spans.Len() == 0 {
		t.Fatalf("no span store in %s: %v", dir, entries)
	}
	if strings.Contains(spans.String(), key) {
		t.Errorf("the span store holds the key")
	}
	if !strings.Contains(spans.String(), "my key is [REDACTED]") {
		t.Errorf("the prompt is not in the span store redacted")
	}
}

// A prompt that fails for want of a provider says /setup, beside what to
// set. (The exit code is not this test's: a script's failed turn may end
// the chat.)
func TestPlainNoProviderTurnSaysSetup(t *testing.T) {
	out, errOut, _ := runCo(t, t.TempDir(), env(t, nil, "OLLAMA_HOST=http://127.0.0.1:9"), "hello\n", "--plain")
	for _, want := range []string{"error: no LLM provider is configured", "Type /setup to choose a provider here."} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s\n%s", want, out, errOut)
		}
	}
}
