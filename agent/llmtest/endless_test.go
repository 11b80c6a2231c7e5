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
