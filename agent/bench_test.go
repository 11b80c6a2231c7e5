package agent_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/agent/provider"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/sessions"
	"github.com/co-cli/co/tools"
)

const benchChunks = 2000

// history makes n earlier messages of ordinary size.
func history(n int) []message.Message {
	h := make([]message.Message, 0, n)
	for i := 0; i < n; i++ {
		role := message.RoleUser
		if i%2 == 1 {
			role = message.RoleAssistant
		}
		h = append(h, message.Message{Role: role, Content: strings.Repeat("earlier message text ", 10)})
	}
	return h
}

// sseBody is a complete streamed reply in the OpenAI wire format: n chunks
// of four characters, a finish chunk, usage and [DONE].
func sseBody(n int) []byte {
	var b bytes.Buffer
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "data: {\"id\":\"x\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"abcd\"},\"finish_reason\":null}]}\n\n")
	}
	b.WriteString("data: {\"id\":\"x\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n")
	b.WriteString("data: {\"id\":\"x\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1,\"total_tokens\":2}}\n\n")
	b.WriteString("data: [DONE]\n\n")
	return b.Bytes()
}

// bytesTransport answers every request with the same recorded SSE body, so
// the benchmark measures the agent and the client's stream parsing without
// the loopback network.
type bytesTransport struct{ body []byte }

func (t bytesTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	_, _ = io.Copy(io.Discard, r.Body) // the request is not looked at: read to its end, whatever it holds
	r.Body.Close()
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body: io.NopCloser(bytes.NewReader(t.body)), Request: r}, nil
}

func runBenchTurns(b *testing.B, ag *agent.Agent, hist []message.Message) {
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		ag.SetHistory(hist)
		b.StartTimer()
		n := 0
		for ev := range ag.Submit(context.Background(), "go") {
			switch e := ev.(type) {
			case agent.TextDelta:
				n++
			case agent.TurnFailed:
				b.Fatal(e.Message)
			}
		}
		if n == 0 {
			b.Fatal("no text")
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchChunks), "ns/chunk")
}

// BenchmarkAgentChunk measures the agent's cost per streamed chunk (stream
// parsing, accumulation, event delivery), with short and long histories:
// the cost must not grow with the conversation.
func BenchmarkAgentChunk(b *testing.B) {
	body := sseBody(benchChunks)
	for _, n := range []int{10, 1000} {
		b.Run(fmt.Sprintf("history=%d", n), func(b *testing.B) {
			ag := agent.New(agent.Config{Provider: provider.Provider{Name: "openai", Model: "m", BaseURL: "http://bench.invalid/v1"}, Transport: bytesTransport{body}})
			runBenchTurns(b, ag, history(n))
		})
	}
}

// BenchmarkAgentChunkLoopback is the same through a real HTTP server on
// loopback (agent/llmtest), flushing every chunk.
func BenchmarkAgentChunkLoopback(b *testing.B) {
	for _, n := range []int{10, 1000} {
		b.Run(fmt.Sprintf("history=%d", n), func(b *testing.B) {
			srv := llmtest.NewServer()
			defer srv.Close()
			srv.SetDefault(llmtest.Reply{Text: strings.Repeat("abcd", benchChunks), ChunkSize: 4, Reusable: true})
			ag := agent.New(agent.Config{Provider: provider.Provider{Name: "openai", BaseURL: srv.URL, APIKey: "k", Model: "m"}})
			runBenchTurns(b, ag, history(n))
		})
	}
}

// BenchmarkAgentChunkRecorded is BenchmarkAgentChunk with the session being
// saved (sessions.Store): each chunk is appended to the draft before it is
// shown.
func BenchmarkAgentChunkRecorded(b *testing.B) {
	body := sseBody(benchChunks)
	st, err := sessions.Open(filepath.Join(b.TempDir(), sessions.FileName))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	ag := agent.New(agent.Config{Provider: provider.Provider{Name: "openai", Model: "m", BaseURL: "http://bench.invalid/v1"}, Transport: bytesTransport{body}, Recorder: st.New("/bench")})
	runBenchTurns(b, ag, history(10))
}

// BenchmarkSubmitToFirstByte measures co's own time from a prompt's
// submission (Enter) to its request reaching the server: history
// processing, encoding the body and writing it, over a kept-alive
// loopback connection. The p50 is reported; with 10 and with 1,000
// earlier messages it must stay under 2 ms and flat.
//
//	go test -run '^$' -bench SubmitToFirstByte -benchtime 200x ./agent/
func BenchmarkSubmitToFirstByte(b *testing.B) {
	for _, n := range []int{10, 1000} {
		b.Run(fmt.Sprintf("history=%d", n), func(b *testing.B) {
			arrived := make(chan time.Time, 1)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				arrived <- time.Now()              // the headers are in; the body follows them
				_, _ = io.Copy(io.Discard, r.Body) // the request is not looked at: read to its end, whatever it holds
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = io.WriteString(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n") // the client sees a failed write
			}))
			defer srv.Close()
			reg, _ := tools.NewRegistry()
			ag := agent.New(agent.Config{Provider: provider.Provider{Name: "openai", Model: "m", BaseURL: srv.URL + "/v1"}, Tools: reg})
			// Set once: as in a session, each prompt follows the earlier
			// ones (the history grows by two messages a prompt).
			ag.SetHistory(history(n))
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				start := time.Now()
				ch := ag.Submit(context.Background(), "go")
				lat = append(lat, (<-arrived).Sub(start))
				for ev := range ch {
					if e, ok := ev.(agent.TurnFailed); ok {
						b.Fatal(e.Message)
					}
				}
			}
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
		})
	}
}
