package llmtest_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/co-cli/co/agent/llmtest"
)

func newProfileServer(t *testing.T, p llmtest.Profile) *llmtest.Server {
	t.Helper()
	srv := newServer(t)
	srv.SetProfile(p)
	return srv
}

// rawResp is an HTTP answer read whole.
type rawResp struct {
	status int
	header http.Header
	body   []byte
}

// do sends body (JSON) to url with the given bearer token ("" for none).
func do(t *testing.T, method, url, token, body string) rawResp {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(t.Context(), method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return rawResp{resp.StatusCode, resp.Header, b}
}

// sse splits a stream into its data payloads (without [DONE]) and its
// comment lines.
func sse(t *testing.T, body []byte) (chunks []map[string]any, comments []string) {
	t.Helper()
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, 1<<20)
	done := false
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, ":"):
			comments = append(comments, line)
		case line == "data: [DONE]":
			done = true
		case strings.HasPrefix(line, "data: "):
			var m map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &m); err != nil {
				t.Fatalf("chunk %q: %v", line, err)
			}
			chunks = append(chunks, m)
		case line != "":
			t.Fatalf("unexpected stream line %q", line)
		}
	}
	if !done {
		t.Fatalf("stream without [DONE]:\n%s", body)
	}
	return chunks, comments
}

// deltas returns the delta of each chunk that has a choice.
func deltas(chunks []map[string]any) []map[string]any {
	var out []map[string]any
	for _, c := range chunks {
		choices, _ := c["choices"].([]any)
		for _, ch := range choices {
			if d, ok := ch.(map[string]any)["delta"].(map[string]any); ok {
				out = append(out, d)
			}
		}
	}
	return out
}

func finishOf(chunks []map[string]any) string {
	for _, c := range chunks {
		choices, _ := c["choices"].([]any)
		for _, ch := range choices {
			if f, ok := ch.(map[string]any)["finish_reason"].(string); ok {
				return f
			}
		}
	}
	return ""
}

// googleErr decodes Google's array error body.
func googleErr(t *testing.T, r rawResp) (code int, status, msg string, details []any) {
	t.Helper()
	var arr []struct {
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
			Status  string `json:"status"`
			Details []any  `json:"details"`
		} `json:"error"`
	}
	if err := json.Unmarshal(r.body, &arr); err != nil || len(arr) != 1 {
		t.Fatalf("not Google's array error body (%v): %s", err, r.body)
	}
	e := arr[0].Error
	return e.Code, e.Status, e.Message, e.Details
}

const weatherAsk = `{"role":"system","content":"sys"},{"role":"user","content":"weather in Paris and Rome?"}`

func TestGeminiURLAndModelList(t *testing.T) {
	srv := newProfileServer(t, llmtest.ProfileGemini)
	if !strings.HasSuffix(srv.URL, "/v1beta/openai") {
		t.Fatalf("URL = %s", srv.URL)
	}
	models, err := newClient(srv).ListModels(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range models.Models {
		ids = append(ids, m.ID)
		if m.OwnedBy != "google" || m.Object != "model" {
			t.Errorf("model %+v", m)
		}
	}
	for _, want := range []string{"models/gemini-3.8-flash", "models/gemini-flash-latest", "models/gemini-embedding-001", "models/aqa"} {
		if !slices.Contains(ids, want) {
			t.Errorf("models %v lack %s", ids, want)
		}
	}
	// The /v1 path answers too.
	host := strings.TrimSuffix(srv.URL, "/v1beta/openai")
	if r := do(t, "GET", host+"/v1/models", "k", ""); r.status != 200 || !strings.Contains(string(r.body), `"models/gemini-3.8-flash"`) {
		t.Errorf("/v1/models: %d %s", r.status, r.body)
	}
	srv.Script(llmtest.Reply{Text: "hi"})
	r := do(t, "POST", host+"/v1/chat/completions", "k", `{"model":"gemini-3.8-flash","messages":[{"role":"user","content":"x"}]}`)
	if r.status != 200 {
		t.Errorf("/v1/chat/completions: %d %s", r.status, r.body)
	}
}

func TestGeminiAuth(t *testing.T) {
	srv := newProfileServer(t, llmtest.ProfileGemini)
	body := `{"model":"gemini-3.8-flash","messages":[{"role":"user","content":"x"}]}`
	r := do(t, "POST", srv.URL+"/chat/completions", "", body)
	if code, status, msg, _ := googleErr(t, r); r.status != 400 || code != 400 || status != "INVALID_ARGUMENT" || msg != "Invalid Authorization header." {
		t.Errorf("no key: %d %s", r.status, r.body)
	}
	if r := do(t, "GET", srv.URL+"/models", "", ""); r.status != 400 {
		t.Errorf("models without key: %d", r.status)
	}

	srv.SetAPIKey("right")
	r = do(t, "POST", srv.URL+"/chat/completions", "wrong", body)
	_, status, msg, details := googleErr(t, r)
	if r.status != 400 || status != "INVALID_ARGUMENT" || msg != "API key not valid. Please pass a valid API key." ||
		!strings.Contains(string(r.body), `"reason":"API_KEY_INVALID"`) || len(details) != 2 {
		t.Errorf("wrong key: %d %s", r.status, r.body)
	}
	srv.Script(llmtest.Reply{Text: "ok"})
	// ClientConfig carries the key set.
	resp, err := newClient(srv).CreateChatCompletion(t.Context(), openai.ChatCompletionRequest{
		Model: "gemini-3.8-flash", Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "x"}},
	})
	if err != nil || resp.Choices[0].Message.Content != "ok" {
		t.Errorf("right key: %v %+v", err, resp)
	}
}

func TestGeminiModelIDs(t *testing.T) {
	srv := newProfileServer(t, llmtest.ProfileGemini)
	ask := func(model string) rawResp {
		return do(t, "POST", srv.URL+"/chat/completions", "k", `{"model":"`+model+`","messages":[{"role":"user","content":"x"}]}`)
	}
	for _, m := range []string{"gemini-2.0-flash", "gemini-2.5-pro", "gemini-3-pro-preview"} {
		r := ask(m)
		if code, status, msg, _ := googleErr(t, r); r.status != 404 || code != 404 || status != "NOT_FOUND" ||
			msg != "This model models/"+m+" is no longer available. Please update your code to use a newer model for the latest features and improvements." {
			t.Errorf("%s: %d %s", m, r.status, r.body)
		}
	}
	for _, m := range []string{"gemini-1.5-flash", "gemini-9"} {
		r := ask(m)
		if _, status, msg, _ := googleErr(t, r); r.status != 404 || status != "NOT_FOUND" ||
			!strings.HasPrefix(msg, "models/"+m+" is not found for API version v1main, or is not supported for generateContent.") {
			t.Errorf("%s: %d %s", m, r.status, r.body)
		}
	}
	if n := len(srv.Requests()); n != 5 {
		t.Errorf("refused requests recorded: %d, want 5", n)
	}
	srv.Script(llmtest.Reply{Text: "a"}, llmtest.Reply{Text: "b"}, llmtest.Reply{Text: "c"})
	for _, m := range []string{"gemini-flash-latest", "models/gemini-3.5-flash", "gemini-pro-latest"} {
		if r := ask(m); r.status != 200 {
			t.Errorf("%s: %d %s", m, r.status, r.body)
		}
	}
	srv.SetGeminiAliases(map[string]string{"gemini-flash-latest": "gemini-3.8-flash"})
	if r := ask("gemini-pro-latest"); r.status != 404 {
		t.Errorf("alias removed by SetGeminiAliases still answers: %d", r.status)
	}
	if srv.Pending() != 0 {
		t.Errorf("Pending = %d", srv.Pending())
	}
}

func TestGeminiStreamedParallelToolCalls(t *testing.T) {
	srv := newProfileServer(t, llmtest.ProfileGemini)
	srv.Script(llmtest.Reply{Text: "Checking.", Reasoning: "hidden", ToolCalls: []llmtest.ToolCall{
		{Name: "weather", Args: `{"city":"Paris"}`, Split: 3},
		{Name: "weather", Args: `{"city":"Rome"}`},
	}})
	r := do(t, "POST", srv.URL+"/chat/completions", "k", `{"model":"gemini-3.8-flash","stream":true,"messages":[`+weatherAsk+`]}`)
	if r.status != 200 {
		t.Fatalf("%d %s", r.status, r.body)
	}
	chunks, _ := sse(t, r.body)
	var callDeltas [][]any
	for _, d := range deltas(chunks) {
		if _, ok := d["reasoning_content"]; ok {
			t.Errorf("gemini sent reasoning_content: %v", d)
		}
		if tc, ok := d["tool_calls"].([]any); ok {
			callDeltas = append(callDeltas, tc)
		}
	}
	// One call per chunk, each whole (noho/dayu-agent PR #91).
	if len(callDeltas) != 2 || len(callDeltas[0]) != 1 || len(callDeltas[1]) != 1 {
		t.Fatalf("want each call in a delta of its own, got %v", callDeltas)
	}
	sigs := srv.ThoughtSignatures()
	if len(sigs) != 1 {
		t.Fatalf("signatures issued: %v", sigs)
	}
	for i, c := range []any{callDeltas[0][0], callDeltas[1][0]} {
		call := c.(map[string]any)
		if _, ok := call["index"]; ok {
			t.Errorf("call %d has an index: %v", i, call)
		}
		fn := call["function"].(map[string]any)
		if call["id"] == "" || call["type"] != "function" || fn["name"] != "weather" {
			t.Errorf("call %d: %v", i, call)
		}
		ec, has := call["extra_content"]
		switch {
		case i == 0 && (!has || ec.(map[string]any)["google"].(map[string]any)["thought_signature"] != sigs[0]):
			t.Errorf("first call lacks the issued signature: %v", call)
		case i == 1 && has:
			t.Errorf("second parallel call has a signature: %v", call)
		}
	}
	if a := callDeltas[0][0].(map[string]any)["function"].(map[string]any)["arguments"]; a != `{"city":"Paris"}` {
		t.Errorf("arguments not whole: %v", a)
	}
	if f := finishOf(chunks); f != "stop" {
		t.Errorf("finish_reason = %q, want stop", f)
	}
}

func TestGeminiNonStreamedSignature(t *testing.T) {
	srv := newProfileServer(t, llmtest.ProfileGemini)
	srv.Script(llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "a", Args: `{}`}, {Name: "b", Args: `{}`}}})
	r := do(t, "POST", srv.URL+"/chat/completions", "k", `{"model":"gemini-3.8-flash","messages":[`+weatherAsk+`]}`)
	var resp struct {
		Choices []struct {
			Message struct {
				ToolCalls []llmtest.WireToolCall `json:"tool_calls"`
			} `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(r.body, &resp); err != nil {
		t.Fatal(err)
	}
	calls := resp.Choices[0].Message.ToolCalls
	sig, ok := calls[0].ThoughtSignature()
	if len(calls) != 2 || !ok || sig != srv.ThoughtSignatures()[0] {
		t.Errorf("calls %+v", calls)
	}
	if _, ok := calls[1].ThoughtSignature(); ok {
		t.Error("second call signed")
	}
}

// history is a follow-up after one tool-call step whose first call carries
// extra (a JSON member such as `,"extra_content":{...}` or "").
func history(extra, more string) string {
	return `{"model":"gemini-3.8-flash","messages":[` + weatherAsk + `,
		{"role":"assistant","content":null,"tool_calls":[
			{"id":"c1","type":"function","function":{"name":"weather","arguments":"{}"}` + extra + `},
			{"id":"c2","type":"function","function":{"name":"weather","arguments":"{}"}}]},
		{"role":"tool","tool_call_id":"c1","content":"sun"},
		{"role":"tool","tool_call_id":"c2","content":"rain"}` + more + `]}`
}

func sigExtra(sig string) string {
	return `,"extra_content":{"google":{"thought_signature":"` + sig + `"}}`
}

func TestGeminiSignatureValidation(t *testing.T) {
	srv := newProfileServer(t, llmtest.ProfileGemini)
	srv.Script(llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "weather", Args: `{}`}}})
	do(t, "POST", srv.URL+"/chat/completions", "k", `{"model":"gemini-3.8-flash","messages":[`+weatherAsk+`]}`)
	issued := srv.ThoughtSignatures()[0]
	srv.SetDefault(llmtest.Reply{Text: "done"})

	cases := []struct {
		name, body string
		status     int
		msg        string
	}{
		{"missing", history("", ""), 400, "Function call is missing a thought_signature in functionCall parts."},
		{"foreign", history(sigExtra("bm90IGlzc3VlZA=="), ""), 400, "Corrupted thought signature."},
		{"issued", history(sigExtra(issued), ""), 200, ""},
		{"placeholder", history(sigExtra("skip_thought_signature_validator"), ""), 200, ""},
		// The step is in an older turn once a new user message follows.
		{"older turn", history("", `,{"role":"assistant","content":"Sunny and rainy."},{"role":"user","content":"thanks"}`), 200, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pending := srv.Pending()
			r := do(t, "POST", srv.URL+"/chat/completions", "k", c.body)
			if r.status != c.status {
				t.Fatalf("status %d, want %d: %s", r.status, c.status, r.body)
			}
			if c.status == 200 {
				return
			}
			code, status, msg, _ := googleErr(t, r)
			if code != 400 || status != "INVALID_ARGUMENT" || !strings.HasPrefix(msg, c.msg) {
				t.Errorf("body %s", r.body)
			}
			if c.name == "missing" && !strings.Contains(msg, "function call `default_api:weather` , position 2.") {
				t.Errorf("message %q does not name the call and its position", msg)
			}
			if srv.Pending() != pending {
				t.Error("a refused request took a reply")
			}
		})
	}
}

// TestGeminiGoOpenAIDropsSignature shows the failure the profile exists
// for: a client that rebuilds history from go-openai's types loses
// extra_content and gets Google's 400 on the next step.
func TestGeminiGoOpenAIDropsSignature(t *testing.T) {
	srv := newProfileServer(t, llmtest.ProfileGemini)
	srv.Script(llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "weather", Args: `{"city":"Paris"}`}}},
		llmtest.Reply{Text: "Sunny."})
	client := newClient(srv)
	req := openai.ChatCompletionRequest{Model: "gemini-flash-latest", Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "weather?"}}}
	resp, err := client.CreateChatCompletion(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	msg := resp.Choices[0].Message
	req.Messages = append(req.Messages, msg, openai.ChatCompletionMessage{Role: "tool", ToolCallID: msg.ToolCalls[0].ID, Content: "sun"})
	_, err = client.CreateChatCompletion(t.Context(), req)
	var reqErr *openai.RequestError
	if !errors.As(err, &reqErr) || reqErr.HTTPStatusCode != 400 || !strings.Contains(string(reqErr.Body), "missing a thought_signature") {
		t.Fatalf("err = %v", err)
	}
}

func TestGeminiQuota(t *testing.T) {
	srv := newProfileServer(t, llmtest.ProfileGemini)
	srv.Script(llmtest.Reply{RetryDelay: 2 * time.Second}, llmtest.Reply{DailyQuota: true})
	body := `{"model":"gemini-flash-latest","messages":[{"role":"user","content":"x"}]}`

	r := do(t, "POST", srv.URL+"/chat/completions", "k", body)
	_, status, msg, details := googleErr(t, r)
	if r.status != 429 || status != "RESOURCE_EXHAUSTED" || !strings.HasPrefix(msg, "You exceeded your current quota") ||
		!strings.Contains(msg, "model: gemini-3-flash-preview") || !strings.HasSuffix(msg, "Please retry in 2s.") {
		t.Errorf("429: %d %s", r.status, r.body)
	}
	if h := r.header.Get("Retry-After"); h != "" {
		t.Errorf("Retry-After %q: Google sends none", h)
	}
	var types []string
	for _, d := range details {
		dm := d.(map[string]any)
		types = append(types, dm["@type"].(string))
		if dm["@type"] == "type.googleapis.com/google.rpc.RetryInfo" && dm["retryDelay"] != "2s" {
			t.Errorf("retryDelay %v", dm["retryDelay"])
		}
	}
	if !slices.Contains(types, "type.googleapis.com/google.rpc.RetryInfo") || !slices.Contains(types, "type.googleapis.com/google.rpc.QuotaFailure") {
		t.Errorf("details %v", types)
	}

	r = do(t, "POST", srv.URL+"/chat/completions", "k", body)
	if r.status != 429 || !strings.Contains(string(r.body), "GenerateRequestsPerDayPerProjectPerModel-FreeTier") ||
		strings.Contains(string(r.body), "RetryInfo") {
		t.Errorf("daily: %d %s", r.status, r.body)
	}
}

func TestGeminiScriptedStatus(t *testing.T) {
	srv := newProfileServer(t, llmtest.ProfileGemini)
	srv.Script(llmtest.Reply{Status: 503, ErrorMessage: "The model is overloaded. Please try again later."})
	r := do(t, "POST", srv.URL+"/chat/completions", "k", `{"model":"gemini-3.8-flash","messages":[{"role":"user","content":"x"}]}`)
	if code, status, msg, _ := googleErr(t, r); r.status != 503 || code != 503 || status != "UNAVAILABLE" || msg != "The model is overloaded. Please try again later." {
		t.Errorf("%d %s", r.status, r.body)
	}
}

func TestDeepSeekStream(t *testing.T) {
	srv := newProfileServer(t, llmtest.ProfileDeepSeek)
	srv.Script(llmtest.Reply{Reasoning: "Need the weather.", Text: "Let me look.", ToolCalls: []llmtest.ToolCall{{Name: "weather", Args: `{}`}}})
	r := do(t, "POST", srv.URL+"/chat/completions", "k", `{"model":"deepseek-v4-flash","stream":true,"messages":[{"role":"user","content":"x"}]}`)
	chunks, comments := sse(t, r.body)
	if !slices.Contains(comments, ": keep-alive") {
		t.Errorf("no keep-alive comment in\n%s", r.body)
	}
	var order []string
	var reasoning string
	for _, d := range deltas(chunks) {
		switch {
		case d["reasoning_content"] != nil:
			order = append(order, "reasoning")
			reasoning += d["reasoning_content"].(string)
		case d["tool_calls"] != nil:
			order = append(order, "tool")
		case d["content"] != nil && d["content"] != "":
			order = append(order, "content")
		}
	}
	order = slices.Compact(order)
	if !slices.Equal(order, []string{"reasoning", "content", "tool"}) || reasoning != "Need the weather." {
		t.Errorf("order %v, reasoning %q", order, reasoning)
	}
	// go-openai reads through the keep-alive comment.
	srv.Script(llmtest.Reply{Text: "fine"})
	got := readStream(t.Context(), t, newClient(srv), openai.ChatCompletionRequest{Model: "deepseek-v4-pro", Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "x"}}})
	if got.err != nil || got.joined() != "fine" {
		t.Errorf("go-openai: %v %q", got.err, got.joined())
	}
}

func TestDeepSeekNonStreamed(t *testing.T) {
	srv := newProfileServer(t, llmtest.ProfileDeepSeek)
	srv.Script(llmtest.Reply{Reasoning: "think", Text: "answer"})
	resp, err := newClient(srv).CreateChatCompletion(t.Context(), openai.ChatCompletionRequest{
		Model: "deepseek-flash", Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "x"}},
	})
	if err != nil || resp.Choices[0].Message.ReasoningContent != "think" || resp.Choices[0].Message.Content != "answer" {
		t.Errorf("%v %+v", err, resp)
	}
}

func TestDeepSeekModels(t *testing.T) {
	srv := newProfileServer(t, llmtest.ProfileDeepSeek)
	_, err := newClient(srv).CreateChatCompletion(t.Context(), openai.ChatCompletionRequest{
		Model: "deepseek-r1", Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "x"}},
	})
	var apiErr *openai.APIError
	if !errors.As(err, &apiErr) || apiErr.HTTPStatusCode != 400 || apiErr.Message != "Model Not Exist" || apiErr.Type != "invalid_request_error" {
		t.Errorf("err = %v", err)
	}
	models, err := newClient(srv).ListModels(t.Context())
	if err != nil || len(models.Models) != 4 || models.Models[0].OwnedBy != "deepseek" {
		t.Errorf("%v %+v", err, models)
	}
}

// dsHistory is a tool-call turn whose assistant messages carry fields
// (each "" or a `,"reasoning_content":...` member).
func dsHistory(model, step, final string) string {
	return `{"model":"` + model + `","messages":[
		{"role":"user","content":"weather?"},
		{"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"weather","arguments":"{}"}}]` + step + `},
		{"role":"tool","tool_call_id":"c1","content":"sun"},
		{"role":"assistant","content":"Sunny."` + final + `},
		{"role":"user","content":"and tomorrow?"}]}`
}

func TestDeepSeekReasoningContentRequired(t *testing.T) {
	srv := newProfileServer(t, llmtest.ProfileDeepSeek)
	srv.SetDefault(llmtest.Reply{Text: "ok"})
	rc := `,"reasoning_content":"r"`
	empty := `,"reasoning_content":""`
	cases := []struct {
		name, body string
		status     int
	}{
		{"both carried", dsHistory("deepseek-v4-flash", rc, rc), 200},
		{"empty strings", dsHistory("deepseek-v4-flash", empty, empty), 200},
		{"step lacks it", dsHistory("deepseek-v4-flash", "", rc), 400},
		{"final answer lacks it", dsHistory("deepseek-v4-flash", rc, ""), 400},
		{"V4.1 Flash", dsHistory("deepseek-flash", "", ""), 400},
		{"thinking disabled", strings.Replace(dsHistory("deepseek-v4-pro", "", ""), `{"model"`, `{"thinking":{"type":"disabled"},"model"`, 1), 200},
	}
	for _, c := range cases {
		r := do(t, "POST", srv.URL+"/chat/completions", "k", c.body)
		if r.status != c.status {
			t.Errorf("%s: %d %s", c.name, r.status, r.body)
			continue
		}
		if c.status == 400 && strings.TrimSpace(string(r.body)) !=
			`{"error":{"code":"invalid_request_error","message":"The `+"`reasoning_content`"+` in the thinking mode must be passed back to the API.","param":null,"type":"invalid_request_error"}}` {
			t.Errorf("%s: body %s", c.name, r.body)
		}
	}
	// A turn without tool calls needs nothing.
	r := do(t, "POST", srv.URL+"/chat/completions", "k", `{"model":"deepseek-v4-flash","messages":[
		{"role":"user","content":"hi"},{"role":"assistant","content":"hello"},{"role":"user","content":"bye"}]}`)
	if r.status != 200 {
		t.Errorf("no tool calls: %d %s", r.status, r.body)
	}
}

func TestDeepSeekNonThinkingSendsNoReasoning(t *testing.T) {
	srv := newProfileServer(t, llmtest.ProfileDeepSeek)
	srv.Script(llmtest.Reply{Reasoning: "x", Text: "y"})
	r := do(t, "POST", srv.URL+"/chat/completions", "k", `{"model":"deepseek-flash","thinking":{"type":"disabled"},"stream":true,"messages":[{"role":"user","content":"x"}]}`)
	if strings.Contains(string(r.body), "reasoning") {
		t.Errorf("thinking disabled, yet reasoning streamed:\n%s", r.body)
	}
	// The retired aliases are unknown models now.
	for _, m := range []string{"deepseek-chat", "deepseek-reasoner"} {
		r := do(t, "POST", srv.URL+"/chat/completions", "k", `{"model":"`+m+`","messages":[{"role":"user","content":"x"}]}`)
		if r.status != 400 || !strings.Contains(string(r.body), "Model Not Exist") {
			t.Errorf("%s, retired on 2026-07-24: %d %s", m, r.status, r.body)
		}
	}
}

func TestVLLM(t *testing.T) {
	srv := newProfileServer(t, llmtest.ProfileVLLM)
	srv.Script(llmtest.Reply{Reasoning: "plan", ToolCalls: []llmtest.ToolCall{
		{Name: "read", Args: `{"path":"a"}`, Split: 2},
		{Name: "now", Args: ""},
	}})
	r := do(t, "POST", srv.URL+"/chat/completions", "", `{"model":"Qwen/Qwen3-8B","stream":true,"messages":[
		{"role":"user","content":"x"},
		{"role":"assistant","content":"a","reasoning_content":"old"},
		{"role":"user","content":"y"}]}`)
	if r.status != 200 {
		t.Fatalf("%d %s", r.status, r.body)
	}
	if strings.Contains(string(r.body), "reasoning_content") {
		t.Error("vLLM sent reasoning_content")
	}
	chunks, _ := sse(t, r.body)
	var reasoning string
	var firsts []map[string]any
	args := map[float64]string{}
	for _, d := range deltas(chunks) {
		if s, ok := d["reasoning"].(string); ok {
			reasoning += s
		}
		tcs, _ := d["tool_calls"].([]any)
		for _, tc := range tcs {
			call := tc.(map[string]any)
			fn := call["function"].(map[string]any)
			a, present := fn["arguments"]
			if !present {
				t.Errorf("arguments absent: %v", call)
			}
			if call["id"] != nil {
				firsts = append(firsts, fn)
				if a != nil {
					t.Errorf("first delta arguments %v, want null", a)
				}
				continue
			}
			args[call["index"].(float64)] += a.(string)
		}
	}
	if reasoning != "plan" || len(firsts) != 2 || args[0] != `{"path":"a"}` || args[1] != "" {
		t.Errorf("reasoning %q, firsts %v, args %v", reasoning, firsts, args)
	}
	// The request's reasoning_content was taken without complaint and is
	// visible to the test.
	msgs := srv.Requests()[0].Messages()
	if msgs[1].ReasoningContent == nil || *msgs[1].ReasoningContent != "old" || msgs[1].Reasoning != nil {
		t.Errorf("messages %+v", msgs[1])
	}
}

func TestOpenAIReasoningModelParams(t *testing.T) {
	srv := newProfileServer(t, llmtest.ProfileOpenAI)
	srv.SetDefault(llmtest.Reply{Text: "ok", Reasoning: "secret"})
	// Raw HTTP: go-openai refuses these requests itself before sending.
	cases := []struct {
		body, want string
	}{
		{`{"model":"gpt-5","max_tokens":100,"messages":[{"role":"user","content":"x"}]}`,
			`{"error":{"code":"unsupported_parameter","message":"Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.","param":"max_tokens","type":"invalid_request_error"}}`},
		{`{"model":"o3","temperature":0.2,"messages":[{"role":"user","content":"x"}]}`,
			`{"error":{"code":"unsupported_value","message":"Unsupported value: 'temperature' does not support 0.2 with this model. Only the default (1) value is supported.","param":"temperature","type":"invalid_request_error"}}`},
		{`{"model":"gpt-5-mini","max_completion_tokens":100,"temperature":1,"messages":[{"role":"user","content":"x"}]}`, ""},
		{`{"model":"gpt-4o","max_tokens":100,"temperature":0.2,"messages":[{"role":"user","content":"x"}]}`, ""},
	}
	for _, c := range cases {
		r := do(t, "POST", srv.URL+"/chat/completions", "k", c.body)
		switch {
		case c.want == "" && (r.status != 200 || strings.Contains(string(r.body), "reasoning")):
			t.Errorf("%s: %d %s", c.body, r.status, r.body)
		case c.want != "" && (r.status != 400 || strings.TrimSpace(string(r.body)) != c.want):
			t.Errorf("%s: %d %s", c.body, r.status, r.body)
		}
	}
	// go-openai decodes the body as an APIError.
	var er openai.ErrorResponse
	r := do(t, "POST", srv.URL+"/chat/completions", "k", cases[0].body)
	if err := json.Unmarshal(r.body, &er); err != nil || er.Error.Code != "unsupported_parameter" || *er.Error.Param != "max_tokens" {
		t.Errorf("go-openai decoding: %v %+v", err, er.Error)
	}
}

func TestGenericReasoningAndMessages(t *testing.T) {
	srv := newServer(t)
	srv.Script(llmtest.Reply{Reasoning: "hmm", Text: "ok"})
	r := do(t, "POST", srv.URL+"/chat/completions", "", `{"model":"test","stream":true,"messages":[
		{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]},
		{"role":"assistant","content":"c","reasoning_content":""},
		{"role":"assistant","content":"d","reasoning":"r"}]}`)
	chunks, _ := sse(t, r.body)
	ds := deltas(chunks)
	if ds[1]["reasoning_content"] != "hmm" {
		t.Errorf("deltas %v", ds)
	}
	msgs := srv.Requests()[0].Messages()
	if msgs[0].Text() != "ab" || msgs[1].ReasoningContent == nil || *msgs[1].ReasoningContent != "" ||
		msgs[1].Reasoning != nil || msgs[2].ReasoningContent != nil || *msgs[2].Reasoning != "r" {
		t.Errorf("messages %+v", msgs)
	}
	if f := srv.Requests()[0].Fields(); string(f["model"]) != `"test"` {
		t.Errorf("fields %v", f)
	}
}

func TestProfileRoutesNeedTheirProfile(t *testing.T) {
	srv := newServer(t)
	base := strings.TrimSuffix(srv.URL, "/v1")
	for _, path := range []string{"/api/version", "/api/ps", "/v1beta/openai/models"} {
		if r := do(t, "GET", base+path, "", ""); r.status != 404 {
			t.Errorf("%s without a profile: %d", path, r.status)
		}
	}
	if p, err := llmtest.ParseProfile("gemini"); err != nil || p != llmtest.ProfileGemini {
		t.Errorf("ParseProfile: %v %v", p, err)
	}
	if _, err := llmtest.ParseProfile("claude"); err == nil {
		t.Error("ParseProfile accepted an unknown name")
	}
}

func TestReplyJSONProfileFields(t *testing.T) {
	var r llmtest.Reply
	if err := json.Unmarshal([]byte(`{"reasoning":"r","retry_delay":"1.5s","daily_quota":true}`), &r); err != nil {
		t.Fatal(err)
	}
	if r.Reasoning != "r" || r.RetryDelay != 1500*time.Millisecond || !r.DailyQuota {
		t.Errorf("%+v", r)
	}
	b, err := json.Marshal(r)
	if err != nil || string(b) != `{"reasoning":"r","daily_quota":true,"retry_delay":"1.5s"}` {
		t.Errorf("%s %v", b, err)
	}
}

// Google refuses JSON-Schema keywords its Schema lacks, naming each one.
func TestGeminiToolSchemaKeywords(t *testing.T) {
	srv := newProfileServer(t, llmtest.ProfileGemini)
	tool := func(params string) string {
		return `{"model":"gemini-3.8-flash","messages":[{"role":"user","content":"x"}],"tools":[` +
			`{"type":"function","function":{"name":"ok","parameters":{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}}},` +
			`{"type":"function","function":{"name":"bad","parameters":` + params + `}}]}`
	}
	for _, tc := range []struct{ name, params, want string }{
		{"$schema", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object"}`,
			`Unknown name "$schema" at 'tools[0].function_declarations[1].parameters': Cannot find field.`},
		{"const", `{"type":"object","properties":{"m":{"const":"x"}}}`,
			`Unknown name "const" at 'tools[0].function_declarations[1].parameters.properties[0].value': Cannot find field.`},
		{"$ref", `{"type":"object","properties":{"p":{"$ref":"#/$defs/P"}},"$defs":{"P":{"type":"string"}}}`,
			`Unknown name "$defs"`},
		{"type list", `{"type":"object","properties":{"n":{"type":["integer","null"]}}}`,
			`Proto field is not repeating, cannot start list.`},
		{"nested", `{"type":"object","properties":{"l":{"type":"array","items":{"type":"number","exclusiveMinimum":0}}}}`,
			`Unknown name "exclusiveMinimum" at 'tools[0].function_declarations[1].parameters.properties[0].value.items'`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv.Script(llmtest.Reply{Text: "unused"})
			r := do(t, "POST", srv.URL+"/chat/completions", "k", tool(tc.params))
			code, status, msg, _ := googleErr(t, r)
			if r.status != 400 || code != 400 || status != "INVALID_ARGUMENT" || !strings.Contains(msg, tc.want) {
				t.Errorf("%d %s", r.status, r.body)
			}
		})
	}
	srv.Script(llmtest.Reply{Text: "fine"})
	if r := do(t, "POST", srv.URL+"/chat/completions", "k", tool(`{"type":"object","properties":{"a":{"type":"string","enum":["x"]}},"required":["a"]}`)); r.status != 200 {
		t.Errorf("a plain schema: %d %s", r.status, r.body)
	}
}
