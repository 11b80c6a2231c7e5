// Package setup is the chat's first-run provider setup, shared by ui/tui
// (a box over the chat with a masked field) and ui/plain (questions on the
// line): when co starts with no LLM provider, the chat offers to choose one
// — Gemini (paste a key), Ollama (found running at its address, or not) or
// any OpenAI-compatible server (its URL, and a key if it needs one) —,
// checks the choice by asking the provider for its model list, lets the
// user pick a model, saves the settings to the user file (with the code
// `co config set` uses, handed in as Env.Save) and hands them to the agent,
// so the next prompt goes to the new provider without a restart. Gemini CLI
// does the same on its first run: it asks "How would you like to
// authenticate for this project?" and offers "Use Gemini API key" among
// the answers (https://geminicli.com/docs/get-started/authentication).
//
// The check is each provider's own list of models (provider.ListModels), the
// request that proves both the address and the key:
//   - Gemini: GET {gemini_base_url}/models on its OpenAI-compatible endpoint,
//     ids "models/…" (https://ai.google.dev/gemini-api/docs/openai, "List
//     models"); a wrong key is Google's 400 API_KEY_INVALID;
//   - Ollama: GET /api/version to find it, GET /api/tags for its models
//     (https://github.com/ollama/ollama/blob/main/docs/api.md, "Version",
//     "List Local Models");
//   - an OpenAI-compatible server: GET {base}/models with the key as a
//     bearer token (https://platform.openai.com/docs/api-reference/models/list);
//     the URL is checked first, without the key (baseurl.go), and a URL
//     missing its /v1 is offered with it.
//
// The tests run against agent/llmtest's profiles, which speak those wire
// formats and cite the same sources.
//
// A Flow is a small state machine: Prompt says what to ask, Answer takes
// the user's line. Answer and Start may talk to the network: front ends
// call them off their UI loop. The key the user pastes is never in what a
// Flow returns to be shown, and never leaves it except to the provider (as
// its API key) and to Env.Save.
package setup

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/co-cli/co/agent/provider"
	"github.com/co-cli/co/lib/safe"
)

// GeminiKeyURL is where a Gemini API key is made (Google AI Studio), as
// Gemini CLI's authentication guide sends its users.
const GeminiKeyURL = "https://aistudio.google.com/apikey"

// Env is what a Flow needs from the chat.
type Env struct {
	// Settings are the provider settings co started with (addresses and
	// default models; no provider usable).
	Settings provider.ProviderSettings
	// UserFile is where Save writes, for the messages.
	UserFile string
	// Check checks one setting's value as the settings loader does, with its
	// message (config's), before anything is saved; nil checks nothing.
	Check func(key, value string) error
	// Save writes the settings (key, value pairs, in order) to the user
	// file: `co config set` for each, all or nothing. note, when not "",
	// says what will still override them at the next start (an
	// environment variable, the project file).
	Save func(pairs [][2]string) (note string, err error)
	// Configure hands the settings to the agent (agent.Agent.Configure).
	Configure func(ctx context.Context, s provider.ProviderSettings) (provider.Provider, error)
	// Client makes the HTTP requests; nil: http.DefaultClient.
	Client *http.Client
	// Probe reports whether Ollama answers at a /v1 base URL; nil:
	// provider.ProbeHTTP.
	Probe func(ctx context.Context, url string) bool
}

type step int

const (
	stepChoose step = iota
	stepGeminiKey
	stepGeminiUnreached // the key could not be checked: save it anyway, retry, or another key
	stepOllama
	stepOpenAIURL
	stepOpenAIFix // the URL is not the API root but URL/v1 is: use that, or type another
	stepOpenAIKey
	stepModel
	stepDone
)

// Prompt is what to ask next.
type Prompt struct {
	// Text is the question and what the user needs to answer it, plain text
	// of one or more lines.
	Text string
	// Secret: what the user types is a key; never show it.
	Secret bool
}

// Result is what an answer did.
type Result struct {
	// Said is what to show the user (plain text, never the key); "" for
	// nothing.
	Said string
	// Err: Said is a problem (the same question is asked again).
	Err bool
	// Done: the flow is over, configured or skipped.
	Done bool
	// Provider is the provider now in use, when Done after saving.
	Provider *provider.Provider
}

// Flow is one run of the setup.
type Flow struct {
	env      Env
	step     step
	s        provider.ProviderSettings // what is being set up
	name     string                    // gemini, ollama or openai
	ollamaOK bool                      // Ollama answered at s.OllamaHost
	ollamaN  int                       // the models it listed
	hostSet  bool                      // the user typed Ollama's address
	models   []string
	def      string // the model Enter picks; "" for none
	suggest  string // at stepOpenAIFix: the base URL that answers
}

// New starts a flow. Call Start before the first Prompt.
func New(env Env) *Flow {
	if env.Probe == nil {
		env.Probe = provider.ProbeHTTP
	}
	if env.Client == nil {
		env.Client = http.DefaultClient
	}
	return &Flow{env: env, s: env.Settings}
}

// Start looks for Ollama at its address, so the first question can say
// whether it runs. It may take up to a second or two (the probe's bound).
func (f *Flow) Start(ctx context.Context) {
	f.lookForOllama(ctx)
}

func (f *Flow) ollamaProvider() provider.Provider {
	s := f.s
	s.Provider = "ollama"
	p, _, _ := provider.ResolveProvider(context.Background(), s, nil)
	return p
}

// lookForOllama probes Ollama at s.OllamaHost and counts its models.
func (f *Flow) lookForOllama(ctx context.Context) {
	p := f.ollamaProvider()
	f.ollamaOK = f.env.Probe(ctx, p.BaseURL)
	f.ollamaN = 0
	if f.ollamaOK {
		if models, err := provider.ListModels(ctx, p, f.env.Client); err == nil {
			f.ollamaN = len(models)
			f.models = models
		}
	}
}

// Done reports whether the flow is over.
func (f *Flow) Done() bool { return f.step == stepDone }

// Skip ends the flow without saving anything.
func (f *Flow) Skip() Result {
	f.step = stepDone
	return Result{Done: true, Said: "Setup skipped. Type /setup to start it again, or set a provider with " +
		"co config set (see co config)."}
}

// Prompt is the question for the current step, plain text (an address
// the user typed, the server's model names: all sanitised).
func (f *Flow) Prompt() Prompt {
	p := f.prompt()
	p.Text = safe.Text(p.Text)
	return p
}

func (f *Flow) prompt() Prompt {
	switch f.step {
	case stepChoose:
		ollama := "not found at " + f.ollamaHost() + " (start it with `ollama serve`, or give its address next)"
		if f.ollamaOK {
			ollama = fmt.Sprintf("running at %s, %s", f.ollamaHost(), plural(f.ollamaN, "model"))
		}
		return Prompt{Text: "No LLM provider is set up yet. Choose one — type its number (Esc or an empty line skips):\n" +
			"  1  Gemini: Google's models; paste an API key (make one at " + GeminiKeyURL + ")\n" +
			"  2  Ollama: models on this machine; " + ollama + "\n" +
			"  3  An OpenAI-compatible server (OpenAI, OpenRouter, vLLM, llama.cpp, …): its URL, and a key if it needs one"}
	case stepGeminiKey:
		return Prompt{Text: "Paste your Gemini API key (it is not shown; make one at " + GeminiKeyURL + "):", Secret: true}
	case stepGeminiUnreached:
		return Prompt{Text: "Type s to save the key anyway (co uses it from the next message), " +
			"r or Enter to try Gemini again, or k to paste another key:"}
	case stepOllama:
		if f.ollamaOK {
			return Prompt{Text: "Ollama at " + f.ollamaHost() + " has no models. Pull one (`ollama pull qwen3`) and press Enter, " +
				"or type another address (host:port or URL):"}
		}
		return Prompt{Text: "Ollama does not answer at " + f.ollamaHost() + ". Start it (`ollama serve`) and press Enter to look again, " +
			"or type its address (host:port or URL):"}
	case stepOpenAIURL:
		return Prompt{Text: "The server's base URL (e.g. https://api.openai.com/v1 or http://localhost:8080/v1):"}
	case stepOpenAIFix:
		return Prompt{Text: "Press Enter (or y) to use " + f.suggest + ", or type another URL:"}
	case stepOpenAIKey:
		return Prompt{Text: "Its API key (it is not shown; press Enter if the server needs none):", Secret: true}
	case stepModel:
		return Prompt{Text: f.modelQuestion()}
	}
	return Prompt{}
}

func (f *Flow) ollamaHost() string {
	if f.s.OllamaHost == "" {
		return "http://localhost:11434"
	}
	return f.s.OllamaHost
}

// maxListed is how many models the question lists; the rest are typed by
// name.
const maxListed = 15

func (f *Flow) modelQuestion() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s lists %s. Choose one: type its number or its name.", providerTitle(f.name), plural(len(f.models), "chat model"))
	if f.def != "" {
		fmt.Fprintf(&b, "\nPress Enter for %s.", f.def)
	}
	for i, m := range f.models {
		if i == maxListed {
			fmt.Fprintf(&b, "\n  … and %d more (type a name)", len(f.models)-maxListed)
			break
		}
		fmt.Fprintf(&b, "\n  %2d  %s", i+1, m)
	}
	return safe.Text(b.String()) // the names come from the server
}

// Answer takes the user's line for the current step. It may ask the
// provider for its model list, save the settings and configure the agent.
func (f *Flow) Answer(ctx context.Context, line string) Result {
	in := strings.TrimSpace(line)
	switch f.step {
	case stepChoose:
		switch strings.ToLower(in) {
		case "":
			return f.Skip()
		case "1", "gemini":
			f.name, f.step = "gemini", stepGeminiKey
		case "2", "ollama":
			f.name = "ollama"
			return f.tryOllama(ctx)
		case "3", "openai", "openai-compatible":
			f.name, f.step = "openai", stepOpenAIURL
		default:
			return Result{Err: true, Said: "Type 1, 2 or 3 (or press Enter to skip)."}
		}
		return Result{}
	case stepGeminiKey:
		if in == "" {
			return Result{Err: true, Said: "No key given: paste it (or press Esc to skip)."}
		}
		if !printable(in) {
			return Result{Err: true, Said: "That does not look like a key (it has spaces or control characters): paste it again."}
		}
		f.s.GeminiAPIKey = in
		return f.checkGeminiKey(ctx)
	case stepGeminiUnreached:
		switch strings.ToLower(in) {
		case "s", "save":
			// Unchecked: the model Enter would pick (an alias Google
			// resolves), saved as a checked key would be.
			f.def, f.models = f.s.GeminiModel, nil
			return f.chooseModel(ctx, "")
		case "", "r", "retry":
			return f.checkGeminiKey(ctx)
		case "k", "key":
			f.s.GeminiAPIKey = ""
			f.step = stepGeminiKey
			return Result{}
		}
		return Result{Err: true, Said: "Type s (save anyway), r (try again) or k (another key)."}
	case stepOllama:
		if in != "" {
			if err := f.check("ollama_host", in); err != nil {
				return Result{Err: true, Said: err.Error()}
			}
			f.s.OllamaHost, f.hostSet = in, true
		}
		return f.tryOllama(ctx)
	case stepOpenAIURL, stepOpenAIFix:
		return f.answerBaseURL(ctx, in)
	case stepOpenAIKey:
		if in != "" && !printable(in) {
			return Result{Err: true, Said: "That does not look like a key (it has spaces or control characters): paste it again."}
		}
		f.s.OpenAIAPIKey = in
		p := provider.Provider{Name: "openai", BaseURL: f.s.OpenAIBaseURL, APIKey: in}
		models, err := provider.ListModels(ctx, p, f.env.Client)
		if err != nil {
			msg := safe.Text(provider.DescribeError(p, err))
			var le *provider.ListError
			if errors.As(err, &le) && (le.Status == http.StatusUnauthorized || le.Status == http.StatusForbidden) {
				return Result{Err: true, Said: msg + " Paste the key again."}
			}
			f.s.OpenAIAPIKey = ""
			f.step = stepOpenAIURL
			return Result{Err: true, Said: msg + " Check the URL."}
		}
		if len(models) == 1 {
			f.def = models[0]
		}
		return f.toModels(models)
	case stepModel:
		return f.chooseModel(ctx, in)
	}
	return Result{Done: true}
}

// checkGeminiKey asks Gemini for its models with the key in f.s. A key
// Gemini refuses is asked again; when Gemini cannot be reached (no network,
// the host not resolved, the connection refused) the key was not judged,
// so the user may save it anyway, try again, or give another.
func (f *Flow) checkGeminiKey(ctx context.Context) Result {
	p := provider.Provider{Name: "gemini", BaseURL: f.s.GeminiBaseURL, APIKey: f.s.GeminiAPIKey}
	models, err := provider.ListModels(ctx, p, f.env.Client)
	if err != nil {
		msg := safe.Text(provider.DescribeError(p, err))
		if unreachable(err) {
			f.step = stepGeminiUnreached
			return Result{Err: true, Said: "Could not reach Gemini, so the key is not checked: " + msg}
		}
		f.s.GeminiAPIKey = ""
		f.step = stepGeminiKey
		var le *provider.ListError
		if errors.As(err, &le) {
			// Google's reason alone: the fixes DescribeError names
			// (the variable, /setup) are this question.
			msg = safe.Text(fmt.Sprintf("HTTP %d: %s.", le.Status, strings.TrimSuffix(le.Message, ".")))
		}
		return Result{Err: true, Said: "Gemini did not accept it: " + msg + " Paste the key again."}
	}
	f.def = f.s.GeminiModel // gemini-flash-latest: an alias Google resolves, not listed
	return f.toModels(models)
}

// unreachable reports whether err is a failure to reach the server (DNS,
// connection, TLS, timeout) rather than an answer from it.
func unreachable(err error) bool {
	var le *provider.ListError
	if errors.As(err, &le) {
		return false
	}
	var ue *url.Error
	var ne net.Error
	return errors.As(err, &ue) || errors.As(err, &ne)
}

func (f *Flow) check(key, value string) error {
	if f.env.Check == nil {
		return nil
	}
	return f.env.Check(key, value)
}

// tryOllama looks for Ollama and its models, and moves to the model
// question when it has some.
func (f *Flow) tryOllama(ctx context.Context) Result {
	f.lookForOllama(ctx)
	if !f.ollamaOK || f.ollamaN == 0 {
		f.step = stepOllama
		return Result{}
	}
	f.def = ""
	if slices.Contains(f.models, f.s.OllamaModel) {
		f.def = f.s.OllamaModel
	} else {
		f.def = f.models[0]
	}
	return f.toModels(f.models)
}

func (f *Flow) toModels(models []string) Result {
	f.models = models
	f.step = stepModel
	if len(models) == 0 && f.def == "" {
		f.step = stepOpenAIURL
		return Result{Err: true, Said: "The server answers but lists no chat models; check the URL, or load a model on it."}
	}
	return Result{}
}

func (f *Flow) chooseModel(ctx context.Context, in string) Result {
	model := in
	switch n, err := strconv.Atoi(in); {
	case in == "" && f.def == "":
		return Result{Err: true, Said: "Choose a model: its number or its name."}
	case in == "":
		model = f.def
	case err == nil && n >= 1 && n <= len(f.models):
		model = f.models[n-1]
	case err == nil:
		return Result{Err: true, Said: fmt.Sprintf("There is no model %d: type a number from 1 to %d, or a name.", n, len(f.models))}
	case !slices.Contains(f.models, model) && model != f.def:
		return Result{Err: true, Said: safe.Text(fmt.Sprintf("%s does not list %q: type a number or a listed name.", providerTitle(f.name), model))}
	}
	pairs := [][2]string{{"llm_provider", f.name}}
	s := f.s
	s.Provider = f.name
	switch f.name {
	case "gemini":
		s.GeminiModel = model
		pairs = append(pairs, [2]string{"gemini_api_key", s.GeminiAPIKey}, [2]string{"gemini_model", model})
	case "ollama":
		s.OllamaModel = model
		if f.hostSet {
			pairs = append(pairs, [2]string{"ollama_host", s.OllamaHost})
		}
		pairs = append(pairs, [2]string{"ollama_model", model})
	case "openai":
		s.OpenAIModel = model
		pairs = append(pairs, [2]string{"openai_base_url", s.OpenAIBaseURL})
		if s.OpenAIAPIKey != "" {
			pairs = append(pairs, [2]string{"openai_api_key", s.OpenAIAPIKey})
		}
		pairs = append(pairs, [2]string{"openai_model", model})
	}
	note := ""
	if f.env.Save != nil {
		var err error
		if note, err = f.env.Save(pairs); err != nil {
			return Result{Err: true, Said: "Could not save the settings: " + safe.Text(err.Error())}
		}
	}
	p, err := f.env.Configure(ctx, s)
	if err != nil {
		return Result{Err: true, Said: "Saved, but co cannot use it: " + safe.Text(err.Error())}
	}
	f.step = stepDone
	var shown []string
	for _, kv := range pairs {
		v := kv[1]
		if strings.HasSuffix(kv[0], "_api_key") {
			v = "(set)"
		}
		shown = append(shown, kv[0]+" "+v)
	}
	said := fmt.Sprintf("Saved to %s: %s. Using %s (%s): type a message.", f.env.UserFile, strings.Join(shown, ", "), p.Name, p.Model)
	if note != "" {
		said += "\nNote: " + note
	}
	return Result{Done: true, Provider: &p, Said: safe.Text(said)}
}

// printable reports whether a key has no white space or control
// characters inside it.
func printable(s string) bool {
	for _, r := range s {
		if r <= ' ' || r == 0x7f {
			return false
		}
	}
	return true
}

func providerTitle(name string) string {
	switch name {
	case "gemini":
		return "Gemini"
	case "ollama":
		return "Ollama"
	}
	return "The server"
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}
