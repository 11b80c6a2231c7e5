package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// errorBody is a provider's error, in either shape providers send it:
// OpenAI's {"error":{"message","type","code"}} or Google's
// {"error":{"code","message","status","details"}}, which Gemini's
// OpenAI-compatible endpoint wraps in an array, [{"error":{…}}]
// (n4ze3m/page-assist#406).
type errorBody struct {
	Message string          `json:"message"`
	Type    string          `json:"type"`
	Status  string          `json:"status"`
	Code    json.RawMessage `json:"code"` // a number (Google) or a string (OpenAI)
	// llama.cpp's exceed_context_size_error carries the prompt's tokens and
	// the slot's window (window.go).
	NPromptTokens int `json:"n_prompt_tokens"`
	NCtx          int `json:"n_ctx"`
	Details       []struct {
		Type string `json:"@type"`
		// google.rpc.RetryInfo: a protobuf Duration such as "38s" or
		// "45.837906927s" (docs/providers.md, Gemini).
		RetryDelay string `json:"retryDelay"`
		// google.rpc.QuotaFailure.
		Violations []struct {
			QuotaMetric     string          `json:"quotaMetric"`
			QuotaID         string          `json:"quotaId"`
			QuotaDimensions json.RawMessage `json:"quotaDimensions"`
		} `json:"violations"`
		// google.rpc.ErrorInfo (quota_limit names the limit on some
		// Google services: google-gemini/gemini-cli#10925).
		Metadata map[string]string `json:"metadata"`
	} `json:"details"`
}

// parseErrorBody reads body in either shape; ok is false when it is
// neither.
func parseErrorBody(body []byte) (e errorBody, ok bool) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return e, false
	}
	if body[0] == '[' {
		var arr []struct {
			Error *errorBody `json:"error"`
		}
		if json.Unmarshal(body, &arr) != nil || len(arr) == 0 || arr[0].Error == nil {
			return e, false
		}
		return *arr[0].Error, true
	}
	var one struct {
		Error *errorBody `json:"error"`
	}
	if json.Unmarshal(body, &one) != nil || one.Error == nil {
		return e, false
	}
	return *one.Error, true
}

// code is the error's code as text ("" when it has none).
func (e errorBody) code() string {
	var s string
	if json.Unmarshal(e.Code, &s) == nil {
		return s
	}
	return strings.Trim(string(e.Code), `"`)
}

// retryDelay is the wait google.rpc.RetryInfo asks for. Gemini sends it in
// the body of a 429 and no Retry-After header:
// {"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"38s"}
// (docs/providers.md, Gemini).
func (e errorBody) retryDelay() (time.Duration, bool) {
	for _, d := range e.Details {
		if !strings.HasSuffix(d.Type, "google.rpc.RetryInfo") || d.RetryDelay == "" {
			continue
		}
		if w, ok := parseProtoDuration(d.RetryDelay); ok {
			return w, true
		}
	}
	return 0, false
}

// parseProtoDuration reads a protobuf Duration in its JSON form: decimal
// seconds with an "s" suffix, up to nine fractional digits
// (https://protobuf.dev/reference/protobuf/google.protobuf/#duration).
func parseProtoDuration(s string) (time.Duration, bool) {
	s = strings.TrimSpace(s)
	if !strings.HasSuffix(s, "s") {
		return 0, false
	}
	f, err := strconv.ParseFloat(strings.TrimSuffix(s, "s"), 64)
	if err != nil || f < 0 || f != f || f > 315_576_000_000 {
		return 0, false
	}
	return time.Duration(f * float64(time.Second)), true
}

// QuotaError is a 429 that waiting a minute will not cure: a daily quota
// used up, or (OpenAI) no credit left. retryTransport returns it instead
// of the response so that it is neither retried nor reported as a passing
// rate limit.
type QuotaError struct {
	Daily   bool   // a per-day quota; otherwise billing
	QuotaID string // e.g. GenerateRequestsPerDayPerProjectPerModel-FreeTier
	Metric  string // e.g. generativelanguage.googleapis.com/generate_content_free_tier_requests
	Model   string // the model the quota is for, when the body says
	Message string // the provider's own message, plain
}

func (e *QuotaError) Error() string {
	if e.Daily {
		return "daily quota exhausted: " + e.Message
	}
	return "quota exhausted: " + e.Message
}

// quotaExhausted reports a 429 body that must not be retried: Google's
// per-day quota (a QuotaFailure violation whose quotaId names PerDay, such
// as GenerateRequestsPerDayPerProjectPerModel-FreeTier), which resets at
// midnight Pacific, and OpenAI's type insufficient_quota (no credit left;
// its message is also the first sentence of Gemini's per-minute 429, so
// only the type is trusted). Per-minute violations stay retryable.
// Sources: docs/providers.md, Gemini and OpenAI.
func (e errorBody) quotaExhausted() *QuotaError {
	q := &QuotaError{Message: PlainMessage(e.Message)}
	for _, d := range e.Details {
		for _, v := range d.Violations {
			if strings.Contains(strings.ToLower(v.QuotaID), "perday") {
				q.Daily, q.QuotaID, q.Metric = true, v.QuotaID, v.QuotaMetric
				var dims map[string]string
				if json.Unmarshal(v.QuotaDimensions, &dims) == nil {
					q.Model = dims["model"]
				}
				return q
			}
		}
		if l := d.Metadata["quota_limit"]; strings.Contains(strings.ToLower(l), "perday") {
			q.Daily, q.QuotaID, q.Metric = true, l, d.Metadata["quota_metric"]
			return q
		}
	}
	if e.Type == "insufficient_quota" || e.code() == "insufficient_quota" {
		return q
	}
	return nil
}

// peekBody reads up to limit bytes of resp's body and puts them back, so
// the response can still be returned whole.
func peekBody(resp *http.Response, limit int64) []byte {
	if resp.Body == nil || resp.Body == http.NoBody {
		return nil
	}
	head, _ := io.ReadAll(io.LimitReader(resp.Body, limit))
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(head), resp.Body), resp.Body}
	return head
}

// ModelSetting says how to choose another model for p: the variable, the
// setting and the chat command.
func ModelSetting(p Provider) string { return modelSetting(p) }

// DescribeError says in a sentence or two what went wrong talking to p and
// what to do.
func DescribeError(p Provider, err error) string { return describeError(p, err) }

// modelSetting says how to choose another model for p.
func modelSetting(p Provider) string {
	switch p.Name {
	case "gemini":
		return "set GEMINI_MODEL or gemini_model in the settings file, or type /model NAME in the chat"
	case "ollama":
		return "set OLLAMA_MODEL or ollama_model in the settings file, or type /model NAME in the chat"
	default:
		return "set OPENAI_MODEL or openai_model in the settings file, or type /model NAME in the chat"
	}
}

// describeQuota is the message for a QuotaError.
func describeQuota(p Provider, q *QuotaError, now time.Time) string {
	if !q.Daily {
		return fmt.Sprintf("%s refused the request: the account's quota is used up (HTTP 429: %s). Retrying will not help; add credit or raise the limit in the provider's billing settings, or use another provider.", p.Name, strings.TrimSuffix(q.Message, "."))
	}
	model := q.Model
	if model == "" {
		model = p.Model
	}
	what := "the daily request quota"
	if strings.Contains(strings.ToLower(q.QuotaID+q.Metric), "token") {
		what = "the daily token quota"
	}
	if q.QuotaID != "" {
		what += " (" + q.QuotaID + ")"
	}
	when := "It resets at midnight Pacific time"
	if reset, ok := pacificMidnight(now); ok {
		when += fmt.Sprintf(", in %s (%s your time)", roundWait(reset.Sub(now)), reset.Local().Format("15:04"))
	}
	return fmt.Sprintf("%s: %s for %s is used up, so co did not retry. %s. Until then, to use a model with quota left, %s; or enable billing on the Google Cloud project for higher limits (https://ai.google.dev/gemini-api/docs/rate-limits).",
		p.Name, what, model, when, modelSetting(p))
}

// pacificMidnight is the next midnight in America/Los_Angeles, when
// Google resets daily quotas; ok is false without the time zone database.
func pacificMidnight(now time.Time) (time.Time, bool) {
	loc, err := time.LoadLocation("America/Los_Angeles")
	if err != nil {
		return time.Time{}, false
	}
	t := now.In(loc)
	return time.Date(t.Year(), t.Month(), t.Day()+1, 0, 0, 0, 0, loc), true
}

// roundWait renders d as hours and minutes ("7h12m", "45m").
func roundWait(d time.Duration) string {
	d = d.Round(time.Minute)
	if d < time.Hour {
		return fmt.Sprintf("%dm", int(d.Minutes()))
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

// listTimeout bounds the model listing after a "model not found": the
// whole failure must reach the user in well under two seconds.
const listTimeout = time.Second

// modelMissing reports whether an HTTP error means the model does not
// exist. Most providers answer 404: OpenAI with code model_not_found,
// Gemini "models/X is not found for API version v1main", Ollama `model "X"
// not found, try pulling it first`. DeepSeek answers 400 "Model Not Exist"
// (docs/providers.md, each provider).
func modelMissing(status int, code, detail string) bool {
	if status == http.StatusNotFound {
		return true
	}
	if status != http.StatusBadRequest {
		return false
	}
	l := strings.ToLower(detail)
	return code == "model_not_found" || strings.Contains(l, "model not exist") ||
		strings.Contains(l, "model") && (strings.Contains(l, "not found") || strings.Contains(l, "does not exist") || strings.Contains(l, "not exist"))
}

// describeMissingModel is the message for a model the provider does not
// have. It lists the provider's current chat models, fetched now (never
// on the start-up path) within listTimeout.
func describeMissingModel(p Provider, status int, detail string) string {
	var b strings.Builder
	if p.Name == "ollama" {
		fmt.Fprintf(&b, "Ollama at %s has no model %q (HTTP %d: %s).", OllamaRoot(p.BaseURL), p.Model, status, detail)
	} else {
		fmt.Fprintf(&b, "%s has no model %q at %s (HTTP %d: %s).", p.Name, p.Model, p.BaseURL, status, detail)
	}
	ctx, cancel := context.WithTimeout(context.Background(), listTimeout)
	models, err := ListModels(ctx, p, nil)
	cancel()
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		fmt.Fprintf(&b, " Its model list did not come within %s either; check the address.", listTimeout)
	case err != nil:
		fmt.Fprintf(&b, " Listing its models failed too (%s); check the address.", strings.TrimSuffix(PlainMessage(err.Error()), "."))
	case len(models) == 0 && p.Name == "ollama":
		b.WriteString(" Ollama has no models pulled yet.")
	case len(models) == 0:
		b.WriteString(" Its model list is empty.")
	default:
		const show = 8
		near := nearest(models, p.Model, show)
		what := "Models it offers now"
		if p.Name == "ollama" {
			what = "Models pulled"
		}
		fmt.Fprintf(&b, " %s: %s", what, strings.Join(near, ", "))
		if len(models) > len(near) {
			fmt.Fprintf(&b, " and %d more (`co models` lists them all)", len(models)-len(near))
		}
		b.WriteString(".")
	}
	if p.Name == "ollama" {
		fmt.Fprintf(&b, " Pull it with `ollama pull %s`, or %s.", p.Model, modelSetting(p))
	} else if err == nil && len(models) > 0 {
		fmt.Fprintf(&b, " To use one, %s.", modelSetting(p))
	} else {
		fmt.Fprintf(&b, " To use another model, %s.", modelSetting(p))
	}
	return b.String()
}

// nearest picks up to n of models, those most like want first: most name
// parts in common ("gemini", "flash"), then the longest common prefix.
func nearest(models []string, want string, n int) []string {
	split := func(s string) []string {
		return strings.FieldsFunc(strings.ToLower(strings.TrimPrefix(s, "models/")), func(r rune) bool {
			return r == '-' || r == '.' || r == ':' || r == '/' || r == '_'
		})
	}
	parts := map[string]bool{}
	for _, w := range split(want) {
		parts[w] = true
	}
	score := func(m string) int {
		s := 0
		for _, w := range split(m) {
			if parts[w] {
				s += 100
			}
		}
		for i := 0; i < len(m) && i < len(want) && m[i] == want[i]; i++ {
			s++
		}
		return s
	}
	out := append([]string(nil), models...)
	sort.SliceStable(out, func(i, j int) bool { return score(out[i]) > score(out[j]) })
	if len(out) > n {
		out = out[:n]
	}
	return out
}

// wrongAddress reports whether an HTTP 404 means co's address for p points
// at no API (a base URL without its /v1, a typo in the path) rather than a
// missing model. Providers that lack the model answer their own error JSON
// naming it (OpenAI code model_not_found, "The model 'x' does not exist";
// Gemini "models/x is not found"; Ollama `model "x" not found`). A 404
// whose body is not such JSON (a web server's "404 page not found", an
// HTML page), or that names no model ({"detail":"Not Found"}), is a wrong
// address. jsonErr says the body was the provider's error JSON.
func wrongAddress(p Provider, status int, jsonErr bool, code, detail string) bool {
	if status != http.StatusNotFound {
		return false
	}
	return !jsonErr || !namesModel(p, code, detail)
}

// namesModel reports whether an error names a model (p's or any).
func namesModel(p Provider, code, detail string) bool {
	l := strings.ToLower(detail)
	m := strings.ToLower(strings.TrimPrefix(p.Model, "models/"))
	return code == "model_not_found" || strings.Contains(l, "model") || (m != "" && strings.Contains(l, m))
}

// isProviderErrorJSON reports whether body is an error in a shape
// providers send: errorBody's, or Ollama's {"error":"…"}.
func isProviderErrorJSON(body []byte) bool {
	if _, ok := parseErrorBody(body); ok {
		return true
	}
	_, ok := ollamaError(body)
	return ok
}

// addressSetting names the setting that holds p's address and what it
// should look like.
func addressSetting(p Provider) string {
	switch p.Name {
	case "gemini":
		return "check GEMINI_BASE_URL (gemini_base_url; the default is https://generativelanguage.googleapis.com/v1beta/openai/)"
	case "ollama":
		return "check OLLAMA_HOST (ollama_host: the host and port only, e.g. http://localhost:11434)"
	default:
		return "check OPENAI_BASE_URL (openai_base_url), does it end in /v1?"
	}
}

// describeWrongAddress is the message for a 404 at url that is not a
// missing model: nothing answers there as the API.
func describeWrongAddress(p Provider, url, detail string) string {
	detail = strings.TrimSpace(detail)
	if detail == "" || strings.EqualFold(detail, http.StatusText(http.StatusNotFound)) || strings.HasPrefix(detail, "{") || strings.HasPrefix(detail, "[") || len(detail) > 200 {
		// Nothing worth quoting: a bare "Not Found", another server's JSON.
		return fmt.Sprintf("HTTP 404 at %s: no %s API there; %s", url, p.Name, addressSetting(p))
	}
	return fmt.Sprintf("HTTP 404 at %s (%s): no %s API there; %s", url, strings.TrimSuffix(detail, "."), p.Name, addressSetting(p))
}

// chatURL is where co sends p's chat requests.
func chatURL(p Provider) string {
	if p.Name == "ollama" {
		return OllamaRoot(p.BaseURL) + "/api/chat"
	}
	return strings.TrimRight(p.BaseURL, "/") + "/chat/completions"
}

// modelsURL is where co lists p's models.
func modelsURL(p Provider) string {
	if p.Name == "ollama" {
		return OllamaRoot(p.BaseURL) + "/api/tags"
	}
	return strings.TrimRight(p.BaseURL, "/") + "/models"
}

// ToolsRefused reports whether err is a provider's 400 saying the model
// does not support tools (Ollama's words on either route; agent/toolless.go).
func ToolsRefused(err error) bool {
	status, msg := statusMessage(err)
	return status == 400 && strings.Contains(strings.ToLower(msg), "does not support tools")
}

// jinjaRefusals are llama-server's answers (HTTP 500, type server_error)
// to a request with tools when it runs without Jinja templates: started
// with --no-jinja, or a build from before --jinja became its default
// ("tools param requires --jinja flag"), or one older still that had no
// --jinja ("Unsupported param: tools"). It checks the request's tools
// before anything else, so every request with tools gets it; asking again
// cannot help (docs/providers.md, llama.cpp).
var jinjaRefusals = []string{
	"requires --jinja flag", // tools, or tool_choice
	"unsupported param: tools",
}

// needsJinja reports whether an error message is llama-server's refusal
// of tools without --jinja.
func needsJinja(msg string) bool {
	low := strings.ToLower(msg)
	for _, r := range jinjaRefusals {
		if strings.Contains(low, r) {
			return true
		}
	}
	return false
}

// contextFull reports whether an error message is llama.cpp's "Context
// size has been exceeded.": a 500 (or an SSE error event once the stream
// has begun) of type server_error, sent when a decode finds no free cell
// of the KV cache, the slot's context full of prompt and output
// (tools/server/server-context.cpp, update_slots; LM Studio's llama.cpp
// engine answers the same: "Engine protocol predict stream returned an
// error: {code:500, message:'Context size has been exceeded.'}", as users'
// client code and bug notes record it: docs/providers.md says where).
// The same request fails the same way: a shorter one is the remedy.
func contextFull(msg string) bool {
	return strings.Contains(strings.ToLower(msg), "context size has been exceeded")
}

// ToolsNeedJinja reports whether err is llama-server's 500 refusing tools
// because it runs without --jinja, and its message.
func ToolsNeedJinja(err error) (string, bool) {
	status, msg := statusMessage(err)
	if status < 400 || !needsJinja(msg) {
		return "", false
	}
	return msg, true
}

// statusMessage is the HTTP status and the plain message of an error from
// go-openai; 0 and "" for an error without an HTTP answer.
func statusMessage(err error) (int, string) {
	var apiErr *openai.APIError
	var reqErr *openai.RequestError
	switch {
	case errors.As(err, &reqErr):
		return reqErr.HTTPStatusCode, PlainError(reqErr.Body)
	case errors.As(err, &apiErr):
		return apiErr.HTTPStatusCode, apiErr.Message
	}
	return 0, ""
}
