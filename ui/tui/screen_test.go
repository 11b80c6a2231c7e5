package tui

import (
	"strings"
	"testing"
	"time"

	xansi "github.com/charmbracelet/x/ansi"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/telemetry"
	"github.com/co-cli/co/tools"
)

func screenRC() *renderCtx {
	th := NewTheme("dark", false)
	return &renderCtx{th: &th, collapseLines: 5}
}

func plainLines(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = xansi.Strip(l)
	}
	return out
}

// A call whose arguments hold newlines and tabs stays one line in the
// transcript (⏎, \t), cut at the width; expanding it shows the full text.
func TestToolEntryMultilineArgsOneLine(t *testing.T) {
	rc := screenRC()
	now := time.Now()
	e := newToolEntry(agent.ToolCallStarted{CallID: "1", Name: "write_file",
		Args: `{"path":"a.md","content":"# Hello\nworld\tend"}`}, now)
	e.finish(agent.ToolCallFinished{CallID: "1", Status: message.CallDone, Duration: time.Millisecond, Result: tools.Text("wrote a.md")})
	lines := plainLines(e.render(80, rc))
	if !strings.Contains(lines[0], `content='# Hello⏎world\tend'`) {
		t.Fatalf("title = %q, want the content on one line with ⏎ and \\t", lines[0])
	}
	for _, l := range lines {
		if strings.HasPrefix(l, "world") || xansi.StringWidth(l) > 80 {
			t.Fatalf("line %q spills out of the entry:\n%s", l, strings.Join(lines, "\n"))
		}
	}
	long := newToolEntry(agent.ToolCallStarted{CallID: "2", Name: "run_shell_command",
		Args: `{"cmd":"` + strings.Repeat("echo a; ", 30) + `"}`}, now)
	if l := plainLines(long.render(60, rc)); len(l) != 1 || xansi.StringWidth(l[0]) > 60 || !strings.Contains(l[0], "…") {
		t.Fatalf("long call not cut at the width: %q", l)
	}
	if !e.collapsible(rc) {
		t.Fatal("a call with a cut title cannot be expanded")
	}
	e.expanded = true
	e.invalidate()
	full := strings.Join(plainLines(e.render(80, rc)), "\n")
	if !strings.Contains(full, "# Hello\n") || !strings.Contains(full, "world   end") {
		t.Fatalf("expanded view lacks the full text:\n%s", full)
	}
	if got := e.plain(); !strings.Contains(got, "# Hello\nworld\tend") {
		t.Fatalf("copied text = %q", got)
	}
}

// A span or todo with a newline keeps the side panel's rows in their column.
func TestSidePanelNewlineName(t *testing.T) {
	th := NewTheme("dark", false)
	p := NewSidePanel(&th)
	p.SetSize(36, 8)
	now := time.Now()
	p.Apply(telemetry.SpanEvent{TraceID: "t", SpanID: "a", Name: "execute_tool write\nfile\tx", Start: now, End: now.Add(time.Millisecond)})
	p.SetTodos([]string{"1 todo", "☐ first\nsecond"})
	rows := p.Rows()
	if len(rows) != 8 {
		t.Fatalf("panel has %d rows, want 8:\n%s", len(rows), p.View())
	}
	for _, r := range rows {
		if w := xansi.StringWidth(r); w != 36 {
			t.Fatalf("row %q is %d wide, want 36:\n%s", xansi.Strip(r), w, p.View())
		}
	}
	if v := xansi.Strip(p.View()); !strings.Contains(v, "write⏎file") || !strings.Contains(v, "first⏎second") {
		t.Fatalf("newlines not shown as ⏎:\n%s", v)
	}
}

// Bidirectional overrides and zero-width characters in a reply, a prompt,
// a notice or a span name reach the screen as visible <U+…> markers.
func TestTranscriptMarksHiddenCharacters(t *testing.T) {
	rc := screenRC()
	rc.md = newMarkdown(rc.th.Markdown)
	r := &assistantEntry{}
	r.append("see file\u202Etxt.exe and pay\u200Bpal")
	r.finish(false)
	var all []string
	all = append(all, r.render(80, rc)...)
	all = append(all, newUserEntry("hi\u2066there").render(80, rc)...)
	all = append(all, newNotice(noticeError, "bad\u202Ename").render(80, rc)...)
	th := NewTheme("dark", false)
	p := NewSidePanel(&th)
	p.SetSize(40, 4)
	p.Apply(telemetry.SpanEvent{TraceID: "t", SpanID: "a", Name: "chat\u202Emodel", Start: time.Now(), End: time.Now()})
	all = append(all, p.Rows()...)
	out := strings.Join(plainLines(all), "\n")
	if strings.ContainsAny(out, "\u202E\u200B\u2066") {
		t.Fatalf("hidden characters reach the screen raw:\n%q", out)
	}
	for _, w := range []string{"file<U+202E>txt.exe", "pay<U+200B>pal", "hi<U+2066>there", "bad<U+202E>name", "chat<U+202E>model"} {
		if !strings.Contains(out, w) {
			t.Errorf("screen lacks %q:\n%s", w, out)
		}
	}
}

// While the approval modal waits, the status bar says so, not that co
// is thinking; once answered it thinks again.
func TestStatusBarSaysWaitingForApproval(t *testing.T) {
	f := newFixture(t)
	f.srv.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{shellCall("c1", "git status")}},
		llmtest.Reply{Text: "all done"},
	)
	d := newDriver(t, Options{Agent: f.ag}, 100, 40)
	d.typeText("check git")
	d.key("enter")
	d.until("the modal", func() bool { return d.app.modal != nil })
	bar := xansi.Strip(d.app.status.View())
	if strings.Contains(bar, "thinking") || !strings.Contains(bar, "waiting for your approval") {
		t.Fatalf("status bar while the modal waits: %q", bar)
	}
	d.clock.Advance(ApprovalGrace + time.Millisecond)
	d.key("y")
	if bar := xansi.Strip(d.app.status.View()); strings.Contains(bar, "waiting for your approval") {
		t.Fatalf("status bar after the answer: %q", bar)
	}
	d.until("the turn to end", d.idle)
}

// Lines of the chat that fill its width (an error, a slash command's
// output) keep a gap before the side panel's border.
func TestGapBeforeSidePanel(t *testing.T) {
	a := goldenApp(t, "dark", 120, agent.Config{})
	long := strings.Repeat("word ", 40)
	a.chat.Add(newNotice(noticeError, long))
	a.chat.Add(newNotice(noticeOutput, strings.Repeat("x", 300)))
	a.chat.Add(newNotice(noticeInfo, long))
	a.layout()
	cw := 120 - min(max(120/4, 30), 44)
	n := 0
	for _, l := range strings.Split(xansi.Strip(a.View().Content), "\n") {
		r := []rune(l)
		col := -1
		for _, c := range []int{cw, cw + 1} { // the border, with or without a gap
			if len(r) > c && r[c] == '│' {
				col = c
			}
		}
		if col < 0 {
			continue
		}
		n++
		if r[col-1] != ' ' {
			t.Fatalf("no gap before the side panel: %q", l)
		}
	}
	if n == 0 {
		t.Fatal("side panel not found")
	}
}

// /status and /tools lines that wrap continue under their value column.
func TestSlashOutputKeepsHangingIndent(t *testing.T) {
	rc := screenRC()
	text := "version        1.2.3\n" +
		"config files   /home/u/.config/co-cli/settings.json, /work/project/.co-cli/settings.json\n" +
		"               WARNING: UNSANDBOXED: shell commands run directly on this machine; every command asks\n" +
		"3 tools:\n" +
		"  run_shell_command        asks, decided per call by its policy and the sandbox's isolation level\n" +
		"  Google: not configured — set google_credentials_path or run co google auth to use Drive, Gmail"
	got := plainLines(newNotice(noticeOutput, text).render(60, rc))
	want := []string{
		"version        1.2.3",
		"config files   /home/u/.config/co-cli/settings.json,",
		"               /work/project/.co-cli/settings.json",
		"               WARNING: UNSANDBOXED: shell commands run",
		"               directly on this machine; every command asks",
		"3 tools:",
		"  run_shell_command        asks, decided per call by its",
		"                           policy and the sandbox's",
		"                           isolation level",
		"  Google: not configured — set google_credentials_path or",
		"  run co google auth to use Drive, Gmail",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A path with a hyphen is not cut at it: "~/.config/co-" at the end of one
// line and "cli/settings.json" on the next (issue 27, /status at 80
// columns); only a word longer than the line is broken.
func TestSlashOutputKeepsHyphenatedPathsWhole(t *testing.T) {
	rc := screenRC()
	text := "config files   the user file ~/.config/co-cli/settings.json\n" +
		"long           /a-very-long-path-without-spaces/that-cannot-fit/in-one-line.json"
	got := plainLines(newNotice(noticeOutput, text).render(50, rc))
	want := []string{
		"config files   the user file",
		"               ~/.config/co-cli/settings.json",
		"long           /a-very-long-path-without-spaces/",
		"               that-cannot-fit/in-one-line.json",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A call a scheduled run kept waiting for the user (issue 29) is shown as
// kept waiting, never as denied: it has not been decided (the transcript
// of a run resumed by /inbox approve or --resume shows its calls so).
func TestToolEntryKeptWaitingIsNotDenied(t *testing.T) {
	rc := screenRC()
	e := newToolEntry(agent.ToolCallStarted{CallID: "1", Name: "send_slack_message", Args: `{"channel":"#general","text":"hi"}`}, time.Now())
	e.finish(agent.ToolCallFinished{CallID: "1", Name: "send_slack_message", Status: message.CallWaiting, Decision: message.ByWaiting, Err: agent.Waiting})
	out := strings.Join(plainLines(e.render(100, rc)), "\n")
	if strings.Contains(out, "denied") || strings.Contains(out, "⊘") {
		t.Errorf("a call kept waiting is shown as denied:\n%s", out)
	}
	if !strings.Contains(out, "kept waiting") || !strings.Contains(out, agent.Waiting) {
		t.Errorf("a call kept waiting does not say so:\n%s", out)
	}
}

// In a 40-column terminal, unsandboxed, the bar says in full that an
// approval waits, and why ctrl+t opens nothing: a plain cut left "? waiting
// for your approva" and "the spans panel needs 60 c".
func TestStatusBarAtFortyColumnsKeepsWhatIsGoingOn(t *testing.T) {
	th := NewTheme("dark", false)
	s := NewStatusBar(&th)
	s.SetWidth(40)
	s.SetInfo(StatusInfo{Provider: "openai", Model: "test", Isolation: "none", Unsandboxed: true, Waiting: true})
	s.Start(time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC))
	if v := xansi.Strip(s.View()); !strings.Contains(v, "UNSANDBOXED") || !strings.Contains(v, "? waiting for your approval") || xansi.StringWidth(v) > 40 {
		t.Errorf("waiting: %q", v)
	}
	s.Stop()
	s.Flash("spans need 60 columns")
	if v := xansi.Strip(s.View()); !strings.Contains(v, "UNSANDBOXED") || !strings.Contains(v, "spans need 60 columns") {
		t.Errorf("flash: %q", v)
	}
}
