package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/agent/llmtest"
)

// chatOnlyProxy forwards chat requests (POST) to srv and answers anything
// else 404, as a proxy in front of llama-server that serves no /props: co
// cannot learn the window before its first request. It returns the base
// URL to give co.
func chatOnlyProxy(t *testing.T, srv *llmtest.Server) string {
	t.Helper()
	target, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: target.Scheme, Host: target.Host})
	px := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(px.Close)
	return px.URL + "/v1"
}

func onlyCoreTools(r llmtest.Request) bool {
	for _, tool := range r.Body.Tools {
		if name := tool.Function.Name; name != "run_shell_command" && !strings.Contains(name, "file") && name != "list_directory" {
			return false
		}
	}
	return len(r.Body.Tools) > 0
}

// co run "hi" on llama-server -c 2048 whose window co could not learn
// beforehand: the whole tool set is over the window, llama-server answers
// its 400 (n_prompt_tokens, n_ctx), and co tries once more with the shell
// and file tools only; the answer comes.
func TestRunLlamaCppFirstRequestOverRetriesSmaller(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.SetProfile(llmtest.ProfileLlamaCpp)
	srv.SetLlamaContext(2048)
	srv.Script(llmtest.Reply{Text: "small"})
	out, errOut, code := runCo(t, t.TempDir(), env(t, srv, "OPENAI_BASE_URL="+chatOnlyProxy(t, srv)), "", "run", "hi")
	if code != 0 || out != "small\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want the refused one and one retry; stderr %q", len(reqs), errOut)
	}
	first := llmtest.PromptTokens(reqs[0])
	if first < 2048 || onlyCoreTools(reqs[0]) {
		t.Fatalf("first request: %d tokens, %d tools", first, len(reqs[0].Body.Tools))
	}
	if !onlyCoreTools(reqs[1]) || llmtest.PromptTokens(reqs[1]) >= 2048 {
		t.Fatalf("retry: %d tokens, %d tools", llmtest.PromptTokens(reqs[1]), len(reqs[1].Body.Tools))
	}
	if want := fmt.Sprintf("llama.cpp refused the request as longer than its context window (%d tokens sent, 2048 in the window)", first); !strings.Contains(errOut, want) {
		t.Fatalf("stderr lacks %q:\n%s", want, errOut)
	}
}

// co run "hi" on llama-server -c 2048 with a tokenizer that counts 1.7
// times co's estimate (issue 39: 2,172 tokens for co's smallest request):
// even the shell and file tools with the compact prompt are over. The
// retry goes without tools (agent/bare.go) and is answered; stderr says
// why the model had no tools.
func TestRunLlamaCppWindowTooSmallForToolsAnswersWithout(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.SetProfile(llmtest.ProfileLlamaCpp)
	srv.SetLlamaContext(2048)
	srv.SetTokenScale(1.7)
	srv.SetDefault(llmtest.Reply{Text: "hello"})
	out, errOut, code := runCo(t, t.TempDir(), env(t, srv), "", "run", "hi")
	if code != 0 || out != "hello\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || !onlyCoreTools(reqs[0]) || len(reqs[1].Body.Tools) != 0 {
		t.Fatalf("%d requests; want the refused one with the core tools, then one without tools; stderr %q", len(reqs), errOut)
	}
	if msg := strings.Join(strings.Fields(errOut), " "); !strings.Contains(msg, "co sends it without tools") || !strings.Contains(msg, "-c") {
		t.Fatalf("stderr does not say the request went without tools:\n%s", errOut)
	}
}

// The same server and a prompt too long even without tools: one request,
// then a message with the server's two numbers and what to do; nothing was
// summarised, and it does not say so.
func TestRunLlamaCppWindowTooSmallSaysBothNumbers(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.SetProfile(llmtest.ProfileLlamaCpp)
	srv.SetLlamaContext(2048)
	srv.SetTokenScale(1.7)
	srv.Script(llmtest.Reply{Text: "never"})
	out, errOut, code := runCo(t, t.TempDir(), env(t, srv), "", "run", "hi "+strings.Repeat("word ", 1000))
	if code == 0 || out != "" {
		t.Fatalf("exit %d, stdout %q", code, out)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests; a retry of the smallest request could only be refused again; stderr %q", len(reqs), errOut)
	}
	counted := int(float64(llmtest.PromptTokens(reqs[0]))*1.7 + 0.5)
	msg := strings.Join(strings.Fields(errOut), " ")
	for _, want := range []string{
		fmt.Sprintf("llama.cpp refused the request: its %d tokens (n_prompt_tokens) do not fit the server's context window of 2048 tokens (n_ctx)", counted),
		"Start llama-server with a larger context (-c 4096 or more)", "llm_context_window", "fewer tools (llm_tool_groups)",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if strings.Contains(errOut, "summaris") {
		t.Errorf("nothing was summarised:\n%s", errOut)
	}
}

// co run "hi" on llama-server without --jinja: its 500 "tools param
// requires --jinja flag" comes once, is not retried as a failure, and the
// request goes again without tools; co answers and says once how to get
// them.
func TestRunLlamaCppWithoutJinja(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.SetProfile(llmtest.ProfileLlamaCpp)
	srv.SetLlamaContext(32768)
	srv.SetLlamaNoJinja(true)
	srv.Script(llmtest.Reply{Text: "hello"})
	out, errOut, code := runCo(t, t.TempDir(), env(t, srv), "", "run", "hi")
	if code != 0 || out != "hello\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	reqs := srv.Requests()
	withTools := 0
	for _, r := range reqs {
		if len(r.Body.Tools) > 0 {
			withTools++
		}
	}
	if len(reqs) != 2 || withTools != 1 || len(reqs[0].Body.Tools) == 0 {
		t.Fatalf("%d requests, %d with tools; want one with tools, then one without", len(reqs), withTools)
	}
	if n := strings.Count(errOut, "start llama-server with --jinja"); n != 1 || strings.Contains(errOut, "retrying") {
		t.Fatalf("stderr:\n%s", errOut)
	}
}

var llamaProviderLine = regexp.MustCompile(`provider +llama\.cpp \(build ` + regexp.QuoteMeta(llmtest.LlamaBuild) + `\)`)

// co status and /status name llama-server as llama.cpp, from its /props.
func TestStatusNamesLlamaCpp(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.SetProfile(llmtest.ProfileLlamaCpp)
	out, _, code := runCo(t, t.TempDir(), env(t, srv), "", "status")
	if code != 0 || !llamaProviderLine.MatchString(out) {
		t.Fatalf("co status: exit %d\n%s", code, out)
	}

	srv.Script(llmtest.Reply{Text: "answered"})
	p := start(t, t.TempDir(), env(t, srv), "--plain")
	p.waitFor("co> ", 10*time.Second)
	p.send("hi")
	p.waitFor("answered", 30*time.Second)
	// /status reads no network: the name is there once the background ask
	// of /props (started with the chat) has answered.
	for deadline := hangDeadline(time.Minute); ; {
		mark := len(p.stdout.String())
		p.waitForNew("config files", 30*time.Second, func() { p.send("/status") })
		shown := p.stdout.String()[mark:]
		if llamaProviderLine.MatchString(shown) {
			break
		}
		if !strings.Contains(shown, "provider") || time.Now().After(deadline) {
			t.Fatalf("/status:\n%s", shown)
		}
	}
	p.send("exit")
	if code := p.wait(20 * time.Second); code != 0 {
		t.Errorf("exit %d", code)
	}
}
