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
