package telemetry_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/agent/provider"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/telemetry"
	"github.com/co-cli/co/tools"
)

// llmEnv makes the test binary a scripted LLM server in its own process
// (so the benchmark's CPU time is the agent's, not the server's).
const llmEnv = "CO_TELEMETRY_TEST_LLM_TURNS"

// benchReplies is one turn: a reply with text and a tool call, then an
// answer of 400 characters in 100 streamed chunks.
func benchReplies() []llmtest.Reply {
	return []llmtest.Reply{
		{Text: "Let me check that.", ToolCalls: []llmtest.ToolCall{{Name: "echo_text", Args: `{"text":"hello world"}`}}, Usage: &llmtest.Usage{PromptTokens: 900, CompletionTokens: 20}},
		{Text: strings.Repeat("The answer is here. ", 20), Usage: &llmtest.Usage{PromptTokens: 950, CompletionTokens: 100}},
	}
}

func TestLLMServerHelper(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv(llmEnv))
	if n == 0 {
		t.Skip("a helper process for BenchmarkAgentTurn")
	}
	srv, err := llmtest.NewServerAt("127.0.0.1:0")
	if err != nil {
		fmt.Println("ERR", err)
		os.Exit(2)
	}
	var script []llmtest.Reply
	for i := 0; i < n; i++ {
		script = append(script, benchReplies()...)
	}
	srv.Script(script...)
	fmt.Println("URL", srv.URL)
	_, _ = io.Copy(io.Discard, os.Stdin) // until the benchmark is done
	srv.Close()
	os.Exit(0)
}

// startLLM starts the helper process scripted for n turns.
func startLLM(b *testing.B, n int) string {
	b.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLLMServerHelper$")
	cmd.Env = append(os.Environ(), llmEnv+"="+strconv.Itoa(n))
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { in.Close(); _ = cmd.Wait() })
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if u, ok := strings.CutPrefix(sc.Text(), "URL "); ok {
			go func() { _, _ = io.Copy(io.Discard, out) }() // drains the pipe; it ends when the child does
			return u
		}
	}
	b.Fatal("the LLM helper did not start")
	return ""
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// sseTransport answers every request with the same recorded stream (the
// shape of agent's BenchmarkAgentChunk: no network, so the turn's CPU time
// is the agent's own).
type sseTransport struct{ body []byte }

func (t sseTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	_, _ = io.Copy(io.Discard, r.Body)
	r.Body.Close()
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body: io.NopCloser(bytes.NewReader(t.body)), Request: r}, nil
}

// sseBody is a streamed reply of n four-character chunks, as in
// agent/bench_test.go.
func sseBody(n int) []byte {
	var b bytes.Buffer
	for i := 0; i < n; i++ {
		b.WriteString(`data: {"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"abcd"},"finish_reason":null}]}` + "\n\n")
	}
	b.WriteString(`data: {"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n")
	b.WriteString(`data: {"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}` + "\n\n")
	b.WriteString("data: [DONE]\n\n")
	return b.Bytes()
}

// BenchmarkAgentTurn: the process's CPU time per turn without tracing (the
// no-op tracer) and with co's tracing (TracerProvider, batching, redaction,
// content capture, the SQLite store; "-panel" also drains the side panel's
// feed). Two turns:
//
//   - stream: agent's own benchmark turn (BenchmarkAgentChunk): one reply of
//     2,000 streamed chunks from a recorded body, 10 earlier messages;
//   - tools: a reply with a tool call, the tool, then a 100-chunk answer,
//     from agent/llmtest in a separate process over loopback HTTP.
//
// The store's one-off opening is outside the measure; the writes are in it
// (flushed before the clock stops). Compare cpu-µs/turn across variants of
// a shape: scripts/bench-telemetry.sh runs them interleaved.
func BenchmarkAgentTurn(b *testing.B) {
	for _, shape := range []string{"stream", "tools"} {
		for _, variant := range []string{"noop", "traced", "traced-panel"} {
			b.Run(shape+"/"+variant, func(b *testing.B) { benchTurns(b, shape, variant) })
		}
	}
}

func benchTurns(b *testing.B, shape, variant string) {
	ag, tr := benchAgent(b, shape, variant, b.N+1)
	ag.turn() // warm up: connections, and the store opened
	if tr != nil {
		_ = tr.ForceFlush(context.Background())
	}
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		ag.turn()
	}
	if tr != nil {
		if err := tr.ForceFlush(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "cpu-µs/turn")
}

// benchAgent is an agent for a shape of turn and a tracing variant; its
// turn method runs one turn. For the tools shape, turns > 0 starts the
// scripted server (shared by the agents made after it).
type benchAgentT struct {
	b      *testing.B
	ag     *agent.Agent
	hist   []message.Message
	prompt string
	n      int
}

var benchLLM string

func benchAgent(b *testing.B, shape, variant string, turns int) (*benchAgentT, *telemetry.Tracing) {
	cfg := agent.Config{SystemPrompt: "You are a benchmark.", SessionID: "bench",
		Approvals: agent.NewApprovals(agent.ApprovalOptions{Isolated: true})}
	ba := &benchAgentT{b: b, prompt: "please check the thing"}
	switch shape {
	case "stream":
		cfg.Provider = provider.Provider{Name: "openai", Model: "m", BaseURL: "http://bench.invalid/v1", APIKey: "sk-bench-key-0123456789"}
		cfg.Transport = sseTransport{sseBody(2000)}
		for i := 0; i < 10; i++ {
			role := message.RoleUser
			if i%2 == 1 {
				role = message.RoleAssistant
			}
			ba.hist = append(ba.hist, message.Message{Role: role, Content: strings.Repeat("earlier message text ", 10)})
		}
		ba.prompt = "go"
	case "tools":
		if turns > 0 {
			benchLLM = startLLM(b, turns)
		}
		cfg.Tools, _ = tools.NewRegistry(echoTool{})
		cfg.Provider = provider.Provider{Name: "openai", BaseURL: benchLLM, APIKey: "sk-bench-key-0123456789", Model: "test-model"}
	}
	var tr *telemetry.Tracing
	if variant != "noop" {
		var err error
		tr, err = telemetry.Setup(telemetry.Options{DBPath: telemetry.DBPath(b.TempDir()), SessionID: "bench", ServiceVersion: "bench",
			Secrets: []string{"sk-bench-key-0123456789"}, CaptureContent: true, NoPrune: true})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = tr.Shutdown(context.Background()) })
		cfg.Tracer = tr.Tracer()
		if variant == "traced-panel" {
			ch, stop := tr.Feed().Subscribe(256)
			b.Cleanup(stop)
			go func() {
				for range ch {
				}
			}()
		}
	}
	ba.ag = agent.New(cfg)
	return ba, tr
}

func (ba *benchAgentT) turn() {
	if ba.hist != nil {
		ba.ag.SetHistory(ba.hist)
	}
	var last agent.Event
	for ev := range ba.ag.Submit(context.Background(), ba.prompt) {
		last = ev
	}
	if _, ok := last.(agent.TurnFinished); !ok {
		ba.b.Fatalf("turn: %#v", last)
	}
	ba.n++
	if ba.hist == nil && ba.n%50 == 0 {
		ba.ag.Reset() // keep the tools turn's history of ordinary size
	}
}

// BenchmarkTracingOverhead runs a no-op-traced agent and a traced one in
// the same process, alternating turn by turn (each round the other one
// first), and reports each one's mean CPU per turn and the overhead: the
// ratio of the sums of CPU time over the same turns, minus one.
// Alternating cancels the drift of a shared machine's load, which swamps a
// few percent when the variants run one after the other. The traced turn
// ends with a flush, as an interactive turn does (its spans are one batch,
// one transaction): what the export goroutine does is in the turn's CPU.
// "traced" is co run and --plain; "panel" also has the side panel's feed
// subscribed and drained by a goroutine, as the full-screen chat has. The
// GC work of either agent may land in the other's turns.
func BenchmarkTracingOverhead(b *testing.B) {
	for _, shape := range []string{"stream", "tools"} {
		for _, variant := range []string{"traced", "panel"} {
			b.Run(shape+"/"+variant, func(b *testing.B) {
				replies := 0
				if shape == "tools" {
					replies = 2*b.N + 2
				}
				noop, _ := benchAgent(b, shape, "noop", replies)
				v := "traced"
				if variant == "panel" {
					v = "traced-panel"
				}
				traced, tr := benchAgent(b, shape, v, 0)
				agents := [2]struct {
					ag    *benchAgentT
					flush func()
					cpu   []time.Duration
					sum   time.Duration
				}{{ag: noop, flush: func() {}}, {ag: traced, flush: func() { _ = tr.ForceFlush(context.Background()) }}}
				for i := -1; i < b.N; i++ { // i == -1 warms both up
					for j := range agents {
						a := &agents[(i+1+j)%2]
						c0 := cpuTime()
						a.ag.turn()
						a.flush()
						if c := cpuTime() - c0; i >= 0 {
							a.cpu, a.sum = append(a.cpu, c), a.sum+c
						}
					}
				}
				for k, name := range []string{"noop", variant} {
					a := &agents[k]
					b.ReportMetric(float64(a.sum.Microseconds())/float64(len(a.cpu)), name+"-cpu-µs/turn")
				}
				b.ReportMetric((float64(agents[1].sum)/float64(agents[0].sum)-1)*100, "overhead-%")
			})
		}
	}
}
