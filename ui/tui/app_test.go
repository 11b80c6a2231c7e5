package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/agent/provider"
)

func TestStreamsReplyAsMarkdown(t *testing.T) {
	f := newFixture(t)
	f.srv.Script(llmtest.Reply{Text: "# Plan\n\nThis is **bold** and `code`.\n\n- first\n- second\n\n```go\nfunc main() {}\n```\n", ChunkSize: 3})
	d := newDriver(t, Options{Agent: f.ag}, 100, 40)
	d.typeText("hello")
	d.key("enter")
	d.until("the turn to end", d.idle)
	d.drain()
	s := d.screen()
	for _, want := range []string{"❯ hello", "Plan", "This is bold and", "code", "• first", "func main() {}"} {
		if !strings.Contains(s, want) {
			t.Errorf("screen lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "**bold**") || strings.Contains(s, "```") {
		t.Errorf("markdown was not rendered:\n%s", s)
	}
	if got := f.srv.Requests()[0].LastUserMessage(); got != "hello" {
		t.Errorf("sent %q", got)
	}
}

func TestApprovalKeys(t *testing.T) {
	tests := []struct {
		name      string
		keys      []string
		wantRuns  int
		wantGrant bool
		wantShown string
	}{
		{"y approves once", []string{"y"}, 1, false, "ran: git status"},
		{"n denies", []string{"n"}, 0, false, "denied by the user"},
		{"esc denies", []string{"esc"}, 0, false, "denied by the user"},
		{"a approves for the session", []string{"a"}, 1, true, "ran: git status"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.srv.Script(
				llmtest.Reply{ToolCalls: []llmtest.ToolCall{shellCall("c1", "git status")}},
				llmtest.Reply{Text: "all done"},
			)
			d := newDriver(t, Options{Agent: f.ag}, 100, 40)
			d.typeText("check git")
			d.key("enter")
			d.until("the modal", func() bool { return d.app.modal != nil })
			if s := d.screen(); !strings.Contains(s, "$ git status") || !strings.Contains(s, "Why it asks: commands run without a sandbox") ||
				!strings.Contains(s, "a approves for this session: git") {
				t.Fatalf("modal lacks the command, the reason or the scope:\n%s", s)
			}
			d.clock.Advance(ApprovalGrace + time.Millisecond)
			d.key(tt.keys...)
			if d.app.modal != nil {
				t.Fatalf("modal still open")
			}
			d.until("the turn to end", d.idle)
			d.drain()
			if got := len(f.shell.ran()); got != tt.wantRuns {
				t.Errorf("tool ran %d times, want %d", got, tt.wantRuns)
			}
			if got := len(f.ag.Approvals().Grants()) == 1; got != tt.wantGrant {
				t.Errorf("grant = %v, want %v (%+v)", got, tt.wantGrant, f.ag.Approvals().Grants())
			}
			if s := d.screen(); !strings.Contains(s, tt.wantShown) || !strings.Contains(s, "all done") {
				t.Errorf("screen lacks %q or the reply:\n%s", tt.wantShown, s)
			}
		})
	}
}

func TestKeysInTheGracePeriodNeverAnswer(t *testing.T) {
	f := newFixture(t)
	f.srv.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{shellCall("c1", "make deploy")}},
		llmtest.Reply{Text: "ok"},
	)
	d := newDriver(t, Options{Agent: f.ag}, 100, 40)
	d.typeText("deploy")
	d.key("enter")
	d.until("the modal", func() bool { return d.app.modal != nil })
	// The user keeps typing as the modal appears: y, then y 300 ms later
	// (still within 400 ms of the last key), then a.
	d.key("y")
	d.clock.Advance(300 * time.Millisecond)
	d.key("y")
	d.clock.Advance(300 * time.Millisecond)
	d.key("a")
	if d.app.modal == nil || len(f.shell.ran()) != 0 {
		t.Fatalf("a key typed in the grace period answered the modal")
	}
	if d.app.modal.Armed() {
		t.Fatalf("modal armed while keys keep coming")
	}
	if got := d.app.input.Value(); got != "yya" {
		t.Errorf("keys swallowed by the modal should reach the prompt, got %q", got)
	}
	d.clock.Advance(ApprovalGrace)
	d.key("n")
	d.until("the turn to end", d.idle)
	if len(f.shell.ran()) != 0 {
		t.Fatalf("denied call ran")
	}
}

func TestSeveralCallsAreAskedOneAtATime(t *testing.T) {
	f := newFixture(t)
	f.srv.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{shellCall("c1", "echo one"), shellCall("c2", "echo two"), shellCall("c3", "rm -rf build")}},
		llmtest.Reply{Text: "done"},
	)
	d := newDriver(t, Options{Agent: f.ag}, 120, 40)
	d.typeText("go")
	d.key("enter")
	d.until("the modal", func() bool { return d.app.modal != nil })
	answers := []string{"y", "n", "a", "y"} // "a" is refused for rm (always asks)
	wantCount := []string{"1 of 3", "2 of 3", "3 of 3", "3 of 3"}
	for i, k := range answers {
		if s := d.screen(); !strings.Contains(s, wantCount[i]) {
			t.Fatalf("step %d: modal lacks %q:\n%s", i, wantCount[i], s)
		}
		d.clock.Advance(ApprovalGrace + time.Millisecond)
		d.key(k)
		if i == 2 && !strings.Contains(d.screen(), "must be approved each time") {
			t.Fatalf("refused a should say why:\n%s", d.screen())
		}
	}
	d.until("the turn to end", d.idle)
	if got := strings.Join(f.shell.ran(), ","); got != "echo one,rm -rf build" {
		t.Fatalf("ran %q", got)
	}
	if len(f.ag.Approvals().Grants()) != 0 {
		t.Fatalf("an always-ask call got a grant")
	}
}

func TestCtrlCAtTheModalCancelsTheTurn(t *testing.T) {
	f := newFixture(t)
	f.srv.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{shellCall("c1", "sleep 100")}},
		llmtest.Reply{Text: "second turn works"},
	)
	d := newDriver(t, Options{Agent: f.ag}, 100, 40)
	d.typeText("go")
	d.key("enter")
	d.until("the modal", func() bool { return d.app.modal != nil })
	d.key("ctrl+c") // no grace for cancelling
	d.until("the turn to end", d.idle)
	if d.app.modal != nil || len(f.shell.ran()) != 0 || d.quit {
		t.Fatalf("modal %v, runs %v, quit %v", d.app.modal != nil, f.shell.ran(), d.quit)
	}
	if s := d.screen(); !strings.Contains(s, "Interrupted.") {
		t.Fatalf("no interruption shown:\n%s", s)
	}
	d.typeText("again")
	d.key("enter")
	d.until("the second turn", func() bool { return d.idle() && strings.Contains(d.screen(), "second turn works") })
	msgs := f.srv.Requests()[1].Body.Messages
	if len(msgs) < 4 {
		t.Fatalf("history after the interrupted turn: %+v", msgs)
	}
}

func TestCtrlCSequence(t *testing.T) {
	t.Run("twice within the window exits", func(t *testing.T) {
		d := newDriver(t, Options{Agent: newFixture(t).ag}, 100, 30)
		d.key("ctrl+c")
		d.drain()
		if d.quit || !strings.Contains(d.screen(), "Press Ctrl+C again to exit") {
			t.Fatalf("first ctrl+c: quit %v\n%s", d.quit, d.screen())
		}
		d.clock.Advance(1500 * time.Millisecond)
		d.key("ctrl+c")
		d.drain()
		if !d.quit {
			t.Fatal("second ctrl+c within 2 s did not exit")
		}
	})
	t.Run("after the window it warns again", func(t *testing.T) {
		d := newDriver(t, Options{Agent: newFixture(t).ag}, 100, 30)
		d.key("ctrl+c")
		d.clock.Advance(ExitWindow + 100*time.Millisecond)
		d.key("ctrl+c")
		d.drain()
		if d.quit {
			t.Fatal("exited after the window")
		}
		d.clock.Advance(time.Second)
		d.key("ctrl+c")
		d.drain()
		if !d.quit {
			t.Fatal("did not exit")
		}
	})
	t.Run("a key in between resets it", func(t *testing.T) {
		d := newDriver(t, Options{Agent: newFixture(t).ag}, 100, 30)
		d.key("ctrl+c", "x", "ctrl+c")
		d.drain()
		if d.quit {
			t.Fatal("exited although the user typed in between")
		}
	})
	t.Run("during a turn it cancels the turn", func(t *testing.T) {
		f := newFixture(t)
		f.srv.Script(llmtest.Reply{Text: strings.Repeat("word ", 500), ChunkSize: 5, ChunkDelay: 5 * time.Millisecond})
		d := newDriver(t, Options{Agent: f.ag}, 100, 30)
		d.typeText("talk")
		d.key("enter")
		d.until("streaming", func() bool { return strings.Contains(d.screen(), "word word") })
		d.key("ctrl+c")
		d.until("the turn to end", d.idle)
		d.drain()
		if d.quit || !strings.Contains(d.screen(), "Interrupted.") {
			t.Fatalf("quit %v\n%s", d.quit, d.screen())
		}
	})
	t.Run("esc cancels a turn", func(t *testing.T) {
		f := newFixture(t)
		f.srv.Script(llmtest.Reply{Text: strings.Repeat("word ", 500), ChunkSize: 5, ChunkDelay: 5 * time.Millisecond})
		d := newDriver(t, Options{Agent: f.ag}, 100, 30)
		d.typeText("talk")
		d.key("enter")
		d.until("streaming", func() bool { return strings.Contains(d.screen(), "word word") })
		d.key("esc")
		d.until("the turn to end", d.idle)
		if !strings.Contains(d.screen(), "Interrupted.") {
			t.Fatalf("%s", d.screen())
		}
	})
}

func TestCtrlDExitsOnlyOnAnEmptyInput(t *testing.T) {
	d := newDriver(t, Options{Agent: newFixture(t).ag}, 100, 30)
	d.typeText("ab")
	d.key("ctrl+a", "ctrl+d")
	d.drain()
	if d.quit || d.app.input.Value() != "b" {
		t.Fatalf("ctrl+d with text: quit %v, input %q", d.quit, d.app.input.Value())
	}
	d.key("ctrl+d") // deletes the b
	d.key("ctrl+d")
	d.drain()
	if !d.quit {
		t.Fatal("ctrl+d on an empty input did not exit")
	}
}

func TestMessageTypedDuringATurnIsQueued(t *testing.T) {
	f := newFixture(t)
	f.srv.Script(
		llmtest.Reply{Text: strings.Repeat("slow ", 100), ChunkSize: 5, ChunkDelay: 5 * time.Millisecond},
		llmtest.Reply{Text: "second answer"},
	)
	d := newDriver(t, Options{Agent: f.ag}, 100, 30)
	d.typeText("first")
	d.key("enter")
	d.until("streaming", func() bool { return strings.Contains(d.screen(), "slow slow") })
	d.typeText("next question")
	d.key("enter")
	if s := d.screen(); !strings.Contains(s, "queued: next question") {
		t.Fatalf("queued message not shown:\n%s", s)
	}
	d.until("both turns", func() bool { return d.idle() && strings.Contains(d.screen(), "second answer") })
	reqs := f.srv.Requests()
	if len(reqs) != 2 || reqs[1].LastUserMessage() != "next question" {
		t.Fatalf("requests: %d", len(reqs))
	}
}

func TestSlashCommands(t *testing.T) {
	f := newFixture(t)
	// Tall enough for the whole of /help (its commands, keys and the
	// modal's keys), which grows with each command.
	d := newDriver(t, Options{Agent: f.ag}, 100, 82)
	d.typeText("/help")
	d.key("enter")
	s := d.screen()
	for _, want := range []string{"Commands:", "/yolo", "Keys:", "ctrl+y", "f2", "release the mouse"} {
		if !strings.Contains(s, want) {
			t.Errorf("/help lacks %q:\n%s", want, s)
		}
	}
	d.typeText("/nope")
	d.key("enter")
	if !strings.Contains(d.screen(), "unknown command /nope") {
		t.Errorf("unknown command not reported")
	}
	d.typeText("/clear")
	d.key("enter")
	if s := d.screen(); strings.Contains(s, "Commands:") || !strings.Contains(s, "Started a new conversation") {
		t.Errorf("/clear did not clear:\n%s", s)
	}
}

func TestYoloShowsInTheStatusBar(t *testing.T) {
	f := newFixture(t)
	ag := agent.New(agent.Config{Provider: provider.Provider{Name: "openai", Model: "m", BaseURL: f.srv.URL},
		Approvals: agent.NewApprovals(agent.ApprovalOptions{Isolated: true})})
	d := newDriver(t, Options{Agent: ag}, 100, 30)
	d.typeText("/yolo")
	d.key("enter")
	if s := d.screen(); !strings.Contains(s, "YOLO 50 · 30m") {
		t.Fatalf("no yolo badge with what is left:\n%s", s)
	}
}

func TestBangRunsThroughTheApprovalModal(t *testing.T) {
	f := newFixture(t)
	d := newDriver(t, Options{Agent: f.ag}, 100, 40)
	d.typeText("!ls -la")
	d.key("enter")
	d.until("the modal", func() bool { return d.app.modal != nil })
	if s := d.screen(); !strings.Contains(s, "$ ls -la") {
		t.Fatalf("modal:\n%s", s)
	}
	d.clock.Advance(time.Second)
	d.key("y")
	d.until("the command to end", d.idle)
	if got := f.shell.ran(); len(got) != 1 || got[0] != "ls -la" {
		t.Fatalf("ran %q", got)
	}
	if s := d.screen(); !strings.Contains(s, "ran: ls -la") {
		t.Fatalf("output not shown:\n%s", s)
	}
	if len(f.srv.Requests()) != 0 {
		t.Fatal("a !cmd reached the model")
	}
}

func TestLongToolOutputCollapsesAndExpands(t *testing.T) {
	f := newFixture(t)
	f.srv.Script(llmtest.Reply{ToolCalls: []llmtest.ToolCall{shellCall("c1", "long")}}, llmtest.Reply{Text: "ok"})
	d := newDriver(t, Options{Agent: f.ag}, 100, 80)
	d.typeText("go")
	d.key("enter")
	d.until("the modal", func() bool { return d.app.modal != nil })
	d.clock.Advance(time.Second)
	d.key("y")
	d.until("the turn to end", d.idle)
	d.drain()
	if s := d.screen(); !strings.Contains(s, "35 more lines · ctrl+o to expand") || strings.Contains(s, "end") {
		t.Fatalf("output not collapsed:\n%s", s)
	}
	d.key("ctrl+o")
	if s := d.screen(); !strings.Contains(s, "│ end") || !strings.Contains(s, "ctrl+o to collapse") {
		t.Fatalf("output not expanded:\n%s", s)
	}
}

func TestCopyLastReplyAndSelectedMessage(t *testing.T) {
	f := newFixture(t)
	f.srv.Script(llmtest.Reply{Text: "copy **me**\x1b]52;c;ZXZpbA==\x07"})
	d := newDriver(t, Options{Agent: f.ag}, 100, 30)
	d.typeText("question")
	d.key("enter")
	d.until("the turn to end", d.idle)
	d.key("ctrl+y")
	d.until("the clipboard", func() bool { return len(d.clipboard) == 1 })
	if got := d.clipboard[0]; got != "copy **me**␛]52;c;ZXZpbA==␇" {
		t.Fatalf("clipboard got %q", got)
	}
	d.key("alt+up", "alt+up") // the reply, then the question
	d.key("ctrl+y")
	d.until("the clipboard", func() bool { return len(d.clipboard) == 2 })
	if d.clipboard[1] != "question" {
		t.Fatalf("clipboard got %q", d.clipboard[1])
	}
	if !strings.Contains(d.screen(), "▌ ❯ question") {
		t.Fatalf("selection not marked:\n%s", d.screen())
	}
}

func TestScrollingStopsFollowingAndEndFollowsAgain(t *testing.T) {
	f := newFixture(t)
	var long strings.Builder
	for i := 0; i < 80; i++ {
		long.WriteString("Paragraph number " + string(rune('A'+i%26)) + ".\n\n")
	}
	f.srv.Script(llmtest.Reply{Text: long.String()}, llmtest.Reply{Text: "tail reply"})
	d := newDriver(t, Options{Agent: f.ag}, 100, 30)
	d.typeText("q")
	d.key("enter")
	d.until("the turn to end", d.idle)
	d.key("pgup")
	if d.app.chat.Following() || !strings.Contains(d.screen(), "more below") {
		t.Fatalf("pgup should stop following:\n%s", d.screen())
	}
	d.key("home")
	if !strings.Contains(d.screen(), "co 1.2.3") {
		t.Fatalf("home should show the banner:\n%s", d.screen())
	}
	d.key("end")
	if !d.app.chat.Following() {
		t.Fatal("end should follow")
	}
	d.send(mouseWheel(true))
	if d.app.chat.Following() {
		t.Fatal("wheel up should stop following")
	}
	for i := 0; i < 100; i++ {
		d.send(mouseWheel(false))
	}
	if !d.app.chat.Following() {
		t.Fatal("scrolling to the end should follow again")
	}
}

func TestResizeRewrapsEverything(t *testing.T) {
	f := newFixture(t)
	f.srv.Script(llmtest.Reply{Text: strings.Repeat("wrap these words please ", 30)})
	d := newDriver(t, Options{Agent: f.ag}, 120, 40)
	d.typeText("q")
	d.key("enter")
	d.until("the turn to end", d.idle)
	for _, w := range []int{60, 150, 45} {
		d.send(windowSize(w, 40))
		lines := strings.Split(d.app.View().Content, "\n")
		if len(lines) != 40 {
			t.Fatalf("width %d: %d lines", w, len(lines))
		}
		for _, l := range lines {
			if got := lineWidth(l); got != w {
				t.Fatalf("width %d: a line is %d wide: %q", w, got, l)
			}
		}
		if !strings.Contains(d.screen(), "wrap these words") {
			t.Fatalf("reply lost after resize")
		}
	}
}

// TestSidePanelHidesWhenNarrowAndToggles: the panel shows the turn's spans
// from the session's telemetry feed, ctrl+t hides and shows it, and it is
// hidden below 100 columns.
func TestSidePanelHidesWhenNarrowAndToggles(t *testing.T) {
	f := newTracedFixture(t)
	f.srv.Script(llmtest.Reply{ToolCalls: []llmtest.ToolCall{shellCall("c1", "echo hi")}}, llmtest.Reply{Text: "ok"})
	d := newDriver(t, Options{Agent: f.ag, Feed: f.feed}, 120, 40)
	d.typeText("go")
	d.key("enter")
	d.until("the modal", func() bool { return d.app.modal != nil })
	d.clock.Advance(time.Second)
	d.key("y")
	// The spans come on the feed, not from the turn's events: wait for
	// the panel to show them all.
	wants := []string{"Spans", "invoke_agent", "chat test-model", "execute_tool run_sh"}
	d.until("the side panel to show the turn's spans", func() bool {
		s := d.screen()
		for _, want := range wants {
			if !strings.Contains(s, want) {
				return false
			}
		}
		return d.idle()
	})
	d.key("ctrl+t")
	if strings.Contains(d.screen(), "Spans") {
		t.Error("ctrl+t did not hide the panel")
	}
	d.key("ctrl+t")
	d.send(windowSize(90, 40))
	if strings.Contains(d.screen(), "Spans") {
		t.Error("panel shown below 100 columns")
	}
}

func TestPanicsBecomeErrorEntries(t *testing.T) {
	d := newDriver(t, Options{Agent: newFixture(t).ag}, 100, 30)
	d.run(safeCmd(func() tea_Msg { panic("kaboom") }), true)
	d.until("the error entry", func() bool { return strings.Contains(d.screen(), "kaboom") })
	if !strings.Contains(d.screen(), "internal error") {
		t.Fatal(d.screen())
	}
}

func TestHistoryIsPersisted(t *testing.T) {
	path := t.TempDir() + "/history.txt"
	d := newDriver(t, Options{Agent: newFixture(t).ag, HistoryPath: path}, 100, 30)
	d.typeText("/help")
	d.key("enter")
	d.typeText("line one")
	d.key("ctrl+j")
	d.typeText("line two")
	d.key("enter")
	d.drain()
	h, err := LoadHistory(path)
	if err != nil || h.Len() != 2 || h.At(1) != "line one\nline two" {
		t.Fatalf("history %v %+v", err, h)
	}
	d2 := newDriver(t, Options{Agent: newFixture(t).ag, HistoryPath: path}, 100, 30)
	d2.key("up")
	if got := d2.app.input.Value(); got != "line one\nline two" {
		t.Fatalf("up shows %q", got)
	}
}

func TestTinyAndOddSizesDrawWithoutPanicking(t *testing.T) {
	f := newFixture(t)
	f.srv.Script(llmtest.Reply{ToolCalls: []llmtest.ToolCall{shellCall("c1", "echo hi")}}, llmtest.Reply{Text: "# Title\n\n" + strings.Repeat("word ", 50)})
	d := newDriver(t, Options{Agent: f.ag}, 100, 30)
	d.typeText("go")
	d.key("enter")
	d.until("the modal", func() bool { return d.app.modal != nil })
	for _, sz := range [][2]int{{1, 1}, {5, 2}, {10, 3}, {20, 6}, {300, 5}, {40, 100}} {
		d.send(windowSize(sz[0], sz[1]))
		v := d.app.View().Content
		if strings.Contains(v, "internal error") {
			t.Fatalf("%v: %s", sz, v)
		}
		if got := strings.Count(v, "\n") + 1; got != sz[1] {
			t.Errorf("%v: %d lines", sz, got)
		}
	}
	d.send(windowSize(100, 30))
	d.clock.Advance(time.Second)
	d.key("y")
	d.until("the turn to end", d.idle)
	for _, sz := range [][2]int{{3, 3}, {12, 4}} {
		d.send(windowSize(sz[0], sz[1]))
		if v := d.app.View().Content; strings.Contains(v, "internal error") {
			t.Fatalf("%v: %s", sz, v)
		}
	}
}

// Issue 27: at 80 columns the bar advertised ctrl+t, which did nothing.
// Below 100 columns the panel stays hidden until Ctrl+T opens it beside a
// narrower chat; below 60 there is no room, the bar does not offer it and
// Ctrl+T says why.
func TestCtrlTOpensThePanelAtEightyColumns(t *testing.T) {
	f := newTracedFixture(t)
	f.srv.Script(llmtest.Reply{Text: "ok"})
	d := newDriver(t, Options{Agent: f.ag, Feed: f.feed}, 80, 24)
	d.typeText("go")
	d.key("enter")
	// The turn's own span ends last and comes on the feed: once it is
	// handled, the panel has something to show and must still be hidden.
	d.until("the turn to end and its span to arrive", func() bool {
		return d.idle() && d.seen(func(m tea_Msg) bool {
			s, ok := m.(spanMsg)
			return ok && strings.HasPrefix(s.Span.Name, "invoke_agent") && !s.Span.Running
		})
	})
	s := d.screen()
	if strings.Contains(s, "Spans") {
		t.Fatalf("panel shown at 80 columns before ctrl+t:\n%s", s)
	}
	d.key("ctrl+t")
	d.drain()
	s = d.screen()
	for _, want := range []string{"Spans", "invoke_agent"} {
		if !strings.Contains(s, want) {
			t.Errorf("ctrl+t at 80 columns: the panel lacks %q:\n%s", want, s)
		}
	}
	for i, line := range strings.Split(s, "\n") {
		if w := lineWidth(line); w > 80 {
			t.Errorf("line %d is %d columns wide:\n%s", i, w, line)
		}
	}
	d.key("ctrl+t")
	if s := d.screen(); strings.Contains(s, "Spans") {
		t.Errorf("the second ctrl+t did not hide the panel:\n%s", s)
	}
	d.send(windowSize(50, 24))
	s = d.screen()
	if strings.Contains(s, "ctrl+t") {
		t.Errorf("the bar offers ctrl+t at 50 columns, where the panel has no room:\n%s", s)
	}
	d.key("ctrl+t")
	if s := d.screen(); !strings.Contains(s, "spans need 60 columns ") || strings.Contains(s, "Spans") {
		t.Errorf("ctrl+t at 50 columns says nothing:\n%s", s)
	}
}
