package e2e

import (
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/co-cli/co/agent/llmtest"
)

// The built binary against imitations of today's providers
// (agent/llmtest's profiles), as a new user would run it.

func profileServer(t *testing.T, p llmtest.Profile) *llmtest.Server {
	t.Helper()
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	srv.SetProfile(p)
	return srv
}

// geminiEnv is co's environment with nothing set but a Gemini key (and
// where the imitation listens).
func geminiEnv(t *testing.T, srv *llmtest.Server, home string) []string {
	srv.SetAPIKey("AIza-test-key")
	return withHome(env(t, nil, "GEMINI_API_KEY=AIza-test-key", "GEMINI_BASE_URL="+srv.URL), home)
}

// withHome points co's home and data dirs at home, so that two runs share
// their sessions.
func withHome(e []string, home string) []string {
	out := e[:0:0]
	for _, kv := range e {
		if strings.HasPrefix(kv, "HOME=") || strings.HasPrefix(kv, "XDG_CONFIG_HOME=") || strings.HasPrefix(kv, "XDG_DATA_HOME=") {
			continue
		}
		out = append(out, kv)
	}
	return append(out, "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "XDG_DATA_HOME="+filepath.Join(home, ".local", "share"))
}

func workspace(t *testing.T) string {
	dir := t.TempDir()
	for _, f := range []string{"a.txt", "b.txt", "c.txt"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("contents of "+f+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func read(path string) llmtest.ToolCall {
	return llmtest.ToolCall{Name: "read_file", Args: `{"path":"` + path + `"}`}
}

func TestGeminiDefaultAnswersWithOnlyAKey(t *testing.T) {
	srv := profileServer(t, llmtest.ProfileGemini)
	srv.Script(llmtest.Reply{Text: "Hello! How can I help?"})
	out, errOut, code := runCo(t, t.TempDir(), geminiEnv(t, srv, t.TempDir()), "", "run", "hello")
	if code != 0 || out != "Hello! How can I help?\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if m := srv.Requests()[0].Body.Model; m != "gemini-flash-latest" {
		t.Errorf("the default model sent is %q, want Google's alias gemini-flash-latest", m)
	}
	if h := srv.Requests()[0].Header.Get("Authorization"); h != "Bearer AIza-test-key" {
		t.Errorf("Authorization = %q", h)
	}
}

// A turn with two parallel calls and a second step, then --continue and
// another tool turn: every follow-up must carry the signatures Gemini
// issued, or the imitation answers 400 as Gemini does.
func TestGeminiSignedToolTurnsAndContinue(t *testing.T) {
	srv := profileServer(t, llmtest.ProfileGemini)
	srv.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{read("a.txt"), read("b.txt")}},
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{read("c.txt")}},
		llmtest.Reply{Text: "All three read."},
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{read("a.txt")}},
		llmtest.Reply{Text: "Read again."},
	)
	dir, home := workspace(t), t.TempDir()
	e := geminiEnv(t, srv, home)
	out, errOut, code := runCo(t, dir, e, "", "run", "read a, b, then c")
	if code != 0 || out != "All three read.\n" {
		t.Fatalf("first turn: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	out, errOut, code = runCo(t, dir, e, "", "run", "--continue", "read a again")
	if code != 0 || out != "Read again.\n" {
		t.Fatalf("continued turn: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	reqs := srv.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d requests, want 5", len(reqs))
	}
	issued := map[string]bool{}
	for _, s := range srv.ThoughtSignatures() {
		issued[s] = true
	}
	// The last request carries the whole history: every step's first call
	// with the signature Gemini issued for it, verbatim; the parallel
	// second call with none.
	var firsts []string
	for _, m := range reqs[4].Messages() {
		if len(m.ToolCalls) == 0 {
			continue
		}
		sig, _ := m.ToolCalls[0].ThoughtSignature()
		if !issued[sig] {
			t.Errorf("step %d went back with signature %q, which Gemini never issued", len(firsts)+1, sig)
		}
		firsts = append(firsts, sig)
		for _, c := range m.ToolCalls[1:] {
			if _, ok := c.ThoughtSignature(); ok {
				t.Errorf("a parallel call got a signature of its own")
			}
		}
	}
	if len(firsts) != 3 {
		t.Errorf("%d signed steps went back, want 3", len(firsts))
	}
}

// A conversation held with another provider goes on with Gemini: its calls
// have no signatures, and co sends Google's documented placeholder.
func TestOpenAIHistoryContinuesOnGemini(t *testing.T) {
	oa := profileServer(t, llmtest.ProfileOpenAI)
	oa.Script(llmtest.Reply{ToolCalls: []llmtest.ToolCall{read("a.txt")}}, llmtest.Reply{Text: "Read."})
	dir, home := workspace(t), t.TempDir()
	out, errOut, code := runCo(t, dir, withHome(env(t, oa, "OPENAI_MODEL=gpt-5"), home), "", "run", "read a")
	if code != 0 || out != "Read.\n" {
		t.Fatalf("openai turn: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	gm := profileServer(t, llmtest.ProfileGemini)
	gm.Script(llmtest.Reply{ToolCalls: []llmtest.ToolCall{read("b.txt")}}, llmtest.Reply{Text: "Read b."})
	out, errOut, code = runCo(t, dir, geminiEnv(t, gm, home), "", "run", "--continue", "now read b")
	if code != 0 || out != "Read b.\n" {
		t.Fatalf("continued on gemini: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	msgs := gm.Requests()[0].Messages()
	var old *llmtest.WireMessage
	for i := range msgs {
		if len(msgs[i].ToolCalls) > 0 {
			old = &msgs[i]
			break
		}
	}
	if old == nil {
		t.Fatal("the OpenAI turn's call is not in the history sent to Gemini")
	}
	if sig, _ := old.ToolCalls[0].ThoughtSignature(); sig != "skip_thought_signature_validator" {
		t.Errorf("the OpenAI call went to Gemini without the placeholder signature: %+v", old)
	}
}

// DeepSeek and vLLM: a two-step tool turn completes only if each step's
// reasoning goes back (DeepSeek answers 400 otherwise); after --continue,
// another tool turn completes too.
func TestThinkingProvidersGetTheirReasoningBack(t *testing.T) {
	for _, tc := range []struct {
		profile llmtest.Profile
		model   string
		field   string
	}{
		{llmtest.ProfileDeepSeek, "deepseek-v4-flash", "reasoning_content"},
		{llmtest.ProfileVLLM, "Qwen/Qwen3-8B", "reasoning"},
	} {
		t.Run(string(tc.profile), func(t *testing.T) {
			srv := profileServer(t, tc.profile)
			srv.SetModels(tc.model)
			srv.Script(
				llmtest.Reply{Reasoning: "I should read a.", ToolCalls: []llmtest.ToolCall{read("a.txt")}},
				llmtest.Reply{Reasoning: "Now b.", ToolCalls: []llmtest.ToolCall{read("b.txt")}},
				llmtest.Reply{Reasoning: "Both read.", Text: "Done."},
				llmtest.Reply{Reasoning: "Read c.", ToolCalls: []llmtest.ToolCall{read("c.txt")}},
				llmtest.Reply{Text: "Done again."},
			)
			dir, home := workspace(t), t.TempDir()
			e := withHome(env(t, srv, "OPENAI_MODEL="+tc.model), home)
			out, errOut, code := runCo(t, dir, e, "", "run", "read a then b")
			if code != 0 || out != "Done.\n" {
				t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
			}
			out, errOut, code = runCo(t, dir, e, "", "run", "--continue", "read c")
			if code != 0 || out != "Done again.\n" {
				t.Fatalf("continued: exit %d, stdout %q, stderr %q", code, out, errOut)
			}
			reqs := srv.Requests()
			// Request 3 (the second step's answer) carries both steps'
			// reasoning in the provider's field.
			var got []string
			for _, m := range reqs[2].Messages() {
				if m.Role != "assistant" {
					continue
				}
				v := m.ReasoningContent
				if tc.field == "reasoning" {
					v = m.Reasoning
				}
				if v == nil {
					t.Fatalf("an assistant message of the tool turn went without %s", tc.field)
				}
				got = append(got, *v)
			}
			if strings.Join(got, "|") != "I should read a.|Now b." {
				t.Errorf("reasoning sent back: %q", got)
			}
		})
	}
}

// OpenAI's gpt-5 rejects max_tokens and a temperature; co sends
// max_completion_tokens and no temperature, so the configured values do
// not break it.
func TestGPT5AnswersWithLimitsConfigured(t *testing.T) {
	srv := profileServer(t, llmtest.ProfileOpenAI)
	srv.Script(llmtest.Reply{Text: "Fine."})
	out, errOut, code := runCo(t, t.TempDir(), env(t, srv, "OPENAI_MODEL=gpt-5", "CO_CLI_LLM_MAX_TOKENS=300", "CO_CLI_LLM_TEMPERATURE=0.2"), "", "run", "hi")
	if code != 0 || out != "Fine.\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	f := srv.Requests()[0].Fields()
	if _, ok := f["max_tokens"]; ok {
		t.Error("max_tokens was sent to gpt-5")
	}
	if _, ok := f["temperature"]; ok {
		t.Error("temperature was sent to gpt-5")
	}
	if string(f["max_completion_tokens"]) != "300" {
		t.Errorf("max_completion_tokens = %s", f["max_completion_tokens"])
	}
}

// countingRelay forwards TCP connections to target and counts them. It
// also watches for one request (a line such as "GET /path") and says when
// the answer to it has started back to the client.
type countingRelay struct {
	ln       net.Listener
	conns    atomic.Int32
	back     atomic.Int64 // bytes from target back to the client
	watch    string       // the request line's start to watch for
	asked    atomic.Bool  // watch has gone to the target
	answered chan struct{}
	once     sync.Once
}

func newCountingRelay(t *testing.T, target, watch string) *countingRelay {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &countingRelay{ln: ln, watch: watch, answered: make(chan struct{})}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			r.conns.Add(1)
			up, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			go func() {
				var seen []byte // what went up, for watch split across reads
				for buf := make([]byte, 4096); ; {
					n, err := c.Read(buf)
					if n > 0 {
						if !r.asked.Load() {
							seen = append(seen, buf[:n]...)
							if strings.Contains(string(seen), "\r\n"+r.watch) || strings.HasPrefix(string(seen), r.watch) {
								r.asked.Store(true) // before the request goes up: its answer comes after
							}
						}
						if _, werr := up.Write(buf[:n]); werr != nil {
							break
						}
					}
					if err != nil {
						break
					}
				}
				up.Close()
			}()
			go func() {
				for buf := make([]byte, 4096); ; {
					n, err := up.Read(buf)
					if n > 0 {
						r.back.Add(int64(n))
						if r.asked.Load() {
							r.once.Do(func() { close(r.answered) })
						}
						if _, werr := c.Write(buf[:n]); werr != nil {
							break
						}
					}
					if err != nil {
						break
					}
				}
				c.Close()
			}()
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return r
}

// Once the prompt is on screen, co opens the provider's connection before
// anything is typed, and the first prompt's request uses it.
func TestConnectionIsWarmBeforeTheFirstPrompt(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(llmtest.Reply{Text: "warm reply"})
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	// The warm-up is a HEAD and then the context window's questions, the
	// last of them LM Studio's /api/v0/models (agent/budget.go, askWindow):
	// the warm connection is busy until that is answered, and a prompt sent
	// before then would rightly take another. Once the answer is on its way
	// back the test needs no clock of its own: a turn first waits for the
	// window being learned (awaitWindow, up to learnWait's 500 ms of co's
	// own), and learning ends as soon as co has read that answer, with the
	// connection back in the pool.
	relay := newCountingRelay(t, u.Host, "GET /api/v0/models ")
	base := "http://" + relay.ln.Addr().String() + "/v1"
	p := start(t, t.TempDir(), env(t, nil, "LLM_PROVIDER=openai", "OPENAI_BASE_URL="+base, "OPENAI_MODEL=test-model", "OPENAI_API_KEY=sk-test"), "--plain")
	p.waitFor("co> ", 60*time.Second)
	select {
	case <-relay.answered:
	case <-time.After(60 * time.Second): // a hang detector, not a measure
		t.Fatalf("the warm-up never asked for the context window (%d connections, %d bytes back)", relay.conns.Load(), relay.back.Load())
	}
	if relay.conns.Load() != 1 {
		t.Fatalf("%d connections before the first prompt, want 1 (the warm one)", relay.conns.Load())
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("the warm-up made %d chat requests", n)
	}
	p.send("hello")
	p.waitFor("warm reply", 10*time.Second)
	if n := relay.conns.Load(); n != 1 {
		t.Errorf("the first prompt opened a connection of its own (%d in all)", n)
	}
	p.send("/exit")
	p.wait(10 * time.Second)
}
