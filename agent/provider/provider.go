package provider

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/co-cli/co/lib/count"
	"github.com/co-cli/co/lib/retryafter"
)

// Provider is a resolved LLM endpoint.
type Provider struct {
	// Name is gemini, ollama or openai.
	Name    string
	BaseURL string // OpenAI-compatible base URL (…/v1)
	APIKey  string
	Model   string
	// KeyEnv names the variable that holds the key, for error messages.
	KeyEnv string
}

// ProviderSettings is what ResolveProvider needs from the settings.
type ProviderSettings struct {
	Provider         string // gemini | ollama | openai
	ProviderExplicit bool   // set by the user (file or env), not the default
	GeminiAPIKey     string
	GeminiModel      string
	GeminiBaseURL    string
	OllamaHost       string
	OllamaModel      string
	OpenAIBaseURL    string
	OpenAIAPIKey     string
	OpenAIModel      string
}

// ErrNoProvider means no provider is usable; its message says what to set.
var ErrNoProvider = errors.New("no LLM provider is configured")

// ResolveProvider picks the provider. When the provider was not chosen
// explicitly, no Gemini key exists and Ollama answers probe, Ollama is used
// and note says so. probe may be nil (no network is touched then).
func ResolveProvider(ctx context.Context, s ProviderSettings, probe func(ctx context.Context, url string) bool) (p Provider, note string, err error) {
	switch s.Provider {
	case "", "gemini":
		if s.GeminiAPIKey != "" {
			return geminiProvider(s), "", nil
		}
		if !s.ProviderExplicit && s.OpenAIBaseURL != "" {
			return openaiProvider(s), "no GEMINI_API_KEY; using the OpenAI-compatible endpoint " + s.OpenAIBaseURL, nil
		}
		if !s.ProviderExplicit && probe != nil && probe(ctx, ollamaBase(s.OllamaHost)) {
			return ollamaProvider(s), "no GEMINI_API_KEY; Ollama answers at " + s.OllamaHost + ", using it", nil
		}
		return geminiProvider(s), "", fmt.Errorf("%w: set GEMINI_API_KEY for Gemini, or start Ollama (`ollama serve`, OLLAMA_HOST=%s), or set OPENAI_BASE_URL (with LLM_PROVIDER=openai) for any OpenAI-compatible server", ErrNoProvider, s.OllamaHost)
	case "ollama":
		return ollamaProvider(s), "", nil
	case "openai":
		if s.OpenAIBaseURL == "" {
			return openaiProvider(s), "", fmt.Errorf("%w: LLM_PROVIDER is openai but OPENAI_BASE_URL is not set (e.g. OPENAI_BASE_URL=https://api.openai.com/v1)", ErrNoProvider)
		}
		if s.OpenAIModel == "" {
			return openaiProvider(s), "", fmt.Errorf("%w: LLM_PROVIDER is openai but OPENAI_MODEL is not set", ErrNoProvider)
		}
		return openaiProvider(s), "", nil
	default:
		return Provider{}, "", fmt.Errorf("unknown llm_provider %q: use gemini, ollama or openai", s.Provider)
	}
}

func geminiProvider(s ProviderSettings) Provider {
	return Provider{Name: "gemini", BaseURL: s.GeminiBaseURL, APIKey: s.GeminiAPIKey, Model: s.GeminiModel, KeyEnv: "GEMINI_API_KEY"}
}

func ollamaProvider(s ProviderSettings) Provider {
	return Provider{Name: "ollama", BaseURL: ollamaBase(s.OllamaHost), APIKey: "ollama", Model: s.OllamaModel, KeyEnv: ""}
}

func openaiProvider(s ProviderSettings) Provider {
	return Provider{Name: "openai", BaseURL: s.OpenAIBaseURL, APIKey: s.OpenAIAPIKey, Model: s.OpenAIModel, KeyEnv: "OPENAI_API_KEY"}
}

// Endpoint is the address co talks to p at, for status and errors: for
// Ollama its root (co uses the native /api/chat, not the /v1 that BaseURL
// keeps for listing and the OpenAI layer), for the others the base URL.
func Endpoint(p Provider) string {
	if p.Name == "ollama" {
		return OllamaRoot(p.BaseURL)
	}
	return p.BaseURL
}

func ollamaBase(host string) string {
	h := strings.TrimRight(host, "/")
	if h == "" {
		h = "http://localhost:11434"
	}
	if !strings.Contains(h, "://") {
		h = "http://" + h
	}
	return h + "/v1"
}

// ProbeHTTP reports whether Ollama answers at url (its /v1 base or its
// root): GET /api/version must answer 200 with a JSON {"version": …}
// (ollama/ollama docs/api.md, "Version"), so that another server on the
// port is not taken for Ollama. It waits until the context's deadline (1 s
// if it has none).
func ProbeHTTP(ctx context.Context, url string) bool {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Second)
		defer cancel()
	}
	_, err := ollamaVersion(ctx, http.DefaultClient, OllamaRoot(url))
	return err == nil
}

// CheckReachable asks p for its model list (GET …/models with the key,
// within the context's deadline, 1 s if it has none), as co status does:
// ok when the list comes, else a sentence saying what is wrong (nothing
// answers, no API at that address, the key refused). msg is "yes (N models
// listed)" when ok. Any HTTP answer is not enough: a web server at the
// wrong path answers 404.
func CheckReachable(ctx context.Context, p Provider) (ok bool, msg string) {
	ok, msg, _ = CheckReachableModel(ctx, p)
	return ok, msg
}

// CheckReachableModel is CheckReachable, and warning is set when the list
// came but does not name p.Model: a server that serves one model answers
// with it whatever the request names (llama.cpp's llama-server lists only
// its --alias or model path in GET /v1/models and answers a request for
// "no-such-model" with its own model: docs/providers.md, llama.cpp), so the
// name co shows may not be the model that answers.
func CheckReachableModel(ctx context.Context, p Provider) (ok bool, msg, warning string) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Second)
		defer cancel()
	}
	models, err := ListModels(ctx, p, nil)
	if err == nil {
		return true, "yes (" + count.Of(len(models), "model") + " listed)", notListed(p, models)
	}
	var listErr *ListError
	if errors.As(err, &listErr) {
		return false, describeError(p, err), ""
	}
	if ctx.Err() != nil {
		return false, fmt.Sprintf("%s does not answer", Endpoint(p)), ""
	}
	var netErr net.Error
	if errors.As(err, &netErr) || errors.Is(err, syscall.ECONNREFUSED) {
		return false, describeError(p, err), ""
	}
	// A 200 that is not a model list: something else answers there.
	return false, fmt.Sprintf("%s answers, but not with a model list (%s); %s", modelsURL(p), strings.TrimSuffix(PlainMessage(err.Error()), "."), addressSetting(p)), ""
}

// notListed is the warning when models (a non-empty list) lacks p.Model.
func notListed(p Provider, models []string) string {
	if len(models) == 0 || p.Model == "" {
		return ""
	}
	want := strings.TrimPrefix(p.Model, "models/")
	for _, m := range models {
		if strings.EqualFold(m, want) || p.Name == "ollama" && sameOllamaModel(m, want) {
			return ""
		}
	}
	const show = 3
	list := models
	more := ""
	if len(list) > show {
		list, more = list[:show], fmt.Sprintf(" and %d more", len(models)-show)
	}
	return fmt.Sprintf("the server does not list %s (it lists %s%s); a server that loads one model, such as llama.cpp's llama-server, answers with its own whatever name is asked; to name the one it serves, %s", p.Model, strings.Join(list, ", "), more, modelSetting(p))
}

// RetryPolicy bounds retries of rate-limited (429) and failed (5xx) requests.
type RetryPolicy struct {
	Attempts int           // total attempts, default 4
	Base     time.Duration // first backoff, default 1 s, doubled each time
	MaxWait  time.Duration // longest single wait, default 30 s; a longer Retry-After is not waited out
	// Sleep, when set, does the wait between attempts in place of a timer
	// (tests record what was asked for); it returns ctx's error if ctx ends
	// first. nil waits on a real timer.
	Sleep func(ctx context.Context, d time.Duration) error
}

func (r RetryPolicy) withDefaults() RetryPolicy {
	if r.Attempts <= 0 {
		r.Attempts = 4
	}
	if r.Base <= 0 {
		r.Base = time.Second
	}
	if r.MaxWait <= 0 {
		r.MaxWait = 30 * time.Second
	}
	if r.Sleep == nil {
		r.Sleep = sleepCtx
	}
	return r
}

// sleepCtx waits d, or until ctx ends (then it returns ctx's error).
func sleepCtx(ctx context.Context, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}

type noticeKey struct{}

// withNotify attaches a function that retry notices are sent to.
func WithNotify(ctx context.Context, f func(string)) context.Context {
	return context.WithValue(ctx, noticeKey{}, f)
}

// retryTransport retries 429 and 5xx answers with bounded exponential
// backoff, honouring Retry-After. It waits on the request's context, so a
// cancelled turn stops waiting at once.
type retryTransport struct {
	next   http.RoundTripper
	policy RetryPolicy
}

func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	p := t.policy
	for attempt := 1; ; attempt++ {
		resp, err := t.next.RoundTrip(req)
		if err != nil || !retryable(resp.StatusCode) {
			return resp, err
		}
		// The body says whether the 429 can be waited out, and for how
		// long (Gemini sends no Retry-After; see errors.go).
		if resp.StatusCode == http.StatusInternalServerError {
			// llama-server without --mmproj and Ollama answer an image to
			// a model without vision with a 500 (attach.go), llama-server
			// without --jinja any request with tools, and llama.cpp a
			// request whose context filled up (errors.go): asking again
			// cannot help.
			if b := string(peekBody(resp, 64<<10)); refusesImages(b) || needsJinja(b) || contextFull(b) {
				return resp, nil
			}
		}
		var body errorBody
		if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
			body, _ = parseErrorBody(peekBody(resp, 64<<10))
		}
		if resp.StatusCode == http.StatusTooManyRequests {
			if q := body.quotaExhausted(); q != nil {
				resp.Body.Close()
				return nil, q
			}
		}
		if attempt >= p.Attempts || (req.Body != nil && req.GetBody == nil) {
			return resp, nil
		}
		wait := p.Base << (attempt - 1)
		if ra, ok := retryafter.Parse(resp.Header.Get("Retry-After"), time.Now()); ok {
			wait = ra
		} else if d, ok := body.retryDelay(); ok {
			wait = d
		}
		if wait > p.MaxWait {
			return resp, nil
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		if f, ok := req.Context().Value(noticeKey{}).(func(string)); ok {
			f(fmt.Sprintf("The model's server answered HTTP %d; retrying in %s (attempt %d of %d).", resp.StatusCode, wait.Round(100*time.Millisecond), attempt+1, p.Attempts))
		}
		if err := p.Sleep(req.Context(), wait); err != nil {
			return nil, err
		}
		if req.GetBody != nil {
			body, err := req.GetBody()
			if err != nil {
				return nil, err
			}
			req = req.Clone(req.Context())
			req.Body = body
		}
	}
}

func retryable(code int) bool {
	return code == http.StatusTooManyRequests || code >= 500
}

// newClient builds the go-openai client for p: co's request bodies
// (bodySeam), with retries, over base (http.DefaultTransport when nil).
func NewClient(p Provider, rp RetryPolicy, base http.RoundTripper) *openai.Client {
	if base == nil {
		base = http.DefaultTransport
	}
	cfg := openai.DefaultConfig(p.APIKey)
	cfg.BaseURL = strings.TrimRight(p.BaseURL, "/")
	cfg.HTTPClient = &http.Client{Transport: bodySeam{&retryTransport{next: base, policy: rp.withDefaults()}}}
	cfg.EmptyMessagesLimit = 1000
	return openai.NewClientWithConfig(cfg)
}

// describeError turns a provider failure into one plain sentence or two
// that say what to do; error bodies in either shape (OpenAI's or Google's,
// see errorBody) are reduced to their message, never dumped.
func describeError(p Provider, err error) string {
	var quota *QuotaError
	if errors.As(err, &quota) {
		return describeQuota(p, quota, time.Now())
	}
	var listErr *ListError
	if errors.As(err, &listErr) {
		// The model list itself was refused (`co models`).
		if listErr.Status == http.StatusUnauthorized || listErr.Status == http.StatusForbidden {
			fix := "check the API key"
			if p.KeyEnv != "" {
				fix = "set a valid " + p.KeyEnv
			}
			return fmt.Sprintf("%s refused to list its models (HTTP %d: %s): %s.", p.Name, listErr.Status, strings.TrimSuffix(listErr.Message, "."), fix)
		}
		if listErr.Status == http.StatusNotFound {
			// Listing names no model: a 404 there is always the address.
			return describeWrongAddress(p, modelsURL(p), listErr.Message)
		}
		return fmt.Sprintf("%s could not list its models at %s (HTTP %d: %s).", p.Name, Endpoint(p), listErr.Status, strings.TrimSuffix(listErr.Message, "."))
	}
	var apiErr *openai.APIError
	var reqErr *openai.RequestError
	status := 0
	detail, code := "", ""
	var body errorBody
	jsonErr := false // the body was the provider's error JSON
	switch {
	// RequestError first: go-openai puts an empty APIError inside one
	// whose body did not decode (Ollama's {"error":"…"}).
	case errors.As(err, &reqErr):
		status = reqErr.HTTPStatusCode
		body, _ = parseErrorBody(reqErr.Body)
		jsonErr = isProviderErrorJSON(reqErr.Body)
		code = body.code()
		detail = PlainError(reqErr.Body)
		if detail == "" && reqErr.Err != nil {
			detail = PlainMessage(reqErr.Err.Error())
		}
	case errors.As(err, &apiErr):
		jsonErr = true
		status, detail = apiErr.HTTPStatusCode, PlainMessage(apiErr.Message)
		if s, ok := apiErr.Code.(string); ok {
			code = s
		}
		if detail == "" {
			detail = PlainMessage(apiErr.Type)
		}
	}
	if detail == "" {
		detail = http.StatusText(status)
	}
	switch {
	case reqErr == nil && apiErr != nil && status == 0:
		// An error event in the middle of a stream (data: {"error":…}).
		return fmt.Sprintf("%s reported an error in the middle of the reply: %s.", p.Name, strings.TrimSuffix(detail, "."))
	case status == http.StatusUnauthorized || status == http.StatusForbidden || keyInvalid(status, detail):
		fix := "check the API key"
		if p.KeyEnv != "" {
			// The three ways to give the key: the variable, the user file,
			// and the chat's setup.
			fix = fmt.Sprintf("set a valid %s (or co config set %s), or type /setup in the chat", p.KeyEnv, strings.ToLower(p.KeyEnv))
		}
		return fmt.Sprintf("%s rejected the request (HTTP %d: %s): %s.", p.Name, status, strings.TrimSuffix(detail, "."), fix)
	case wrongAddress(p, status, jsonErr, code, detail):
		return describeWrongAddress(p, chatURL(p), detail)
	case modelMissing(status, code, detail):
		return describeMissingModel(p, status, strings.TrimSuffix(detail, "."))
	case status == http.StatusTooManyRequests:
		if d, ok := body.retryDelay(); ok {
			return fmt.Sprintf("%s is rate limiting requests (HTTP 429: %s) and asks to wait %s, longer than co waits; try again then, or %s.", p.Name, strings.TrimSuffix(detail, "."), d.Round(time.Second), modelSetting(p))
		}
		return fmt.Sprintf("%s is rate limiting requests (HTTP 429: %s) and retries ran out; wait a little and try again.", p.Name, strings.TrimSuffix(detail, "."))
	case status >= 500:
		return fmt.Sprintf("%s failed (HTTP %d: %s) and retries ran out; try again later.", p.Name, status, strings.TrimSuffix(detail, "."))
	case status != 0:
		return fmt.Sprintf("%s refused the request (HTTP %d: %s).", p.Name, status, strings.TrimSuffix(detail, "."))
	}
	if errors.Is(err, syscall.ECONNREFUSED) {
		// The hint ends the sentence with its own punctuation.
		hint := "is the server running?"
		if p.Name == "ollama" {
			hint = "start it with `ollama serve` or set OLLAMA_HOST."
		}
		return fmt.Sprintf("cannot connect to %s at %s: connection refused; %s", p.Name, Endpoint(p), hint)
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return fmt.Sprintf("cannot resolve the host of %s (%s): %v.", Endpoint(p), p.Name, dnsErr)
	}
	var netErr net.Error
	if errors.As(err, &netErr) && netErr.Timeout() {
		return fmt.Sprintf("%s at %s did not answer in time: %v.", p.Name, Endpoint(p), err)
	}
	return fmt.Sprintf("%s request failed: %s.", p.Name, strings.TrimSuffix(PlainMessage(err.Error()), "."))
}

// keyInvalid reports Gemini's answer to a wrong key: HTTP 400, not 401,
// with "API key not valid" (reason API_KEY_INVALID), as its OpenAI-compatible
// endpoint answers (https://ai.google.dev/gemini-api/docs/troubleshooting,
// "400 INVALID_ARGUMENT"; agent/llmtest's Gemini profile gives the same).
func keyInvalid(status int, detail string) bool {
	return status == http.StatusBadRequest && strings.Contains(detail, "API key not valid")
}
