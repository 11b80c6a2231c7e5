package provider

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/co-cli/co/message"
)

// wireReq is the request body as a provider decodes it, keeping "absent"
// apart from "empty".
type wireReq struct {
	Model    string `json:"model"`
	Messages []struct {
		Role             string  `json:"role"`
		Content          string  `json:"content"`
		ReasoningContent *string `json:"reasoning_content"`
		Reasoning        *string `json:"reasoning"`
		ToolCalls        []struct {
			ID       string          `json:"id"`
			Extra    json.RawMessage `json:"extra_content"`
			Function struct{ Name, Arguments string }
		} `json:"tool_calls"`
	} `json:"messages"`
	MaxTokens           *int     `json:"max_tokens"`
	MaxCompletionTokens *int     `json:"max_completion_tokens"`
	Temperature         *float64 `json:"temperature"`
	ReasoningEffort     string   `json:"reasoning_effort"`
}

func decodeReq(t *testing.T, b []byte) wireReq {
	t.Helper()
	var r wireReq
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("the request is not valid JSON: %v\n%s", err, b)
	}
	return r
}

var gemini = Provider{Name: "gemini", BaseURL: "https://generativelanguage.googleapis.com/v1beta/openai/", Model: "gemini-3.5-flash"}

const sig1 = `{"google":{"thought_signature":"c2lnLW9uZQ=="}}`

// A parallel step from Gemini: the first call signed, the second not.
func signedStep(p Provider) []message.Message {
	return []message.Message{
		{Role: message.RoleUser, Content: "weather in Paris and Rome?"},
		{Role: message.RoleAssistant, Origin: p.Origin(), Model: p.Model, ToolCalls: []message.ToolCall{
			{ID: "a", Name: "weather", Args: `{"city":"Paris"}`, Extra: json.RawMessage(sig1)},
			{ID: "b", Name: "weather", Args: `{"city":"Rome"}`},
		}},
		{Role: message.RoleTool, ToolCallID: "a", ToolName: "weather", Content: "sunny"},
		{Role: message.RoleTool, ToolCallID: "b", ToolName: "weather", Content: "rain"},
	}
}

func TestSignaturesGoBackVerbatimOnlyOnTheFirstCall(t *testing.T) {
	r := decodeReq(t, encodeChatRequest(gemini, RequestOptions{}, "sys", signedStep(gemini), nil, true))
	as := r.Messages[2]
	if as.Role != "assistant" || len(as.ToolCalls) != 2 {
		t.Fatalf("assistant message: %+v", as)
	}
	if string(as.ToolCalls[0].Extra) != sig1 {
		t.Errorf("first call's extra_content = %s, want %s verbatim", as.ToolCalls[0].Extra, sig1)
	}
	if as.ToolCalls[1].Extra != nil {
		t.Errorf("second call got extra_content %s; Gemini signs only the first", as.ToolCalls[1].Extra)
	}
}

func TestUnsignedHistoryGetsGooglesPlaceholder(t *testing.T) {
	other := Provider{Name: "openai", BaseURL: "http://127.0.0.1:1/v1", Model: "gpt-4o"}
	for name, msgs := range map[string][]message.Message{
		"another provider": signedStep(other),
		"another model":    signedStep(Provider{Name: gemini.Name, BaseURL: gemini.BaseURL, Model: "gemini-3-pro-preview"}),
		"an older session": {{Role: message.RoleUser, Content: "x"}, {Role: message.RoleAssistant, ToolCalls: []message.ToolCall{{ID: "a", Name: "f", Args: "{}"}}}, {Role: message.RoleTool, ToolCallID: "a", Content: "ok"}},
	} {
		r := decodeReq(t, encodeChatRequest(gemini, RequestOptions{}, "", msgs, nil, true))
		calls := r.Messages[1].ToolCalls
		if !strings.Contains(string(calls[0].Extra), `"thought_signature":"skip_thought_signature_validator"`) {
			t.Errorf("%s: first call's extra_content = %s, want the documented placeholder", name, calls[0].Extra)
		}
		for _, c := range calls[1:] {
			if c.Extra != nil {
				t.Errorf("%s: a later call got extra_content %s", name, c.Extra)
			}
		}
	}
	// To anyone but Gemini, nothing is made up and nothing foreign is sent.
	r := decodeReq(t, encodeChatRequest(other, RequestOptions{}, "", signedStep(gemini), nil, true))
	for _, c := range r.Messages[1].ToolCalls {
		if c.Extra != nil {
			t.Errorf("a Gemini signature went to another provider: %s", c.Extra)
		}
	}
}

func TestReasoningGoesBackForToolTurnsOnly(t *testing.T) {
	ds := Provider{Name: "openai", BaseURL: "https://api.deepseek.com/v1", Model: "deepseek-reasoner"}
	o := ds.Origin()
	msgs := []message.Message{
		{Role: message.RoleUser, Content: "plain question"},
		{Role: message.RoleAssistant, Content: "plain answer", Reasoning: "think A", ReasoningField: "reasoning_content", Origin: o, Model: ds.Model},
		{Role: message.RoleUser, Content: "use a tool"},
		{Role: message.RoleAssistant, Reasoning: "think B", ReasoningField: "reasoning_content", Origin: o, Model: ds.Model, ToolCalls: []message.ToolCall{{ID: "c1", Name: "f", Args: "{}"}}},
		{Role: message.RoleTool, ToolCallID: "c1", Content: "r"},
		{Role: message.RoleAssistant, Content: "done", Origin: o, Model: ds.Model}, // no reasoning streamed
		{Role: message.RoleUser, Content: "next"},
	}
	r := decodeReq(t, encodeChatRequest(ds, RequestOptions{}, "", msgs, nil, true))
	if m := r.Messages[1]; m.ReasoningContent != nil || m.Reasoning != nil {
		t.Errorf("a turn without tools sent its reasoning back: %+v", m)
	}
	if m := r.Messages[3]; m.ReasoningContent == nil || *m.ReasoningContent != "think B" || m.Reasoning != nil {
		t.Errorf("tool step: reasoning_content = %v, reasoning = %v; want \"think B\" in reasoning_content only", m.ReasoningContent, m.Reasoning)
	}
	if m := r.Messages[5]; m.ReasoningContent == nil || *m.ReasoningContent != "" {
		t.Errorf("the tool turn's final answer must carry reasoning_content \"\" (DeepSeek rejects it absent), got %v", m.ReasoningContent)
	}

	// vLLM ≥ 0.16 streams and reads "reasoning".
	vl := Provider{Name: "openai", BaseURL: "http://vllm:8000/v1", Model: "qwen3"}
	vmsgs := []message.Message{{Role: message.RoleUser, Content: "x"}, {Role: message.RoleAssistant, Reasoning: "R", ReasoningField: "reasoning", Origin: vl.Origin(), ToolCalls: []message.ToolCall{{ID: "c", Name: "f", Args: "{}"}}}, {Role: message.RoleTool, ToolCallID: "c", Content: "r"}}
	r = decodeReq(t, encodeChatRequest(vl, RequestOptions{}, "", vmsgs, nil, true))
	if m := r.Messages[1]; m.Reasoning == nil || *m.Reasoning != "R" || m.ReasoningContent != nil {
		t.Errorf("vLLM: reasoning = %v, reasoning_content = %v", m.Reasoning, m.ReasoningContent)
	}

	// After a switch to another endpoint, earlier reasoning stays home.
	r = decodeReq(t, encodeChatRequest(vl, RequestOptions{}, "", msgs, nil, true))
	for i, m := range r.Messages {
		if m.Reasoning != nil || m.ReasoningContent != nil {
			t.Errorf("message %d: DeepSeek's reasoning went to another endpoint", i)
		}
	}
}

func TestReasoningModelsGetNeitherMaxTokensNorTemperature(t *testing.T) {
	temp := 0.2
	o := RequestOptions{MaxTokens: 500, Temperature: &temp, ReasoningEffort: "low"}
	msgs := []message.Message{{Role: message.RoleUser, Content: "hi"}}
	for _, model := range []string{"gpt-5", "gpt-5-mini", "o3", "o4-mini", "openai/gpt-5.1"} {
		r := decodeReq(t, encodeChatRequest(Provider{Name: "openai", Model: model}, o, "", msgs, nil, true))
		if r.MaxTokens != nil || r.Temperature != nil || r.MaxCompletionTokens == nil || *r.MaxCompletionTokens != 500 {
			t.Errorf("%s: max_tokens=%v temperature=%v max_completion_tokens=%v", model, r.MaxTokens, r.Temperature, r.MaxCompletionTokens)
		}
		if r.ReasoningEffort != "low" {
			t.Errorf("%s: reasoning_effort = %q", model, r.ReasoningEffort)
		}
	}
	r := decodeReq(t, encodeChatRequest(Provider{Name: "openai", Model: "gpt-4o"}, o, "", msgs, nil, true))
	if r.MaxTokens == nil || *r.MaxTokens != 500 || r.Temperature == nil || *r.Temperature != 0.2 {
		t.Errorf("gpt-4o: max_tokens=%v temperature=%v", r.MaxTokens, r.Temperature)
	}
	r = decodeReq(t, encodeChatRequest(Provider{Name: "openai", Model: "gpt-5"}, RequestOptions{}, "", msgs, nil, true))
	if r.MaxTokens != nil || r.MaxCompletionTokens != nil || r.Temperature != nil || r.ReasoningEffort != "" {
		t.Errorf("unconfigured options were sent: %+v", r)
	}
}

func TestChunksKeepWhatGoOpenAIDrops(t *testing.T) {
	c, err := decodeChunk([]byte(`{"model":"gemini-3.5-flash","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[` +
		`{"id":"x1","type":"function","function":{"name":"weather","arguments":"{\"city\":\"Paris\"}"},"extra_content":{"google":{"thought_signature":"AAA="}}},` +
		`{"id":"x2","type":"function","function":{"name":"weather","arguments":"{\"city\":\"Rome\"}"}}]},"finish_reason":"stop"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	acc := &CallAccumulator{}
	for _, d := range c.Calls {
		acc.Add(d)
	}
	calls := acc.Calls()
	if len(calls) != 2 || calls[0].Args != `{"city":"Paris"}` || calls[1].Args != `{"city":"Rome"}` {
		t.Fatalf("parallel calls without index were merged or lost: %+v", calls)
	}
	if string(calls[0].Extra) != `{"google":{"thought_signature":"AAA="}}` || calls[1].Extra != nil {
		t.Errorf("extra_content: %s / %s", calls[0].Extra, calls[1].Extra)
	}
	if c.Model != "gemini-3.5-flash" {
		t.Errorf("model = %q", c.Model)
	}

	for field, raw := range map[string]string{
		"reasoning_content": `{"choices":[{"delta":{"reasoning_content":"hmm"}}]}`,
		"reasoning":         `{"choices":[{"delta":{"reasoning":"hmm"}}]}`,
	} {
		c, err := decodeChunk([]byte(raw))
		if err != nil || c.Reasoning != "hmm" || c.Field != field {
			t.Errorf("%s: reasoning %q in %q, err %v", field, c.Reasoning, c.Field, err)
		}
	}

	// Qwen on vLLM ends a call with "arguments": null.
	acc = &CallAccumulator{}
	for _, raw := range []string{
		`{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"q","type":"function","function":{"name":"f","arguments":"{\"a\":"}}]}}]}`,
		`{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"1}"}}]}}]}`,
		`{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":null}}]},"finish_reason":"tool_calls"}]}`,
	} {
		c, err := decodeChunk([]byte(raw))
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		for _, d := range c.Calls {
			acc.Add(d)
		}
	}
	if calls := acc.Calls(); len(calls) != 1 || calls[0].Args != `{"a":1}` {
		t.Errorf("null arguments: %+v", calls)
	}

	// A signature that arrives in a delta of its own, after the call.
	acc = &CallAccumulator{}
	for _, raw := range []string{
		`{"choices":[{"delta":{"tool_calls":[{"id":"g","type":"function","function":{"name":"f","arguments":"{}"}}]}}]}`,
		`{"choices":[{"delta":{"tool_calls":[{"extra_content":{"google":{"thought_signature":"QQ=="}}}]}}]}`,
	} {
		c, _ := decodeChunk([]byte(raw))
		for _, d := range c.Calls {
			acc.Add(d)
		}
	}
	if calls := acc.Calls(); len(calls) != 1 || !hasSignature(calls[0].Extra) {
		t.Errorf("a metadata-only delta was lost: %+v", calls)
	}
}

// trimmed cuts the tool results before the last user message to limit
// bytes, as the agent's trimmedView does: a turn already encoded (and
// cached) changes once the next one starts.
func trimmed(msgs []message.Message, limit int) []message.Message {
	last := -1
	for i, m := range msgs {
		if m.Role == message.RoleUser {
			last = i
		}
	}
	out := append([]message.Message(nil), msgs...)
	for i := 0; i < last; i++ {
		if out[i].Role == message.RoleTool && len(out[i].Content) > limit {
			out[i].Content = out[i].Content[:limit] + "[trimmed]"
		}
	}
	return out
}

// The cache of finished turns gives exactly the bytes a full encoding
// gives, turn after turn, and across a rewrite of the history.
func TestCachedEncodingMatchesFullEncoding(t *testing.T) {
	ds := Provider{Name: "openai", BaseURL: "https://api.deepseek.com/v1", Model: "deepseek-v4-flash"}
	var c PrefixCache
	var msgs []message.Message
	gen := 0
	check := func(step string) {
		t.Helper()
		view := trimmed(msgs, 20)
		full := encodeChatRequest(ds, RequestOptions{}, "sys", view, nil, true)
		got := bytes.Join(EncodeChatRequestCached(&c, CacheKey(gen, ds), ds, RequestOptions{}, "sys", view, nil, true), nil)
		if string(full) != string(got) {
			t.Fatalf("%s: cached encoding differs\n got %s\nwant %s", step, got, full)
		}
		decodeReq(t, got)
	}
	for turn := 0; turn < 4; turn++ {
		msgs = append(msgs, message.Message{Role: message.RoleUser, Content: "question " + strings.Repeat("x", turn)})
		check("user")
		id := "c" + string(rune('a'+turn))
		msgs = append(msgs, message.Message{Role: message.RoleAssistant, Origin: ds.Origin(), Model: ds.Model, Reasoning: "think", ReasoningField: "reasoning_content", ToolCalls: []message.ToolCall{{ID: id, Name: "f", Args: "{}"}}})
		msgs = append(msgs, message.Message{Role: message.RoleTool, ToolCallID: id, Content: strings.Repeat("long tool output ", 5)})
		check("tool step")
		msgs = append(msgs, message.Message{Role: message.RoleAssistant, Origin: ds.Origin(), Model: ds.Model, Content: "answer"})
		check("answer")
	}
	// A rewrite (summarising) with a new generation.
	msgs = append([]message.Message{{Role: message.RoleUser, Content: "[Summary of the earlier conversation]\ns"}, {Role: message.RoleAssistant, Content: "Understood."}}, msgs[8:]...)
	gen++
	check("after a rewrite")
	// Another endpoint: the key changes too.
	ds.BaseURL = "http://other/v1"
	check("after a switch")
}

// A whole (non-streamed) response keeps the same fields as a chunk.
func TestWholeResponseKeepsSignatureAndReasoning(t *testing.T) {
	c, err := decodeChunk([]byte(`{"id":"x","object":"chat.completion","model":"gemini-3.5-flash","choices":[{"index":0,"message":{"role":"assistant","content":null,"reasoning_content":"why",` +
		`"tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"},"extra_content":{"google":{"thought_signature":"Zm9v"}}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":3,"completion_tokens":2}}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Calls) != 1 || string(c.Calls[0].extra) != `{"google":{"thought_signature":"Zm9v"}}` || c.Reasoning != "why" || c.Usage == nil || c.Usage.InputTokens != 3 {
		t.Errorf("decoded %+v", c)
	}
}

// Parallel calls that all carry index 0 (NousResearch/hermes-agent#62937,
// with ids; PR #67507, without) are two calls, not one with the names and
// arguments run together; a call's later argument pieces at that index
// follow the call they belong to.
func TestParallelCallsSharingAnIndexStayApart(t *testing.T) {
	for name, chunks := range map[string][]string{
		"ids": {
			`{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"weather","arguments":"{\"city\":\"Paris\"}"}}]}}]}`,
			`{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"b","type":"function","function":{"name":"time","arguments":"{\"zone\":"}}]}}]}`,
			`{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"CET\"}"}}]}}]}`,
		},
		"no ids": {
			`{"choices":[{"delta":{"tool_calls":[{"index":0,"type":"function","function":{"name":"weather","arguments":"{\"city\":\"Paris\"}"}}]}}]}`,
			`{"choices":[{"delta":{"tool_calls":[{"index":0,"type":"function","function":{"name":"time","arguments":"{\"zone\":"}}]}}]}`,
			`{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"CET\"}"}}]}}]}`,
		},
	} {
		acc := &CallAccumulator{}
		for _, raw := range chunks {
			c, err := decodeChunk([]byte(raw))
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range c.Calls {
				acc.Add(d)
			}
		}
		calls := acc.Calls()
		if len(calls) != 2 || calls[0].Name != "weather" || calls[0].Args != `{"city":"Paris"}` || calls[1].Name != "time" || calls[1].Args != `{"zone":"CET"}` || calls[0].ID == calls[1].ID {
			t.Errorf("%s: calls sharing index 0 were run together: %+v", name, calls)
		}
	}
	// An ordinary stream (OpenAI: one index per call, the arguments in
	// pieces without id or name) is unchanged.
	acc := &CallAccumulator{}
	for _, raw := range []string{
		`{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"weather","arguments":""}}]}}]}`,
		`{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":"}}]}}]}`,
		`{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"Paris\"}"}}]}}]}`,
		`{"choices":[{"delta":{"tool_calls":[{"index":1,"id":"b","type":"function","function":{"name":"time","arguments":"{}"}}]}}]}`,
	} {
		c, _ := decodeChunk([]byte(raw))
		for _, d := range c.Calls {
			acc.Add(d)
		}
	}
	if calls := acc.Calls(); len(calls) != 2 || calls[0].Args != `{"city":"Paris"}` || calls[1].Name != "time" {
		t.Errorf("an indexed stream: %+v", calls)
	}
}

// A server that sends calls without ids (some OpenAI-compatible ones do:
// docs/providers.md, "Tool calls without an id")
// gets ids from co that no other response shares: numbered per response
// ("call_0" each time) they repeated across the turns of a session.
func TestCallsWithoutIDsGetIDsNoOtherResponseShares(t *testing.T) {
	seen := map[string]bool{}
	for range 3 {
		c, err := decodeChunk([]byte(`{"choices":[{"delta":{"tool_calls":[{"index":0,"type":"function","function":{"name":"f","arguments":"{}"}}]}}]}`))
		if err != nil {
			t.Fatal(err)
		}
		acc := &CallAccumulator{}
		for _, d := range c.Calls {
			acc.Add(d)
		}
		calls := acc.Calls()
		if len(calls) != 1 || calls[0].ID == "" {
			t.Fatalf("calls: %+v", calls)
		}
		if seen[calls[0].ID] {
			t.Fatalf("id %q given to the calls of two responses", calls[0].ID)
		}
		seen[calls[0].ID] = true
	}
}
