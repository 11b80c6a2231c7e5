package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	xansi "github.com/charmbracelet/x/ansi"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/tools"
)

var t0 = time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)

func pending(tool, args string, c tools.Check) agent.PendingCall {
	return agent.PendingCall{CallID: "id-" + tool, Tool: tool, Args: args, Check: c}
}

func shellPending(cmd string) agent.PendingCall {
	return pending(message.BangTool, `{"cmd":`+quote(cmd)+`}`, tools.Check{Decision: tools.Ask, Reason: "not on the safe list", ScopeLabel: "git push", Scope: "s:git push"})
}

func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func newTestModal(calls ...agent.PendingCall) *Modal {
	th := NewTheme("dark", false)
	return NewModal(agent.ApprovalRequested{Calls: calls}, &th, DefaultModalKeyMap(), 100, 40, t0)
}

func TestModalKeys(t *testing.T) {
	tests := []struct {
		key     string
		check   tools.Check
		result  ModalResult
		verdict message.Verdict
	}{
		{"y", tools.Check{Decision: tools.Ask}, ModalAnswered, message.ApproveOnce},
		{"Y", tools.Check{Decision: tools.Ask}, ModalAnswered, message.ApproveOnce},
		{"n", tools.Check{Decision: tools.Ask}, ModalAnswered, message.Deny},
		{"esc", tools.Check{Decision: tools.Ask}, ModalAnswered, message.Deny},
		{"a", tools.Check{Decision: tools.Ask, ScopeLabel: "git"}, ModalAnswered, message.ApproveSession},
		{"a", tools.Check{Decision: tools.Ask, AlwaysAsk: true}, ModalPending, message.Deny},
		{"x", tools.Check{Decision: tools.Ask}, ModalPending, message.Deny},
		{"ctrl+c", tools.Check{Decision: tools.Ask}, ModalCancel, message.Deny},
	}
	for _, tt := range tests {
		name := tt.key
		if tt.check.AlwaysAsk {
			name += " when it must always ask"
		}
		t.Run(name, func(t *testing.T) {
			m := newTestModal(pending("write_file", `{"path":"a.txt"}`, tt.check))
			got := m.HandleKey(keyMsg(tt.key), t0.Add(ApprovalGrace))
			if got != tt.result || m.Verdicts()[0] != tt.verdict {
				t.Fatalf("result %v verdict %v, want %v %v", got, m.Verdicts()[0], tt.result, tt.verdict)
			}
		})
	}
}

func TestModalGracePeriod(t *testing.T) {
	m := newTestModal(shellPending("git push"))
	if m.Armed() {
		t.Fatal("armed at once")
	}
	steps := []struct {
		at   time.Duration
		key  string
		want ModalResult
	}{
		{0, "y", ModalSwallowed},
		{350 * time.Millisecond, "a", ModalSwallowed},
		{700 * time.Millisecond, "y", ModalSwallowed},  // 350 ms after the last key: still typing
		{720 * time.Millisecond, "down", ModalPending}, // scrolling always works
		{1101 * time.Millisecond, "y", ModalAnswered},
	}
	for _, s := range steps {
		if got := m.HandleKey(keyMsg(s.key), t0.Add(s.at)); got != s.want {
			t.Fatalf("%s at %v: %v, want %v", s.key, s.at, got, s.want)
		}
	}
	if m.Verdicts()[0] != message.ApproveOnce {
		t.Fatal(m.Verdicts())
	}
	// The tick arms the hints only once the typing has stopped.
	m2 := newTestModal(shellPending("ls"))
	m2.HandleKey(keyMsg("y"), t0.Add(300*time.Millisecond))
	if cmd := m2.Arm(modalArmedMsg{id: m2.id}, t0.Add(ApprovalGrace)); cmd == nil || m2.Armed() {
		t.Fatal("armed while the grace period was extended")
	}
	if cmd := m2.Arm(modalArmedMsg{id: m2.id}, t0.Add(time.Second)); cmd != nil || !m2.Armed() {
		t.Fatal("not armed after the grace period")
	}
	if m2.Arm(modalArmedMsg{id: m2.id + 1}, t0.Add(time.Second)) != nil {
		t.Fatal("a stale tick was taken")
	}
}

func TestModalAsksOneCallAtATimeWithGraceEach(t *testing.T) {
	m := newTestModal(shellPending("a"), shellPending("b"), shellPending("c"))
	steps := []struct {
		at    time.Duration
		key   string
		want  ModalResult
		shows string // before the key
	}{
		{time.Second, "y", ModalPending, "1 of 3"},
		{time.Second + 10*time.Millisecond, "y", ModalSwallowed, "2 of 3"}, // the next call has its own grace
		{2 * time.Second, "n", ModalPending, "2 of 3"},
		{2*time.Second + 10*time.Millisecond, "a", ModalSwallowed, "3 of 3"},
		{3 * time.Second, "a", ModalAnswered, "3 of 3"},
	}
	for i, s := range steps {
		if v := xansi.Strip(m.View()); !strings.Contains(v, s.shows) {
			t.Fatalf("step %d: modal does not show %q:\n%s", i, s.shows, v)
		}
		if got := m.HandleKey(keyMsg(s.key), t0.Add(s.at)); got != s.want {
			t.Fatalf("step %d: %v, want %v", i, got, s.want)
		}
	}
	want := []message.Verdict{message.ApproveOnce, message.Deny, message.ApproveSession}
	for i, v := range m.Verdicts() {
		if v != want[i] {
			t.Fatalf("verdicts %v, want %v", m.Verdicts(), want)
		}
	}
}

func TestModalShowsEverythingWrappedNeverTruncated(t *testing.T) {
	long := strings.Repeat("segment-", 60) + "END"
	content := "line one\nline two\n" + strings.Repeat("x", 250) + "TAIL"
	m := newTestModal(pending("write_file", `{"path":"`+long+`","content":`+quote(content)+`,"mode":420}`,
		tools.Check{Decision: tools.Ask, Reason: "writes outside the workspace",
			Preview: "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-old\n+new", ScopeLabel: "write_file"}))
	body := xansi.Strip(strings.Join(m.body, "\n"))
	joined := strings.ReplaceAll(strings.ReplaceAll(body, "\n", ""), " ", "")
	for _, want := range []string{strings.ReplaceAll(long, " ", ""), "TAIL", "lineone", "linetwo", "mode:420", "-old", "+new", "Whyitasks:writesoutsidetheworkspace"} {
		if !strings.Contains(joined, want) {
			t.Errorf("body lacks %q:\n%s", want, body)
		}
	}
	for _, l := range m.body {
		if w := xansi.StringWidth(l); w > m.innerWidth() {
			t.Errorf("line wider than the modal (%d > %d): %q", w, m.innerWidth(), l)
		}
	}
	// A body longer than the screen scrolls.
	m.SetSize(100, 14)
	if m.maxScroll() == 0 || !strings.Contains(m.View(), "lines") {
		t.Fatalf("no scrolling for a long body:\n%s", m.View())
	}
	before := m.scroll
	m.HandleKey(keyMsg("pgdown"), t0)
	if m.scroll <= before {
		t.Fatal("pgdown did not scroll")
	}
}

func TestModalRevealsHiddenCharacters(t *testing.T) {
	m := newTestModal(shellPending("echo safe\u202e; rm -rf ~ #\u200b"))
	v := xansi.Strip(m.View())
	for _, want := range []string{"hidden characters", "<U+202E>", "<U+200B>"} {
		if !strings.Contains(v, want) {
			t.Errorf("modal lacks %q:\n%s", want, v)
		}
	}
	if strings.ContainsAny(v, "\u202e\u200b") {
		t.Error("hidden characters reached the screen")
	}
}

func TestModalNeutralisesEscapes(t *testing.T) {
	m := newTestModal(pending("send_email", `{"body":"hi\u001b]52;c;ZXZpbA==\u0007\u001b[2J"}`,
		tools.Check{Decision: tools.Ask, Preview: "To: a@b\n\nhi\x1b]8;;http://x\x1b\\"}))
	v := m.View()
	for _, bad := range []string{"\x1b]52", "\x1b[2J", "\x1b]8;;http", "\x07"} {
		if strings.Contains(v, bad) {
			t.Errorf("modal passes %q through", bad)
		}
	}
}

func TestModalNamesTheRiskOfACallAfterUntrustedContent(t *testing.T) {
	c := tools.Check{Decision: tools.Ask, AlwaysAsk: true, Reason: "it follows untrusted content from web evil.example/page",
		Untrusted: []string{"web evil.example/page", "mail from x@example.com"},
		Outbound:  &tools.Outbound{To: "#general on Slack", What: "SECRET=hunter2\x1b[2J"}}
	m := newTestModal(pending("send_slack_message", `{"channel":"general","text":"SECRET=hunter2"}`, c))
	v := xansi.Strip(m.View())
	for _, want := range []string{"follows untrusted content from web evil.example/page, mail from x@example.com", "to: #general on Slack", "sends: SECRET=hunter2", "must be approved each time"} {
		if !strings.Contains(v, want) {
			t.Errorf("modal lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(m.View(), "\x1b[2J") {
		t.Error("an escape in what leaves reached the screen")
	}
	if got := m.HandleKey(keyMsg("a"), t0.Add(ApprovalGrace)); got != ModalPending {
		t.Fatalf("'a' answered a call that follows untrusted content: %v", got)
	}
}

func TestStatusBarShowsUntrustedContentWhileItLasts(t *testing.T) {
	th := NewTheme("dark", false)
	s := NewStatusBar(&th)
	s.SetWidth(60)
	s.SetInfo(StatusInfo{Provider: "openai", Model: "gpt", Isolation: "full", Untrusted: "web evil.example/page", UntrustedN: 3, SessionTokens: 123456})
	v := xansi.Strip(s.View())
	if !strings.Contains(v, "UNTRUSTED: web evil.example/page +2") {
		t.Fatalf("status bar %q lacks the badge", v)
	}
	s.SetInfo(StatusInfo{Provider: "openai", Model: "gpt", Isolation: "full"})
	if strings.Contains(xansi.Strip(s.View()), "UNTRUSTED") {
		t.Fatal("the badge stayed after /clear")
	}
}

// longCommand is one shell command wider than the modal at any width, with
// hyphenated paths (each narrower than the modal at 80 columns) and many
// reasons to ask.
const longCommand = "cd /home/user/projects/my-long-project/sub-directory-with-hyphens && npm install --save-dev typescript-eslint-plugin-config && curl -fsSL https://example.com/install-script.sh > /tmp/install-script.sh && chmod +x /tmp/install-script.sh && rm -rf /home/user/projects/my-very-long-project-name/build-output-directory && git push --force origin feature/very-long-branch-name-here"

// modalAt is the modal for calls on a w×h screen, armed.
func modalAt(w, h int, calls ...agent.PendingCall) *Modal {
	th := NewTheme("dark", false)
	m := NewModal(agent.ApprovalRequested{Calls: calls}, &th, DefaultModalKeyMap(), w, h, t0)
	m.armed = true
	return m
}

// boxText is the modal's box as the user reads it: the lines inside the
// border, without the border and the padding.
func boxText(m *Modal) []string {
	var out []string
	for _, l := range strings.Split(xansi.Strip(m.View()), "\n") {
		if strings.HasPrefix(l, "╭") || strings.HasPrefix(l, "╰") {
			continue
		}
		l = strings.TrimPrefix(strings.TrimSuffix(l, "│"), "│")
		out = append(out, strings.TrimRight(strings.TrimPrefix(l, " "), " "))
	}
	return out
}

func TestModalShowsALongCommandOnceWrappedAtSpaces(t *testing.T) {
	for _, w := range []int{80, 120} {
		t.Run(fmt.Sprint(w), func(t *testing.T) {
			m := modalAt(w, 40, shellPending(longCommand))
			lines := boxText(m)
			var cmdLines []string
			for i, l := range lines {
				if strings.HasPrefix(l, "$ ") {
					for _, c := range lines[i:] {
						if c == "" {
							break
						}
						cmdLines = append(cmdLines, c)
					}
					break
				}
			}
			if len(cmdLines) < 2 {
				t.Fatalf("the command is not wrapped:\n%s", strings.Join(lines, "\n"))
			}
			if n := strings.Count(strings.Join(lines, "\n"), "$ "); n != 1 {
				t.Errorf("%d lines start with $ (the command reads as %d commands):\n%s", n, n, strings.Join(cmdLines, "\n"))
			}
			var words []string
			for i, l := range cmdLines {
				mark := "$ "
				if i > 0 {
					mark = "↪ "
				}
				if !strings.HasPrefix(l, mark) {
					t.Errorf("line %d does not start with %q: %q", i, mark, l)
				}
				words = append(words, strings.Fields(strings.TrimPrefix(l, mark))...)
			}
			// Every word whole, in order: no path cut at a hyphen.
			if got, want := strings.Join(words, " "), longCommand; got != want {
				t.Errorf("the command as shown:\n%s\nwant its words whole:\n%s", got, want)
			}
		})
	}
}

func TestModalCutsAWordOnlyWhenItIsWiderThanALine(t *testing.T) {
	path := "/srv/" + strings.Repeat("very-long-directory-name/", 6) + "file.txt" // 160 columns
	m := modalAt(80, 40, shellPending("cat "+path))
	var got string
	for _, l := range boxText(m) {
		if strings.HasPrefix(l, "$ ") || strings.HasPrefix(l, "↪ ") {
			got += strings.TrimPrefix(strings.TrimPrefix(l, "$ "), "↪ ") + "|"
		}
	}
	// Wider than a line, the path is cut where it must be, filling each
	// line: three lines of 70 columns for its 164.
	if strings.Count(got, "|") != 3 || strings.ReplaceAll(got, "|", "") != "cat "+path {
		t.Fatalf("shown as %q", got)
	}
}

func TestWrapWords(t *testing.T) {
	cases := []struct {
		in    string
		width int
		want  []string
	}{
		{"rm -rf /tmp/install-script.sh now", 20, []string{"rm -rf /tmp/", "install-script.sh", "now"}}, // wider than a line: cut after its last slash that fits
		{"a /tmp/install-script.sh", 24, []string{"a /tmp/install-script.sh"}},
		{"a /tmp/install-script.sh", 23, []string{"a", "/tmp/install-script.sh"}},
		{"one two\nthree", 4, []string{"one", "two", "thre", "e"}},
		{"    indented-long-word", 10, []string{"    indent", "ed-long-wo", "rd"}},
		{"ab  cd", 3, []string{"ab", "cd"}},
		{"日本語のテキスト", 6, []string{"日本語", "のテキ", "スト"}},
	}
	for _, tc := range cases {
		got := wrapWords(tc.in, tc.width)
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("wrapWords(%q, %d) = %q, want %q", tc.in, tc.width, got, tc.want)
		}
		for _, l := range got {
			if xansi.StringWidth(l) > max(tc.width, 4) {
				t.Errorf("wrapWords(%q, %d): %q is wider than the width", tc.in, tc.width, l)
			}
		}
	}
}

func TestModalEveryReasonIsReachable(t *testing.T) {
	var reasons []string
	for i := 1; i <= 30; i++ {
		reasons = append(reasons, fmt.Sprintf("reason-number-%02d is not on the safe list", i))
	}
	c := shellPending(longCommand)
	c.Check.Reason = strings.Join(reasons, "; ")
	for _, w := range []int{80, 120} {
		t.Run(fmt.Sprint(w), func(t *testing.T) {
			m := modalAt(w, 24, c)
			v := strings.Join(boxText(m), "\n")
			if !strings.Contains(v, "↑↓ pgup pgdn scroll") || !strings.Contains(v, "more below") {
				t.Fatalf("a body longer than the screen does not say how to scroll:\n%s", v)
			}
			seen := map[string]bool{}
			for range 100 {
				for _, l := range boxText(m) {
					for _, r := range reasons {
						if strings.Contains(l, r[:len("reason-number-00")]) {
							seen[r] = true
						}
					}
				}
				if m.scroll == m.maxScroll() {
					break
				}
				m.HandleKey(keyMsg("down"), t0)
			}
			for _, r := range reasons {
				if !seen[r] {
					t.Errorf("never shown: %s", r)
				}
			}
			if last := strings.Join(boxText(m), "\n"); strings.Contains(last, "more below") {
				t.Errorf("scrolled to the end, still \"more below\":\n%s", last)
			}
		})
	}
}

func TestModalFitsAt80Columns(t *testing.T) {
	long := pending("mcp__everything__longRunningOperationWithAVeryLongNameIndeed", `{"duration":10,"steps":5}`,
		tools.Check{Decision: tools.Ask, Reason: "calls tool longRunningOperationWithAVeryLongNameIndeed of MCP server everything",
			ScopeLabel: "longRunningOperationWithAVeryLongNameIndeed on MCP server everything-reference-server"})
	for _, w := range []int{80, 120} {
		for _, c := range []agent.PendingCall{shellPending(longCommand), long} {
			t.Run(fmt.Sprint(w, c.Tool), func(t *testing.T) {
				m := modalAt(w, 24, c, c)
				view := m.View()
				if n := strings.Count(view, "\n") + 1; n > 24 {
					t.Errorf("the modal is %d rows on a 24-row screen", n)
				}
				for _, l := range strings.Split(view, "\n") {
					if lw := xansi.StringWidth(l); lw > w {
						t.Errorf("a row is %d columns on a %d-column screen: %q", lw, w, xansi.Strip(l))
					}
				}
				text := strings.Join(boxText(m), "\n")
				if strings.Contains(text, "…") {
					t.Errorf("something is cut:\n%s", text)
				}
				flat := strings.Join(strings.Fields(text), " ")
				for _, want := range []string{
					"Approve", c.Tool + "?", "1 of 2",
					"y approve once", "n/esc deny", "a approve for the session", "ctrl+c cancel turn",
					"a approves for this session: " + c.Check.ScopeLabel,
				} {
					if !strings.Contains(flat, want) {
						t.Errorf("the modal lacks %q:\n%s", want, text)
					}
				}
			})
		}
	}
}

func TestModalShowsContentOnce(t *testing.T) {
	content := "The user prefers tabs over spaces in Go code and wants long explanations."
	calls := map[string]agent.PendingCall{
		"write_file": pending("write_file", `{"path":"notes/long-file-name.txt","content":"hello\nunique-content-line\n"}`,
			tools.Check{Decision: tools.Ask, Reason: "creates notes/long-file-name.txt (2 lines)", ScopeLabel: "write_file under notes/",
				Preview: "--- /dev/null\n+++ b/notes/long-file-name.txt\n@@ -0,0 +1,2 @@\n+hello\n+unique-content-line\n"}),
		"save_memory": pending("save_memory", `{"content":`+quote(content)+`,"tags":["style"]}`,
			tools.Check{Decision: tools.Ask, AlwaysAsk: true, Reason: "a memory is sent to the model in every later session",
				Preview: "Remember across sessions:\n\n" + content + "\n\ntags: style"}),
		"mcp": pending("mcp__everything__echo", `{"message":"unique-content-line"}`,
			tools.Check{Decision: tools.Ask, Reason: "calls tool echo of MCP server everything",
				Preview: "server: everything\ntool: echo\narguments:\n{\n  \"message\": \"unique-content-line\"\n}"}),
	}
	for _, w := range []int{80, 120} {
		for name, c := range calls {
			t.Run(fmt.Sprint(w, name), func(t *testing.T) {
				text := strings.Join(boxText(modalAt(w, 40, c)), "\n")
				flat := strings.Join(strings.Fields(text), " ")
				for _, once := range []string{"unique-content-line", "prefers tabs over spaces"} {
					if n := strings.Count(flat, once); n > 1 {
						t.Errorf("%q shown %d times:\n%s", once, n, text)
					}
				}
				if strings.Contains(text, "Arguments:") {
					t.Errorf("arguments listed again under the preview:\n%s", text)
				}
				if name == "save_memory" && strings.Count(text, "style") != 1 {
					t.Errorf("the tags are not shown once:\n%s", text)
				}
			})
		}
	}
}

// A key held since before the modal opened (typed while a command ran)
// comes with its earlier time: it answers nothing and does not shorten
// the grace period of the modal that opened since.
func TestKeyFromBeforeTheModalKeepsItsGrace(t *testing.T) {
	m := newTestModal(shellPending("git push"))
	if got := m.HandleKey(keyMsg("y"), t0.Add(-time.Second)); got != ModalSwallowed {
		t.Fatalf("a key from before the modal: %v", got)
	}
	if got := m.HandleKey(keyMsg("y"), t0.Add(ApprovalGrace/2)); got != ModalSwallowed {
		t.Fatalf("a key in the grace period after a held one answered: %v", got)
	}
}
