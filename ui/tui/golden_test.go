package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/provider"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/telemetry"
	"github.com/co-cli/co/tools"
)

// Golden views of each pane at 80 and 120 columns in both themes. Refresh
// with: go test ./ui/tui/ -run TestGolden -update
var goldenSizes = []int{80, 120}
var goldenThemes = []string{"light", "dark"}

func goldenApp(t *testing.T, theme string, width int, prov agent.Config) *App {
	t.Helper()
	clock := newClock()
	if prov.Provider.Name == "" && prov.ProviderErr == nil {
		prov.Provider = provider.Provider{Name: "openai", Model: "test-model", BaseURL: "http://127.0.0.1:9/v1"}
	}
	ag := agent.New(prov)
	a := New(context.Background(), Options{
		Agent:   ag,
		Theme:   theme,
		Environ: []string{},
		Now:     clock.Now,
		Welcome: Welcome{Version: "1.2.3", DataDir: "/home/u/.local/share/co-cli", Isolation: "full", Tools: 9},
	})
	t.Cleanup(a.close)
	a.Update(windowSize(width, 34))
	return a
}

func fillTranscript(a *App) {
	now := a.now()
	a.chat.Add(newUserEntry("How do I list the files here, and what is in go.mod?"))
	r := &assistantEntry{}
	r.append("Here is the plan:\n\n1. list the files with `ls -la`\n2. read **go.mod**\n\n```go\nmodule example.com/demo\n\ngo 1.26\n```\n\nSee [the docs](https://go.dev/ref/mod) for more.")
	r.finish(false)
	a.chat.Add(r)
	done := newToolEntry(agent.ToolCallStarted{CallID: "1", Name: "run_shell_command", Args: `{"cmd":"ls -la"}`}, now)
	done.finish(agent.ToolCallFinished{CallID: "1", Status: message.CallDone, Duration: 85 * time.Millisecond,
		Result: tools.Text("total 16\ndrwxr-xr-x  4 u u 4096 .\n-rw-r--r--  1 u u  120 go.mod\n-rw-r--r--  1 u u  300 main.go\n-rw-r--r--  1 u u   10 a\n-rw-r--r--  1 u u   10 b\n-rw-r--r--  1 u u   10 c\n-rw-r--r--  1 u u   10 d")})
	a.chat.Add(done)
	failed := newToolEntry(agent.ToolCallStarted{CallID: "2", Name: "read_file", Args: `{"path":"go.sum"}`}, now)
	failed.finish(agent.ToolCallFinished{CallID: "2", Status: message.CallFailed, Err: "open go.sum: no such file", Duration: 3 * time.Millisecond})
	a.chat.Add(failed)
	denied := newToolEntry(agent.ToolCallStarted{CallID: "3", Name: "run_shell_command", Args: `{"cmd":"rm -rf build"}`}, now)
	denied.finish(agent.ToolCallFinished{CallID: "3", Status: message.CallDenied, Decision: message.ByUserDenied})
	a.chat.Add(denied)
	running := newToolEntry(agent.ToolCallStarted{CallID: "4", Name: "web_fetch", Args: `{"url":"https://example.com"}`}, now.Add(-1200*time.Millisecond))
	a.chat.SetNow(now)
	a.chat.Add(running)
	a.chat.Add(newNotice(noticeInfo, "rate limited; retrying in 2s"))
	a.chat.Add(newNotice(noticeError, "The model called read_file wrongly 3 times in a row."))
}

func TestGoldenChat(t *testing.T) {
	for _, theme := range goldenThemes {
		for _, w := range goldenSizes {
			t.Run(fmt.Sprintf("%s/%d", theme, w), func(t *testing.T) {
				a := goldenApp(t, theme, w, agent.Config{})
				fillTranscript(a)
				a.queue = []queued{{text: "and then run the tests"}}
				a.layout()
				golden.RequireEqual(t, a.View().Content)
			})
		}
	}
}

func TestGoldenModal(t *testing.T) {
	req := agent.ApprovalRequested{Calls: []agent.PendingCall{
		{CallID: "1", Tool: message.BangTool, Args: `{"cmd":"git push --force origin main"}`,
			Check: tools.Check{Decision: tools.Ask, Reason: "git push is not on the safe list", Scope: "shell:git push", ScopeLabel: "git push"}},
		{CallID: "2", Tool: "edit_file", Args: `{"path":"main.go","old":"fmt.Println(\"hi\")","new":"fmt.Println(\"hello\")"}`,
			Check: tools.Check{Decision: tools.Ask, Reason: "edits a file", Preview: "--- a/main.go\n+++ b/main.go\n@@ -3,1 +3,1 @@\n-\tfmt.Println(\"hi\")\n+\tfmt.Println(\"hello\")", AlwaysAsk: true}},
	}}
	for _, theme := range goldenThemes {
		for _, w := range goldenSizes {
			for i := range req.Calls {
				t.Run(fmt.Sprintf("%s/%d/call%d", theme, w, i+1), func(t *testing.T) {
					a := goldenApp(t, theme, w, agent.Config{})
					fillTranscript(a)
					a.modal = NewModal(req, a.th, a.mkeys, a.width, a.height-1, a.now())
					if i == 1 {
						a.modal.HandleKey(keyMsg("y"), a.now().Add(time.Second))
					}
					a.modal.armed = true
					golden.RequireEqual(t, a.View().Content)
				})
			}
		}
	}
}

func TestGoldenSidePanel(t *testing.T) {
	base := time.Date(2025, 3, 4, 5, 6, 0, 0, time.UTC)
	spans := []telemetry.SpanEvent{
		{SpanID: "a", Name: "invoke_agent", Start: base, End: base.Add(2300 * time.Millisecond)},
		{SpanID: "b", ParentID: "a", Name: "chat gemini-2.5-flash", Start: base, End: base.Add(900 * time.Millisecond)},
		{SpanID: "c", ParentID: "a", Name: "execute_tool run_shell_command", Start: base.Add(time.Second), End: base.Add(1100 * time.Millisecond), Error: true, Status: "exit 1"},
		{SpanID: "d", ParentID: "a", Name: "chat gemini-2.5-flash", Start: base.Add(1200 * time.Millisecond), End: base.Add(2300 * time.Millisecond)},
		{SpanID: "e", Name: "invoke_agent", Start: base.Add(5 * time.Second), Running: true},
		{SpanID: "f", ParentID: "e", Name: "chat gemini-2.5-flash", Start: base.Add(5 * time.Second), Running: true},
	}
	for _, theme := range goldenThemes {
		for _, w := range []int{30, 44} {
			t.Run(fmt.Sprintf("%s/%d", theme, w), func(t *testing.T) {
				th := NewTheme(theme, false)
				p := NewSidePanel(&th)
				p.SetSize(w, 10)
				for _, s := range spans {
					p.Apply(s)
				}
				p.Tick(base.Add(6500 * time.Millisecond))
				golden.RequireEqual(t, p.View())
			})
		}
	}
}

func TestGoldenStatusBar(t *testing.T) {
	states := map[string]StatusInfo{
		"sandboxed":   {Provider: "gemini", Model: "gemini-2.5-flash", Isolation: "full", TurnTokens: 1234, SessionTokens: 56789},
		"unsandboxed": {Provider: "ollama", Model: "qwen3:8b", Isolation: "none", Unsandboxed: true, Yolo: true, Grants: 2, TurnTokens: 10, SessionTokens: 20},
		"resolving":   {Resolving: true, Isolation: "full"},
		"noprovider":  {NoProvider: true, Unsandboxed: true},
		"reported":    {Provider: "gemini", Model: "gemini-flash-latest", Reported: "gemini-3.5-flash", Isolation: "full", TurnTokens: 10, SessionTokens: 20},
	}
	for name, info := range states {
		for _, theme := range goldenThemes {
			for _, w := range goldenSizes {
				t.Run(fmt.Sprintf("%s/%s/%d", name, theme, w), func(t *testing.T) {
					th := NewTheme(theme, false)
					s := NewStatusBar(&th)
					s.SetWidth(w)
					s.SetInfo(info)
					if name == "sandboxed" {
						now := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
						s.Start(now)
						s.now = now.Add(3200 * time.Millisecond)
						s.refresh()
					}
					golden.RequireEqual(t, s.View())
				})
			}
		}
	}
}

func TestGoldenFirstRun(t *testing.T) {
	for _, theme := range goldenThemes {
		for _, w := range goldenSizes {
			t.Run(fmt.Sprintf("%s/%d", theme, w), func(t *testing.T) {
				err := errors.New("no LLM provider is configured: set GEMINI_API_KEY for Gemini, or start Ollama (`ollama serve`, OLLAMA_HOST=http://localhost:11434), or set OPENAI_BASE_URL (with LLM_PROVIDER=openai) for any OpenAI-compatible server")
				a := goldenApp(t, theme, w, agent.Config{ProviderErr: err})
				golden.RequireEqual(t, a.View().Content)
			})
		}
	}
}

func TestGoldenNoColor(t *testing.T) {
	clock := newClock()
	ag := agent.New(agent.Config{Provider: provider.Provider{Name: "openai", Model: "m"}})
	a := New(context.Background(), Options{Agent: ag, Environ: []string{"NO_COLOR=1"}, Now: clock.Now,
		Welcome: Welcome{Version: "1.2.3", DataDir: "/d", Isolation: "none", Unsandboxed: true}})
	a.Update(windowSize(80, 30))
	fillTranscript(a)
	v := a.View().Content
	if strings.Contains(v, "\x1b[38;") || strings.Contains(v, "\x1b[48;") {
		t.Errorf("NO_COLOR view has colours")
	}
	// internal/cli reads NO_COLOR (once, for every front end) and says it
	// as Options.NoColor: the same view.
	b := New(context.Background(), Options{Agent: ag, Environ: []string{}, NoColor: true, Now: clock.Now,
		Welcome: Welcome{Version: "1.2.3", DataDir: "/d", Isolation: "none", Unsandboxed: true}})
	b.Update(windowSize(80, 30))
	fillTranscript(b)
	if w := b.View().Content; w != v {
		t.Errorf("Options.NoColor draws another view than NO_COLOR in the environment:\n%s", w)
	}
	golden.RequireEqual(t, v)
}
