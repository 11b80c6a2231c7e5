package agent_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/agent/provider"
)

// Bodies as the providers send them; the sources are cited in
// agent/provider/errors.go.

// geminiNotFound is Gemini's OpenAI-compatible endpoint on a retired
// model: Google's error wrapped in an array.
const geminiNotFound = `[{
  "error": {
    "code": 404,
    "message": "models/gemini-2.0-flash is not found for API version v1main, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.",
    "status": "NOT_FOUND"
  }
}
]`

// geminiPerMinute is a free-tier per-minute 429: retryable after
// RetryInfo's delay (%s), with no Retry-After header.
const geminiPerMinute = `[{
  "error": {
    "code": 429,
    "message": "You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits. To monitor your current usage, head to: https://ai.dev/rate-limit. \n* Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 10, model: gemini-3.5-flash\nPlease retry in %[1]s.",
    "status": "RESOURCE_EXHAUSTED",
    "details": [
      {"@type": "type.googleapis.com/google.rpc.Help", "links": [{"description": "Learn more about Gemini API quotas", "url": "https://ai.google.dev/gemini-api/docs/rate-limits"}]},
      {"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": [{"quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests", "quotaId": "GenerateRequestsPerMinutePerProjectPerModel-FreeTier", "quotaDimensions": {"location": "global", "model": "gemini-3.5-flash"}, "quotaValue": "10"}]},
      {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "%[1]s"}
    ]
  }
}
]`

// geminiPerDay is a free-tier per-day 429. It carries a short RetryInfo
// too; waiting it out would only earn another 429.
const geminiPerDay = `[{
  "error": {
    "code": 429,
    "message": "You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits. \n* Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 250, model: gemini-3.5-flash\nPlease retry in 1s.",
    "status": "RESOURCE_EXHAUSTED",
    "details": [
      {"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": [{"quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests", "quotaId": "GenerateRequestsPerDayPerProjectPerModel-FreeTier", "quotaDimensions": {"location": "global", "model": "gemini-3.5-flash"}, "quotaValue": "250"}]},
      {"@type": "type.googleapis.com/google.rpc.Help", "links": [{"description": "Learn more about Gemini API quotas", "url": "https://ai.google.dev/gemini-api/docs/rate-limits"}]},
      {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "1s"}
    ]
  }
}
]`

// withURL points the fixture's provider at its server (newFixture builds
// the provider before the server is known to the modifier).
func withURL(t *testing.T, p provider.Provider, mod func(*agent.Config)) *fixture {
	t.Helper()
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	p.BaseURL = srv.URL
	f := newFixture(t, func(c *agent.Config) {
		c.Provider = p
		if mod != nil {
			mod(c)
		}
	})
	f.srv.Close()
	f.srv = srv
	return f
}

// waits records the waits the retry path asks for, instead of sleeping:
// the tests assert on what was asked, never on how long a run took.
type waits struct {
	mu sync.Mutex
	d  []time.Duration
}

// install makes c's retries record into w and return at once.
func (w *waits) install(c *agent.Config) {
	c.Retry.Sleep = func(ctx context.Context, d time.Duration) error {
		w.mu.Lock()
		w.d = append(w.d, d)
		w.mu.Unlock()
		return ctx.Err()
	}
}

func (w *waits) list() []time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]time.Duration(nil), w.d...)
}

func jsonHeader() map[string]string { return map[string]string{"Content-Type": "application/json"} }

func assertPlain(t *testing.T, msg string) {
	t.Helper()
	for _, raw := range []string{`{"`, `[{`, `"error"`, `\n`, "<html"} {
		if strings.Contains(msg, raw) {
			t.Errorf("message has %q, a piece of a raw body: %s", raw, msg)
		}
	}
}

func TestRetiredGeminiModelNamesCurrentOnes(t *testing.T) {
	var w waits
	f := withURL(t, provider.Provider{Name: "gemini", APIKey: "k", Model: "gemini-2.0-flash", KeyEnv: "GEMINI_API_KEY"}, w.install)
	f.srv.SetModels("models/gemini-3.5-flash", "models/gemini-flash-latest", "models/gemini-3.5-pro", "models/text-embedding-004", "models/imagen-4.0-generate-001")
	f.srv.Script(llmtest.Reply{Status: http.StatusNotFound, Raw: geminiNotFound, Header: jsonHeader()})

	fl := failed(t, run(t, context.Background(), f.ag, "hi", nil))
	t.Log(fl.Message)
	if got := w.list(); len(got) != 0 {
		t.Errorf("co waited %v before failing; a missing model is reported at once", got)
	}
	for _, want := range []string{`"gemini-2.0-flash"`, "HTTP 404", "gemini-3.5-flash", "gemini-flash-latest", "GEMINI_MODEL", "/model NAME"} {
		if !strings.Contains(fl.Message, want) {
			t.Errorf("message lacks %q: %s", want, fl.Message)
		}
	}
	for _, not := range []string{"text-embedding", "imagen", "models/gemini-3.5"} {
		if strings.Contains(fl.Message, not) {
			t.Errorf("message has %q: %s", not, fl.Message)
		}
	}
	assertPlain(t, fl.Message)
	if n := len(f.srv.Requests()); n != 1 {
		t.Errorf("%d chat requests; a missing model is not retried", n)
	}
}

func TestDeepSeekModelNotExist(t *testing.T) {
	// DeepSeek answers an unknown model with 400, not 404.
	f := withURL(t, provider.Provider{Name: "openai", APIKey: "k", Model: "deepseek-r1", KeyEnv: "OPENAI_API_KEY"}, nil)
	f.srv.SetModels("deepseek-flash", "deepseek-v4-pro")
	f.srv.Script(llmtest.Reply{Status: http.StatusBadRequest, Raw: `{"error":{"message":"Model Not Exist","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}`, Header: jsonHeader()})

	fl := failed(t, run(t, context.Background(), f.ag, "hi", nil))
	t.Log(fl.Message)
	for _, want := range []string{`"deepseek-r1"`, "Model Not Exist", "deepseek-flash", "deepseek-v4-pro", "OPENAI_MODEL", "/model NAME"} {
		if !strings.Contains(fl.Message, want) {
			t.Errorf("message lacks %q: %s", want, fl.Message)
		}
	}
	assertPlain(t, fl.Message)
}

func TestBadRequestIsNotAMissingModel(t *testing.T) {
	f := withURL(t, provider.Provider{Name: "openai", APIKey: "k", Model: "m", KeyEnv: "OPENAI_API_KEY"}, nil)
	f.srv.Script(llmtest.Reply{Status: http.StatusBadRequest, ErrorMessage: "messages: too many tools"})
	fl := failed(t, run(t, context.Background(), f.ag, "hi", nil))
	t.Log(fl.Message)
	if strings.Contains(fl.Message, "has no model") || !strings.Contains(fl.Message, "too many tools") {
		t.Errorf("message: %s", fl.Message)
	}
}

func TestOllamaMissingModelSuggestsPull(t *testing.T) {
	var tags atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		// Ollama's OpenAI-compatible endpoint (netease-youdao/QAnything#555 (2024-10-23)).
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"error":{"message":"model \"llama9\" not found, try pulling it first","type":"api_error","param":null,"code":null}}`)
	})
	// co talks to Ollama natively: /api/show and /api/chat answer 404
	// with {"error":"model 'X' not found"} (CrestApps/CrestApps.Core#142 (2026-08-27)).
	native := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"error":"model 'llama9' not found"}`)
	}
	mux.HandleFunc("/api/chat", native)
	mux.HandleFunc("/api/show", native)
	mux.HandleFunc("/api/tags", func(w http.ResponseWriter, r *http.Request) {
		tags.Add(1)
		fmt.Fprint(w, `{"models":[{"name":"qwen3:8b","model":"qwen3:8b"},{"name":"nomic-embed-text:latest","model":"nomic-embed-text:latest"}]}`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	f := newFixture(t, func(c *agent.Config) {
		c.Provider = provider.Provider{Name: "ollama", BaseURL: srv.URL + "/v1", APIKey: "ollama", Model: "llama9"}
	})
	if n := tags.Load(); n != 0 {
		t.Fatalf("the model list was fetched %d times before any failure", n)
	}
	fl := failed(t, run(t, context.Background(), f.ag, "hi", nil))
	t.Log(fl.Message)
	for _, want := range []string{`"llama9"`, "model 'llama9' not found", "`ollama pull llama9`", "qwen3:8b", "OLLAMA_MODEL", "/model NAME"} {
		if !strings.Contains(fl.Message, want) {
			t.Errorf("message lacks %q: %s", want, fl.Message)
		}
	}
	if strings.Contains(fl.Message, "nomic-embed") {
		t.Errorf("an embedding model is offered: %s", fl.Message)
	}
	assertPlain(t, fl.Message)
	if n := tags.Load(); n != 1 {
		t.Errorf("the model list was fetched %d times; want once, after the failure", n)
	}
}

func TestMissingModelWhenListingFails(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"error":{"message":"The model 'gpt-9' does not exist","type":"invalid_request_error","param":"model","code":"model_not_found"}}`)
	})
	mux.HandleFunc("/v1/models", func(w http.ResponseWriter, r *http.Request) {
		select { // longer than co waits for the list
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	f := newFixture(t, func(c *agent.Config) {
		c.Provider = provider.Provider{Name: "openai", BaseURL: srv.URL + "/v1", APIKey: "k", Model: "gpt-9", KeyEnv: "OPENAI_API_KEY"}
	})
	// The listing hangs (5 s) and co gives up on it after listTimeout:
	// "did not come within 1s" says it did, with no clock read here.
	fl := failed(t, run(t, context.Background(), f.ag, "hi", nil))
	t.Log(fl.Message)
	for _, want := range []string{`"gpt-9"`, "does not exist", "did not come within 1s", "To use another model, set OPENAI_MODEL"} {
		if !strings.Contains(fl.Message, want) {
			t.Errorf("message lacks %q: %s", want, fl.Message)
		}
	}
	assertPlain(t, fl.Message)
}

func TestErrorBodiesBecomePlainSentences(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		body   string
		want   string
	}{
		{"Google array", 400, `[{"error":{"code":400,"message":"Invalid JSON payload received.\nUnknown name \"foo\": Cannot find field.","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[{"description":"Invalid JSON payload received. Unknown name \"foo\""}]}]}}]`, `Invalid JSON payload received. Unknown name "foo": Cannot find field`},
		{"OpenAI object", 401, `{"error":{"message":"Incorrect API key provided: sk-abc. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`, "Incorrect API key provided"},
		{"Google error inside a message", 400, `{"error":{"message":"{\n  \"error\": {\n    \"code\": 400,\n    \"message\": \"API key not valid. Please pass a valid API key.\",\n    \"status\": \"INVALID_ARGUMENT\"\n  }\n}\n","code":400,"status":"Bad Request"}}`, "API key not valid. Please pass a valid API key"},
		{"Ollama string", 400, `{"error":"invalid model name"}`, "invalid model name"},
		{"HTML from a proxy", 502, `<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center></body></html>`, "HTTP 502: 502 Bad Gateway)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := withURL(t, provider.Provider{Name: "openai", APIKey: "k", Model: "m", KeyEnv: "OPENAI_API_KEY"}, nil)
			for range 4 { // a 5xx is retried
				f.srv.Script(llmtest.Reply{Status: tc.status, Raw: tc.body, Header: jsonHeader()})
			}
			fl := failed(t, run(t, context.Background(), f.ag, "hi", nil))
			t.Log(fl.Message)
			if !strings.Contains(fl.Message, tc.want) {
				t.Errorf("message lacks %q: %s", tc.want, fl.Message)
			}
			if tc.status != 502 {
				assertPlain(t, fl.Message)
			} else if strings.Contains(fl.Message, "<") || strings.Contains(fl.Message, "malformed") {
				t.Errorf("an HTML error page is dumped or called a malformed chunk: %s", fl.Message)
			}
		})
	}
}

func TestGeminiRetryDelayIsHonoured(t *testing.T) {
	for _, delay := range []time.Duration{1500 * time.Millisecond, 1 * time.Second} {
		t.Run(delay.String(), func(t *testing.T) {
			var w waits
			f := withURL(t, provider.Provider{Name: "gemini", APIKey: "k", Model: "gemini-3.5-flash", KeyEnv: "GEMINI_API_KEY"}, w.install)
			proto := fmt.Sprintf("%gs", delay.Seconds())
			f.srv.Script(
				llmtest.Reply{Status: http.StatusTooManyRequests, Raw: fmt.Sprintf(geminiPerMinute, proto), Header: jsonHeader()},
				llmtest.Reply{Text: "ok"},
			)
			evs := run(t, context.Background(), f.ag, "hi", nil)
			if fin := finished(t, evs); fin.Text != "ok" {
				t.Fatalf("answer %q", fin.Text)
			}
			if got := w.list(); len(got) != 1 || got[0] != delay {
				t.Errorf("the retry path asked to wait %v; RetryInfo asked for [%v]", got, delay)
			}
			if n := len(f.srv.Requests()); n != 2 {
				t.Errorf("%d requests; want the 429, then one retry", n)
			}
			notice := ""
			for _, ev := range evs {
				if n, ok := ev.(agent.Notice); ok {
					notice += n.Text
				}
			}
			if !strings.Contains(notice, "retrying in "+delay.String()) {
				t.Errorf("notice %q does not say the wait", notice)
			}
		})
	}
}

func TestGeminiDailyQuotaIsNotRetried(t *testing.T) {
	var w waits
	f := withURL(t, provider.Provider{Name: "gemini", APIKey: "k", Model: "gemini-flash-latest", KeyEnv: "GEMINI_API_KEY"}, w.install)
	f.srv.Script(
		llmtest.Reply{Status: http.StatusTooManyRequests, Raw: geminiPerDay, Header: jsonHeader()},
		llmtest.Reply{Text: "a retry got through"},
	)
	fl := failed(t, run(t, context.Background(), f.ag, "hi", nil))
	t.Log(fl.Message)
	// Any retry happens inside the turn, so by now it would be recorded.
	if got := w.list(); len(got) != 0 {
		t.Errorf("co asked to wait %v; a daily quota is reported at once", got)
	}
	if n := len(f.srv.Requests()); n != 1 {
		t.Errorf("%d requests reached the server; a daily quota is not retried", n)
	}
	for _, want := range []string{"daily request quota", "GenerateRequestsPerDayPerProjectPerModel-FreeTier", "gemini-3.5-flash", "midnight Pacific", "GEMINI_MODEL", "/model NAME", "billing"} {
		if !strings.Contains(fl.Message, want) {
			t.Errorf("message lacks %q: %s", want, fl.Message)
		}
	}
	assertPlain(t, fl.Message)
}

func TestOpenAIInsufficientQuotaIsNotRetried(t *testing.T) {
	var w waits
	f := withURL(t, provider.Provider{Name: "openai", APIKey: "k", Model: "gpt-5", KeyEnv: "OPENAI_API_KEY"}, w.install)
	f.srv.Script(
		llmtest.Reply{Status: http.StatusTooManyRequests, Raw: `{"error":{"message":"You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`, Header: jsonHeader()},
		llmtest.Reply{Text: "a retry got through"},
	)
	fl := failed(t, run(t, context.Background(), f.ag, "hi", nil))
	t.Log(fl.Message)
	if got := w.list(); len(got) != 0 {
		t.Errorf("co asked to wait %v; an exhausted quota is not retried", got)
	}
	if n := len(f.srv.Requests()); n != 1 {
		t.Errorf("%d requests reached the server; an exhausted quota is not retried", n)
	}
	for _, want := range []string{"quota is used up", "billing", "check your plan"} {
		if !strings.Contains(fl.Message, want) {
			t.Errorf("message lacks %q: %s", want, fl.Message)
		}
	}
}

func TestLongRetryDelayIsReported(t *testing.T) {
	var w waits
	f := withURL(t, provider.Provider{Name: "gemini", APIKey: "k", Model: "gemini-3.5-flash", KeyEnv: "GEMINI_API_KEY"}, func(c *agent.Config) {
		c.Retry.MaxWait = 200 * time.Millisecond
		w.install(c)
	})
	f.srv.Script(llmtest.Reply{Status: http.StatusTooManyRequests, Raw: fmt.Sprintf(geminiPerMinute, "38.922534355s"), Header: jsonHeader()})
	fl := failed(t, run(t, context.Background(), f.ag, "hi", nil))
	t.Log(fl.Message)
	if got := w.list(); len(got) != 0 {
		t.Errorf("co asked to wait %v for a delay longer than MaxWait", got)
	}
	for _, want := range []string{"HTTP 429", "asks to wait 39s", "You exceeded your current quota"} {
		if !strings.Contains(fl.Message, want) {
			t.Errorf("message lacks %q: %s", want, fl.Message)
		}
	}
	assertPlain(t, fl.Message)
}

// The same behaviours against llmtest's imitations of the providers
// (agent/llmtest profiles), which answer as Google and DeepSeek do.

func TestProfileGeminiRetiredModel(t *testing.T) {
	var w waits
	f := profileFixture(t, llmtest.ProfileGemini, "gemini-2.0-flash", w.install)
	fl := failed(t, run(t, context.Background(), f.ag, "hi", nil))
	t.Log(fl.Message)
	if got := w.list(); len(got) != 0 {
		t.Errorf("co waited %v before failing; a retired model is reported at once", got)
	}
	for _, want := range []string{`"gemini-2.0-flash"`, "no longer available", "gemini-3.5-flash", "GEMINI_MODEL", "/model NAME"} {
		if !strings.Contains(fl.Message, want) {
			t.Errorf("message lacks %q: %s", want, fl.Message)
		}
	}
	for _, not := range []string{"embedding", "imagen", "tts", "aqa"} {
		if strings.Contains(fl.Message, not) {
			t.Errorf("message offers a model that cannot chat (%s): %s", not, fl.Message)
		}
	}
	assertPlain(t, fl.Message)
}

func TestProfileGeminiQuota(t *testing.T) {
	t.Run("per minute waits RetryInfo's delay", func(t *testing.T) {
		var w waits
		f := profileFixture(t, llmtest.ProfileGemini, "gemini-flash-latest", w.install)
		f.srv.Script(llmtest.Reply{RetryDelay: time.Second}, llmtest.Reply{Text: "ok"})
		finished(t, run(t, context.Background(), f.ag, "hi", nil))
		if got := w.list(); len(got) != 1 || got[0] != time.Second {
			t.Errorf("the retry path asked to wait %v; RetryInfo said [1s]", got)
		}
	})
	t.Run("per day fails at once", func(t *testing.T) {
		var w waits
		f := profileFixture(t, llmtest.ProfileGemini, "gemini-flash-latest", w.install)
		f.srv.Script(llmtest.Reply{DailyQuota: true}, llmtest.Reply{Text: "a retry got through"})
		fl := failed(t, run(t, context.Background(), f.ag, "hi", nil))
		t.Log(fl.Message)
		if got := w.list(); len(got) != 0 {
			t.Errorf("co asked to wait %v; a daily quota is not retried", got)
		}
		if n := len(f.srv.Requests()); n != 1 {
			t.Errorf("%d requests; a daily quota is not retried", n)
		}
		for _, want := range []string{"daily request quota", "midnight Pacific", "gemini-3-flash-preview", "GEMINI_MODEL"} {
			if !strings.Contains(fl.Message, want) {
				t.Errorf("message lacks %q: %s", want, fl.Message)
			}
		}
		assertPlain(t, fl.Message)
	})
}

func TestProfileDeepSeekModelNotExist(t *testing.T) {
	f := profileFixture(t, llmtest.ProfileDeepSeek, "deepseek-r1", nil)
	fl := failed(t, run(t, context.Background(), f.ag, "hi", nil))
	t.Log(fl.Message)
	for _, want := range []string{`"deepseek-r1"`, "Model Not Exist", "deepseek-flash", "OPENAI_MODEL"} {
		if !strings.Contains(fl.Message, want) {
			t.Errorf("message lacks %q: %s", want, fl.Message)
		}
	}
	assertPlain(t, fl.Message)
}

// Gemini answers a wrong key with HTTP 400 "API key not valid" (not 401):
// the message names the three fixes, GEMINI_API_KEY, co config set
// gemini_api_key and /setup.
func TestGeminiBadKeyNamesTheFix(t *testing.T) {
	f := withURL(t, provider.Provider{Name: "gemini", APIKey: "AIzaSy-wrong", Model: "gemini-3.5-flash", KeyEnv: "GEMINI_API_KEY"}, nil)
	f.srv.SetProfile(llmtest.ProfileGemini)
	f.srv.SetAPIKey("AIzaSy-right")
	fl := failed(t, run(t, context.Background(), f.ag, "hi", nil))
	t.Log(fl.Message)
	for _, want := range []string{"API key not valid", "set a valid GEMINI_API_KEY", "co config set gemini_api_key", "/setup"} {
		if !strings.Contains(fl.Message, want) {
			t.Errorf("message lacks %q: %s", want, fl.Message)
		}
	}
}
