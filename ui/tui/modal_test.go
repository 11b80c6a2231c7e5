package tui

import (
	"strings"
	"testing"
	"time"

	xansi "github.com/charmbracelet/x/ansi"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/tools"
)

var t0 = time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)

func pending(tool, args string, c tools.Check) agent.PendingCall {
	return agent.PendingCall{CallID: "id-" + tool, Tool: tool, Args: args, Check: c}
}

func shellPending(cmd string) agent.PendingCall {
	return pending(agent.BangTool, `{"cmd":`+quote(cmd)+`}`, tools.Check{Decision: tools.Ask, Reason: "not on the safe list", ScopeLabel: "git push", Scope: "s:git push"})
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
		verdict agent.Verdict
	}{
		{"y", tools.Check{Decision: tools.Ask}, ModalAnswered, agent.ApproveOnce},
		{"Y", tools.Check{Decision: tools.Ask}, ModalAnswered, agent.ApproveOnce},
		{"n", tools.Check{Decision: tools.Ask}, ModalAnswered, agent.Deny},
		{"esc", tools.Check{Decision: tools.Ask}, ModalAnswered, agent.Deny},
		{"a", tools.Check{Decision: tools.Ask, ScopeLabel: "git"}, ModalAnswered, agent.ApproveSession},
		{"a", tools.Check{Decision: tools.Ask, AlwaysAsk: true}, ModalPending, agent.Deny},
		{"x", tools.Check{Decision: tools.Ask}, ModalPending, agent.Deny},
		{"ctrl+c", tools.Check{Decision: tools.Ask}, ModalCancel, agent.Deny},
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
	if m.Verdicts()[0] != agent.ApproveOnce {
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
	want := []agent.Verdict{agent.ApproveOnce, agent.Deny, agent.ApproveSession}
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
