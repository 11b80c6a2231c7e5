package llmtest

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// geminiBase is the path of Google's OpenAI-compatible endpoint
// (https://ai.google.dev/gemini-api/docs/openai: base_url
// "https://generativelanguage.googleapis.com/v1beta/openai/").
const geminiBase = "/v1beta/openai"

// skipSignature is the placeholder Google documents for histories that
// have no signature (https://ai.google.dev/gemini-api/docs/thought-signatures,
// also used by continuedev/continue#8865).
const skipSignature = "skip_thought_signature_validator"

// geminiModels are the chat models the gemini profile serves by default,
// from Google's deprecation table (https://ai.google.dev/gemini-api/docs/deprecations:
// gemini-3.8-flash ... gemini-3-flash-preview with no shutdown date).
// gemini-3-pro-preview was shut down on March 9, 2026 (same page), and no
// gemini-3.5-pro is listed anywhere, so neither is served.
var geminiModels = []string{
	"gemini-3.8-flash",
	"gemini-3.7-flash",
	"gemini-3.6-flash",
	"gemini-3.5-flash",
	"gemini-3.5-flash-lite",
	"gemini-3.1-flash-lite",
	"gemini-3.1-pro-preview",
	"gemini-3-flash-preview",
}

// geminiOtherModels are non-chat models Google's list also returns
// (embedding, image, speech and attributed-QA models; e.g. the list in
// chatboxai/chatbox#2318 (2025-05-12) and the 404s for image models in public notes).
var geminiOtherModels = []string{
	"gemini-embedding-001",
	"imagen-4.0-generate-001",
	"gemini-2.5-flash-preview-tts",
	"aqa",
}

// defaultGeminiAliases are where the -latest aliases point. Google moved
// gemini-pro-latest to 3.1 Pro on March 6, 2026 (google-gemini/gemini-cli#20588)
// and gemini-flash-latest to gemini-3-flash-preview on January 21, 2026
// (https://ai.google.dev/gemini-api/docs/changelog); later moves are not
// documented, so set them with SetGeminiAliases.
func defaultGeminiAliases() map[string]string {
	return map[string]string{
		"gemini-flash-latest":      "gemini-3-flash-preview",
		"gemini-pro-latest":        "gemini-3.1-pro-preview",
		"gemini-flash-lite-latest": "gemini-3.1-flash-lite",
	}
}

type geminiState struct {
	aliases map[string]string
	issued  map[string]bool // thought signatures handed out
	order   []string
}

// SetGeminiAliases sets what the gemini profile's alias ids (such as
// gemini-flash-latest) resolve to; aliases are served besides the models.
func (s *Server) SetGeminiAliases(aliases map[string]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gemini.aliases = maps.Clone(aliases)
}

// ThoughtSignatures returns the thought signatures the gemini profile has
// issued, in order.
func (s *Server) ThoughtSignatures() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.gemini.order)
}

// issueSignature makes an opaque signature and remembers it.
func (s *Server) issueSignature() string {
	b := make([]byte, 48)
	_, _ = rand.Read(b)
	sig := base64.StdEncoding.EncodeToString(b)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gemini.issued == nil {
		s.gemini.issued = map[string]bool{}
	}
	s.gemini.issued[sig] = true
	s.gemini.order = append(s.gemini.order, sig)
	return sig
}

func signatureContent(sig string) json.RawMessage {
	b, _ := json.Marshal(map[string]map[string]string{"google": {"thought_signature": sig}})
	return b
}

// geminiToolCalls is the tool calls of one step as Gemini's OpenAI layer
// sends them: each whole, without index, in a chunk of its own
// (open-webui/computer#224 (2026-08-17): Gemini can "omit
// tool_calls[].index"; noho/dayu-agent#45 and its fix, PR #91
// (2026-04-27): "each tool call in a single delta, index omitted", one
// call per chunk; Reply.SameIndex gives them all index 0 instead, as
// NousResearch/hermes-agent#62937 (2026-07-12) saw), with the thought
// signature in extra_content on the
// first call only ("Parallel function calls: ... the thought_signature is
// only attached to the first functionCall part",
// https://ai.google.dev/gemini-api/docs/thought-signatures).
func geminiToolCalls(calls []ToolCall, sig string) []wireToolCall {
	out := make([]wireToolCall, 0, len(calls))
	for i, c := range calls {
		tc := wireToolCall{ID: c.ID, Type: "function", Function: wireFunction{Name: c.Name, Arguments: &c.Args}}
		if i == 0 {
			tc.ExtraContent = signatureContent(sig)
		}
		out = append(out, tc)
	}
	return out
}

// googleStatus is the google.rpc status name of an HTTP status.
func googleStatus(code int) string {
	switch code {
	case 400:
		return "INVALID_ARGUMENT"
	case 401:
		return "UNAUTHENTICATED"
	case 403:
		return "PERMISSION_DENIED"
	case 404:
		return "NOT_FOUND"
	case 429:
		return "RESOURCE_EXHAUSTED"
	case 503:
		return "UNAVAILABLE"
	case 504:
		return "DEADLINE_EXCEEDED"
	default:
		if code >= 500 {
			return "INTERNAL"
		}
		return "FAILED_PRECONDITION"
	}
}

// googleError is an error as Google's OpenAI layer sends it: an ARRAY of
// one {"error":{code,message,status[,details]}} (the bodies quoted in
// https://discuss.ai.google.dev/t/openai-api-compatibility-broken-due-to-thought-signature-on-gemini-3-pro-preview/109823
// and continuedev/continue#8516).
func googleError(code int, msg string, details ...any) *profileError {
	e := map[string]any{"code": code, "message": msg, "status": googleStatus(code)}
	if len(details) > 0 {
		e["details"] = details
	}
	return &profileError{status: code, why: msg, body: []any{map[string]any{"error": e}}}
}

// geminiAuth checks the API key. Google answers a missing or malformed
// Authorization header with 400 "Invalid Authorization header."
// (ychoi-kr/llm-api-prog#1 (2025-03-19)) and a wrong key with 400 API_KEY_INVALID
// (continuedev/continue#8516, #10530 (2026-02-15)).
func (s *Server) geminiAuth(r *http.Request) *profileError {
	key, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || strings.TrimSpace(key) == "" {
		return googleError(400, "Invalid Authorization header.")
	}
	s.mu.Lock()
	want := s.apiKey
	s.mu.Unlock()
	if want != "" && key != want {
		msg := "API key not valid. Please pass a valid API key."
		return googleError(400, msg,
			map[string]any{
				"@type":    "type.googleapis.com/google.rpc.ErrorInfo",
				"reason":   "API_KEY_INVALID",
				"domain":   "googleapis.com",
				"metadata": map[string]string{"service": "generativelanguage.googleapis.com"},
			},
			map[string]any{
				"@type":   "type.googleapis.com/google.rpc.LocalizedMessage",
				"locale":  "en-US",
				"message": msg,
			})
	}
	return nil
}

// geminiModel checks a requested model id.
func (s *Server) geminiModel(id string) *profileError {
	name := modelName(id)
	s.mu.Lock()
	_, alias := s.gemini.aliases[name]
	served := alias || slices.Contains(s.models, name)
	s.mu.Unlock()
	if served {
		return nil
	}
	for _, p := range []string{"gemini-2.0-", "gemini-2.5-", "gemini-3-pro-preview"} {
		if strings.HasPrefix(name, p) {
			// Recently shut-down models answer "no longer available"
			// (decolua/9router#1496 (2026-05-27) for gemini-3.1-flash-lite-preview;
			// the 404 body for models/gemini-2.0-flash quoted in public
			// provider tests).
			return googleError(404, fmt.Sprintf("This model models/%s is no longer available. "+
				"Please update your code to use a newer model for the latest features and improvements.", name))
		}
	}
	// Older or unknown ids: the OpenAI layer's wording (openai-agents
	// report quoted in public code: "models/gemini-pro is not found for
	// API version v1main, or is not supported for generateContent. Call
	// ModelService.ListModels ...").
	return googleError(404, fmt.Sprintf("models/%s is not found for API version v1main, or is not supported for generateContent. "+
		"Call ModelService.ListModels to see the list of available models and their supported methods.", name))
}

// geminiCheck validates a chat request as Google does.
func (s *Server) geminiCheck(r *http.Request, req Request) *profileError {
	if e := s.geminiAuth(r); e != nil {
		return e
	}
	if e := s.geminiModel(req.Body.Model); e != nil {
		return e
	}
	if e := geminiToolSchemas(req.Raw); e != nil {
		return e
	}
	return s.geminiSignatures(req)
}

// geminiRejected are JSON-Schema keywords Google's API refuses in function
// parameters: they are not fields of its Schema (a "select subset of an
// OpenAPI 3.0 schema object", Schema in the generativelanguage v1beta API
// reference), and a request carrying one fails whole with 400 `Invalid JSON
// payload received. Unknown name "K" at '...': Cannot find field.` Reported
// for $schema (zuisong/gemini-openai-proxy#67; janhq/jan#5927 (2025-07-25);
// openswarm-ai/openswarm#24, 2026-05-06, gemini-3.1-pro-preview), $defs
// (datastax/astra-assistants-api#73 (2024-09-26)), const
// (zed-industries/zed#44875 (2025-12-15)),
// propertyNames (openswarm-ai/openswarm#24), exclusiveMinimum
// (pizza-bot-app/pizza-bot#62, 2026-09-07, gemini-3.8-flash), $ref
// (genspark-ai/genoffice#186, 2026-09-03). additionalProperties is reported
// too (the same reports), but through the native API's "parameters"; co's
// own tools have always sent it through the OpenAI layer, so this profile
// leaves it accepted rather than fail every request co makes.
var geminiRejected = []string{"$schema", "$defs", "definitions", "$ref", "$id", "const", "propertyNames",
	"exclusiveMinimum", "exclusiveMaximum", "patternProperties", "unevaluatedProperties", "examples"}

// geminiToolSchemas checks the tools' parameter schemas as Google does.
func geminiToolSchemas(raw []byte) *profileError {
	var body struct {
		Tools []struct {
			Function struct {
				Parameters any `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
	}
	if json.Unmarshal(raw, &body) != nil {
		return nil
	}
	var msgs []string
	for i, t := range body.Tools {
		walkGeminiSchema(t.Function.Parameters, fmt.Sprintf("tools[0].function_declarations[%d].parameters", i), &msgs)
	}
	if len(msgs) == 0 {
		return nil
	}
	return googleError(400, strings.Join(msgs, "\n"))
}

// walkGeminiSchema collects the messages Google gives for one schema: an
// unknown keyword, or a list where it wants one "type" ("Proto field is not
// repeating, cannot start list", genspark-ai/genoffice#186 (2026-09-03),
// tumf/mcp-text-editor#11).
func walkGeminiSchema(v any, at string, msgs *[]string) {
	m, ok := v.(map[string]any)
	if !ok {
		return
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if slices.Contains(geminiRejected, k) {
			*msgs = append(*msgs, fmt.Sprintf("Invalid JSON payload received. Unknown name %q at '%s': Cannot find field.", k, at))
		}
	}
	if _, list := m["type"].([]any); list {
		*msgs = append(*msgs, fmt.Sprintf("Invalid JSON payload received. Unknown name \"type\" at '%s': Proto field is not repeating, cannot start list.", at))
	}
	if props, ok := m["properties"].(map[string]any); ok {
		names := slices.Sorted(maps.Keys(props))
		for i, name := range names {
			walkGeminiSchema(props[name], fmt.Sprintf("%s.properties[%d].value", at, i), msgs)
		}
	}
	walkGeminiSchema(m["items"], at+".items", msgs)
	for _, key := range []string{"anyOf", "oneOf", "allOf"} {
		if list, ok := m[key].([]any); ok {
			for i, sub := range list {
				walkGeminiSchema(sub, fmt.Sprintf("%s.any_of[%d]", at, i), msgs)
			}
		}
	}
}

// geminiSignatures enforces thought signatures on the current turn
// (https://ai.google.dev/gemini-api/docs/thought-signatures, "Validation":
// the API looks back for the most recent user message with standard
// content (not a function response) - the start of the current turn; every
// model functionCall turn after it is part of the turn; the first
// functionCall part in each step of the current turn must include its
// thought_signature; older turns are not validated). Through the OpenAI
// layer a step is an assistant message with tool_calls and a function
// response is a "tool" message, so the turn starts after the last "user"
// message.
func (s *Server) geminiSignatures(req Request) *profileError {
	msgs := req.Messages()
	start := lastUserIndex(msgs)
	if start < 0 {
		return nil
	}
	position := 0 // position in Gemini's contents: system messages go elsewhere
	for i, m := range msgs {
		if m.Role == "system" || m.Role == "developer" {
			continue
		}
		position++
		if i <= start || m.Role != "assistant" || len(m.ToolCalls) == 0 {
			continue
		}
		first := m.ToolCalls[0]
		sig, ok := first.ThoughtSignature()
		if !ok || sig == "" {
			// Wording from the 400 quoted in
			// https://discuss.ai.google.dev/t/openai-api-compatibility-broken-due-to-thought-signature-on-gemini-3-pro-preview/109823
			return googleError(400, fmt.Sprintf("Function call is missing a thought_signature in functionCall parts. "+
				"This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. "+
				"Additional data, function call `default_api:%s` , position %d. "+
				"please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.", first.Function.Name, position))
		}
		s.mu.Lock()
		known := s.gemini.issued[sig]
		s.mu.Unlock()
		if sig != skipSignature && !known {
			// A signature Google did not issue fails validation
			// ("Invalid / Corrupted thought signature",
			// https://docs.apiyi.com/en/faq/gemini-thought-signature-missing).
			return googleError(400, "Corrupted thought signature.")
		}
	}
	return nil
}

// geminiQuota answers a Reply with RetryDelay or DailyQuota with Google's
// 429: RESOURCE_EXHAUSTED in the array body, Help, QuotaFailure and
// RetryInfo details, and no Retry-After header (bodies quoted in
// continuedev/continue#12643 (2026-06), #10062 and
// google-gemini/gemini-cli#8437 (2025-09-14)).
func (s *Server) geminiQuota(w http.ResponseWriter, reply Reply, model string) {
	model = modelName(model)
	s.mu.Lock()
	if to, ok := s.gemini.aliases[model]; ok {
		model = to
	}
	s.mu.Unlock()
	quotaID, limit := "GenerateRequestsPerMinutePerProjectPerModel-FreeTier", 5
	if reply.DailyQuota {
		quotaID, limit = "GenerateRequestsPerDayPerProjectPerModel-FreeTier", 20
	}
	const metric = "generativelanguage.googleapis.com/generate_content_free_tier_requests"
	msg := "You exceeded your current quota, please check your plan and billing details. " +
		"For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits. " +
		"To monitor your current usage, head to: https://ai.dev/rate-limit. \n" +
		fmt.Sprintf("* Quota exceeded for metric: %s, limit: %d, model: %s", metric, limit, model)
	details := []any{
		map[string]any{
			"@type": "type.googleapis.com/google.rpc.Help",
			"links": []any{map[string]string{
				"description": "Learn more about Gemini API quotas",
				"url":         "https://ai.google.dev/gemini-api/docs/rate-limits",
			}},
		},
		map[string]any{
			"@type": "type.googleapis.com/google.rpc.QuotaFailure",
			"violations": []any{map[string]any{
				"quotaMetric":     metric,
				"quotaId":         quotaID,
				"quotaDimensions": map[string]string{"location": "global", "model": model},
				"quotaValue":      strconv.Itoa(limit),
			}},
		},
	}
	if d := reply.RetryDelay; d > 0 {
		msg += "\nPlease retry in " + strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s."
		details = append(details, map[string]any{
			"@type":      "type.googleapis.com/google.rpc.RetryInfo",
			"retryDelay": fmt.Sprintf("%ds", int64(d/time.Second)),
		})
	}
	googleError(http.StatusTooManyRequests, msg, details...).write(w)
}

// geminiModelList answers GET /v1beta/openai/models: ids in Google's
// "models/..." form, owned by google, non-chat models included (the list
// comes from Google's model service, whose names are "models/<id>").
func (s *Server) geminiModelList(w http.ResponseWriter) {
	s.mu.Lock()
	ids := slices.Clone(s.models)
	ids = append(ids, slices.Sorted(maps.Keys(s.gemini.aliases))...)
	s.mu.Unlock()
	ids = append(ids, geminiOtherModels...)
	list := wireModels{Object: "list", Data: []wireModel{}}
	for _, id := range ids {
		list.Data = append(list.Data, wireModel{ID: "models/" + id, Object: "model", OwnedBy: "google"})
	}
	writeJSON(w, http.StatusOK, list)
}
