package llmtest

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// Ollama without num_predict stops at 10 × num_ctx with done_reason
// "length" (recorded: num_ctx 2048 → eval_count 20480).
func TestOllamaEndlessStopsAtTenTimesNumCtx(t *testing.T) {
	s := NewServer()
	defer s.Close()
	s.SetProfile(ProfileOllama)
	s.SetOllamaModels(OllamaModel{Name: "tiny-endless:latest", Family: "llama", ContextLength: 4096, Capabilities: []string{"completion", "tools"}})
	for _, c := range []struct {
		body  string
		lines int
	}{
		{`{"model":"tiny-endless","options":{"num_ctx":2048},"messages":[{"role":"user","content":"hi"}]}`, 20480},
		{`{"model":"tiny-endless","options":{"num_ctx":2048,"num_predict":99999},"messages":[{"role":"user","content":"hi"}]}`, 20480},
		{`{"model":"tiny-endless","options":{"num_predict":7},"messages":[{"role":"user","content":"hi"}]}`, 7},
	} {
		s.Script(Reply{Endless: true})
		resp, err := http.Post(strings.TrimSuffix(s.URL, "/v1")+"/api/chat", "application/json", strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(resp.Body)
		n := 0
		var last struct {
			Done       bool   `json:"done"`
			DoneReason string `json:"done_reason"`
			EvalCount  int    `json:"eval_count"`
		}
		for sc.Scan() {
			if err := json.Unmarshal(sc.Bytes(), &last); err != nil {
				t.Fatal(err)
			}
			if !last.Done {
				n++
			}
		}
		resp.Body.Close()
		if n != c.lines || !last.Done || last.DoneReason != "length" || last.EvalCount != c.lines {
			t.Errorf("%s: %d lines, last %+v", c.body, n, last)
		}
	}
}

// Ollama's /v1 takes max_tokens as num_predict, else the same 10 × num_ctx
// (the default 4096 here: /v1 cannot set num_ctx).
func TestOllamaV1EndlessBound(t *testing.T) {
	s := NewServer()
	defer s.Close()
	s.SetProfile(ProfileOllama)
	s.SetOllamaModels(OllamaModel{Name: "tiny-endless:latest", Family: "llama", ContextLength: 8192, Capabilities: []string{"completion"}})
	for _, c := range []struct {
		body   string
		chunks int
	}{
		{`{"model":"tiny-endless","stream":true,"max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`, 5},
		{`{"model":"tiny-endless","stream":true,"messages":[{"role":"user","content":"hi"}]}`, 40960},
	} {
		s.Script(Reply{Endless: true})
		resp, err := http.Post(s.URL+"/chat/completions", "application/json", strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(resp.Body)
		n, finish := 0, ""
		for sc.Scan() {
			line, ok := strings.CutPrefix(sc.Text(), "data: ")
			if !ok || line == "[DONE]" {
				continue
			}
			var ch struct {
				Choices []struct {
					Delta        struct{ Content string }
					FinishReason *string `json:"finish_reason"`
				}
			}
			if err := json.Unmarshal([]byte(line), &ch); err != nil {
				t.Fatal(err)
			}
			for _, x := range ch.Choices {
				if x.Delta.Content != "" {
					n++
				}
				if x.FinishReason != nil {
					finish = *x.FinishReason
				}
			}
		}
		resp.Body.Close()
		if n != c.chunks || finish != "length" {
			t.Errorf("%s: %d chunks, finish %q", c.body, n, finish)
		}
	}
}

// llama-server stops a reply that never ends at max_tokens (n_predict) or
// when prompt and reply fill -c, whichever comes first, with finish reason
// "length", streamed or not.
func TestLlamaEndlessStopsAtBoundOrContext(t *testing.T) {
	s := NewServer()
	defer s.Close()
	s.SetProfile(ProfileLlamaCpp)
	s.SetLlamaContext(2048)
	msg := strings.Repeat("word ", 80) // 400 characters: 100 tokens
	for _, c := range []struct {
		bound string
		want  int
	}{
		{``, 2048 - 100},
		{`"max_tokens":300,`, 300},
		{`"max_completion_tokens":40,`, 40},
		{`"max_tokens":8192,`, 2048 - 100},
	} {
		s.Script(Reply{Endless: true})
		body := `{"model":"m",` + c.bound + `"messages":[{"role":"user","content":"` + msg + `"}]}`
		resp, err := http.Post(s.URL+"/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		var out struct {
			Choices []struct {
				Message      struct{ Content string }
				FinishReason string `json:"finish_reason"`
			}
			Usage struct {
				PromptTokens     int `json:"prompt_tokens"`
				CompletionTokens int `json:"completion_tokens"`
			}
		}
		err = json.NewDecoder(resp.Body).Decode(&out)
		resp.Body.Close()
		if err != nil || len(out.Choices) != 1 {
			t.Fatalf("%s: %v %+v", c.bound, err, out)
		}
		ch := out.Choices[0]
		if got := strings.Count(ch.Message.Content, " ti") + strings.Count(ch.Message.Content, " to"); got != c.want ||
			ch.FinishReason != "length" || out.Usage.CompletionTokens != c.want {
			t.Errorf("%s: %d tokens, finish %q, usage %+v; want %d and length", c.bound, got, ch.FinishReason, out.Usage, c.want)
		}
	}
}
