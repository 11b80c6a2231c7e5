package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/co-cli/co/agent/llmtest"
)

// tuiWait bounds a wait for the screen: a hang detector, never a measure.
const tuiWait = time.Minute

func TestTUIStreamsMarkdownReply(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(llmtest.Reply{
		Text:       "# The answer\n\nIt is **forty-two**, said `deep-thought`.\n\n- first point\n- second point\n\n```go\nfunc answer() int { return 42 }\n```\n\nThat is all.",
		ChunkSize:  4,
		ChunkDelay: 2 * time.Millisecond,
	})
	s := startTUI(t, t.TempDir(), tuiEnv(t, srv), 100, 35)
	s.ready()
	scr := s.screen()
	for _, want := range []string{"co 0.1.0-dev", "openai · test-model", "Ask co anything"} {
		if !strings.Contains(scr, want) {
			t.Errorf("welcome lacks %q:\n%s", want, scr)
		}
	}
	s.send("what is the answer?")
	scr = s.waitFor(tuiWait, "That is all.")
	for _, want := range []string{"❯ what is the answer?", "The answer", "It is forty-two, said", "deep-thought", "• first point", "func answer() int { return 42 }"} {
		if !strings.Contains(scr, want) {
			t.Errorf("reply lacks %q:\n%s", want, scr)
		}
	}
	for _, raw := range []string{"**forty-two**", "```", "# The answer"} {
		if strings.Contains(scr, raw) {
			t.Errorf("markdown shown raw (%q):\n%s", raw, scr)
		}
	}
	if got := srv.Requests()[0].LastUserMessage(); got != "what is the answer?" {
		t.Errorf("the model got %q", got)
	}
}

func TestTUIApprovalModal(t *testing.T) {
	tests := []struct {
		name    string
		key     string
		created bool
		shows   string
	}{
		{"y approves once", "y", true, "✓ run_shell_command(cmd='touch approved.txt')"},
		{"n denies", "n", false, "denied by the user"},
		{"esc denies", "Escape", false, "denied by the user"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer()
			defer srv.Close()
			dir := t.TempDir()
			srv.Script(llmtest.Reply{ToolCalls: []llmtest.ToolCall{tuiShellCall("c1", "touch approved.txt")}}, llmtest.Reply{Text: "Finished."})
			s := startTUI(t, dir, tuiEnv(t, srv, "CO_CLI_SANDBOX_BACKEND=subprocess"), 110, 40)
			s.ready()
			s.send("make the file")
			scr := s.waitFor(tuiWait, "Approve run_shell_command?", "$ touch approved.txt", "Why it asks:", "a approves for this session")
			if fileExists(dir, "approved.txt") {
				t.Fatalf("the command ran before approval:\n%s", scr)
			}
			s.waitArmed()
			s.keys(tt.key)
			s.waitFor(tuiWait, "Finished.", tt.shows)
			if got := fileExists(dir, "approved.txt"); got != tt.created {
				t.Fatalf("file created = %v, want %v", got, tt.created)
			}
			if strings.Contains(s.screen(), "Approve run_shell_command?") {
				t.Fatal("modal still shown")
			}
		})
	}
	t.Run("a approves this command for the session", func(t *testing.T) {
		srv := llmtest.NewServer()
		defer srv.Close()
		dir := t.TempDir()
		srv.Script(
			llmtest.Reply{ToolCalls: []llmtest.ToolCall{tuiShellCall("c1", "echo hi >> log.txt")}},
			llmtest.Reply{ToolCalls: []llmtest.ToolCall{tuiShellCall("c2", "echo hi >> log.txt")}},
			llmtest.Reply{Text: "Twice."},
		)
		s := startTUI(t, dir, tuiEnv(t, srv, "CO_CLI_SANDBOX_BACKEND=subprocess"), 110, 40)
		s.ready()
		s.send("log twice")
		s.waitFor(tuiWait, "Approve run_shell_command?", "a approves for this session: exactly this command")
		s.waitArmed()
		s.keys("a")
		scr := s.waitFor(tuiWait, "Twice.", "(session grant)")
		if strings.Contains(scr, "Approve run_shell_command?") {
			t.Fatalf("the second call asked again:\n%s", scr)
		}
		b, _ := os.ReadFile(filepath.Join(dir, "log.txt"))
		if string(b) != "hi\nhi\n" {
			t.Fatalf("log.txt = %q", b)
		}
	})
}

func TestTUITypingFastIntoAModalIsNotAnApproval(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	dir := t.TempDir()
	// The reply that asks is held until the keys are on their way: typing
	// is ordered against the modal by events, not by a typing cadence (40
	// keys 25 ms apart let a loaded machine pause past the grace between
	// two of them, and a key after such a pause rightly answers).
	gate := make(chan struct{})
	srv.Script(llmtest.Reply{Text: "Let me do that.", ToolCalls: []llmtest.ToolCall{tuiShellCall("c1", "touch typed.txt")}, Gate: gate},
		llmtest.Reply{Text: "OK then."})
	s := startTUI(t, dir, tuiEnv(t, srv, "CO_CLI_SANDBOX_BACKEND=subprocess"), 110, 40)
	s.ready()
	s.send("do it")
	srv.WaitRequests(1, tuiWait)
	// Someone answering an earlier question keeps typing y and a: a burst
	// before the modal (it goes to the prompt), then one as it opens (what
	// reaches the modal comes within its grace: keys pending when it opens).
	burst := strings.Repeat("yaY", 12)
	s.typeText(burst)
	s.waitFor(tuiWait, "❯ yaYyaY")
	close(gate)
	s.typeText(burst)
	scr := s.waitFor(tuiWait, "Approve run_shell_command?")
	if fileExists(dir, "typed.txt") {
		t.Fatalf("typing into the modal approved the command:\n%s", scr)
	}
	s.waitArmed()
	if fileExists(dir, "typed.txt") {
		t.Fatalf("typing into the modal approved the command:\n%s", s.screen())
	}
	s.keys("n")
	s.waitFor(tuiWait, "OK then.", "denied by the user")
	if fileExists(dir, "typed.txt") {
		t.Fatal("the denied command ran")
	}
}

func TestTUICtrlCTwiceExitsAndRestoresTheTerminal(t *testing.T) {
	s := startTUI(t, t.TempDir(), tuiEnv(t, nil, "LLM_PROVIDER=openai", "OPENAI_BASE_URL=http://127.0.0.1:9/v1", "OPENAI_MODEL=m"), 100, 30)
	s.ready()
	if s.format("#{alternate_on}") != "1" || s.format("#{mouse_any_flag}#{mouse_button_flag}") == "00" {
		t.Errorf("the chat should use the alternate screen and the mouse")
	}
	s.keys("C-c")
	s.waitFor(tuiWait, "Press Ctrl+C again to exit")
	s.keys("C-c")
	if code := s.exitCode(tuiWait); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	s.assertRestored()
}

func TestTUIExitPathsRestoreTheTerminal(t *testing.T) {
	for _, tt := range []struct {
		name string
		exit func(s *tuiSession)
	}{
		{"ctrl+d", func(s *tuiSession) { s.keys("C-d") }},
		{"/exit", func(s *tuiSession) { s.send("/exit") }},
		{"SIGTERM", func(s *tuiSession) { s.signal(syscall.SIGTERM) }},
		{"SIGHUP", func(s *tuiSession) { s.signal(syscall.SIGHUP) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := startTUI(t, t.TempDir(), tuiEnv(t, nil, "LLM_PROVIDER=openai", "OPENAI_BASE_URL=http://127.0.0.1:9/v1", "OPENAI_MODEL=m"), 100, 30)
			s.ready()
			tt.exit(s)
			s.exitCode(tuiWait)
			s.assertRestored()
		})
	}
}

func TestTUIResizeWhileStreamingKeepsTheLayout(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	var reply strings.Builder
	for i := 0; i < 40; i++ {
		reply.WriteString("Paragraph with enough words to wrap across the narrower widths of this test.\n\n")
	}
	reply.WriteString("LAST-LINE")
	srv.Script(llmtest.Reply{Text: reply.String(), ChunkSize: 8, ChunkDelay: 3 * time.Millisecond})
	s := startTUI(t, t.TempDir(), tuiEnv(t, srv), 120, 35)
	s.ready()
	s.send("write a lot")
	s.waitFor(tuiWait, "Paragraph with")
	for _, w := range []int{80, 130, 60, 104} {
		s.resize(w, 30)
		time.Sleep(150 * time.Millisecond)
	}
	// The reply's end and the turn's: "tokens" (as this waited for) is in
	// the status bar from the start, so it never said the turn was over.
	scr := s.waitUntil(tuiWait, "LAST-LINE and the turn's end", func(scr string) bool {
		return strings.Contains(scr, "LAST-LINE") && turnOver(scr)
	})
	lines := strings.Split(strings.TrimRight(scr, "\n"), "\n")
	if len(lines) != 30 {
		t.Fatalf("%d lines on a 30-line screen:\n%s", len(lines), scr)
	}
	last := lines[len(lines)-1]
	if !strings.Contains(last, "openai · test-model") {
		t.Errorf("status bar not on the last line: %q", last)
	}
	if !strings.HasPrefix(lines[len(lines)-2], "❯ ") || !strings.HasPrefix(lines[len(lines)-3], "────") {
		t.Errorf("prompt not above the status bar:\n%s", scr)
	}
	panel := -1
	for i, l := range lines[:len(lines)-1] {
		r := []rune(l)
		if len(r) > 104 {
			t.Errorf("line %d wider than the window: %q", i, l)
		}
		p := strings.IndexRune(l, '│')
		if i == 0 {
			panel = len([]rune(l[:max(p, 0)]))
		}
		if p < 0 || len([]rune(l[:p])) != panel {
			t.Errorf("side panel border not straight at line %d: %q", i, l)
		}
		if strings.Contains(l, "Paragraph") && !strings.Contains(l, "Paragraph with enough words") {
			t.Errorf("garbled line: %q", l)
		}
	}
}

func TestTUIEscapeSequencesInAReplyAreShownNotObeyed(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	evil := "SAFE-START \x1b[2J\x1b[H" + // clear the screen
		"\x1b]52;c;ZXZpbA==\x07" + // write the clipboard
		"\x1b]8;;http://evil.example\x1b\\link\x1b]8;;\x1b\\" + // hyperlink
		"\x1b]2;pwned-title\x07" + // window title
		"\x1bP+q544e\x1b\\" + // DCS
		"\x1b_apc\x1b\\" + // APC
		"\u009b31mC1\u009c" + // C1 CSI and ST
		"over\rwrite back\bspace \u202eRTL\u202c SAFE-END"
	srv.Script(llmtest.Reply{Text: evil, ChunkSize: 3})
	s := startTUI(t, t.TempDir(), tuiEnv(t, srv), 110, 35)
	s.ready()
	title := s.format("#{pane_title}")
	s.send("say something nasty")
	scr := s.waitFor(tuiWait, "SAFE-END")
	for _, want := range []string{"co 0.1.0-dev", "❯ say something nasty", "SAFE-START", "␛[2J␛[H␛]52;c;ZXZpbA==␇␛]8;;http://evil.example␛\\link", "␈space"} {
		if !strings.Contains(scr, want) {
			t.Errorf("screen lacks %q (was it cleared or obeyed?):\n%s", want, scr)
		}
	}
	if b := s.buffers(); b != "" {
		t.Errorf("something reached the clipboard: %q", b)
	}
	if got := s.format("#{pane_title}"); got != title || strings.Contains(got, "pwned") {
		t.Errorf("window title changed to %q", got)
	}
	// The user's own copy (ctrl+y) does reach the clipboard, neutralised.
	s.keys("C-y")
	deadline := time.Now().Add(tuiWait)
	for s.buffers() == "" && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if b := s.buffers(); !strings.Contains(b, "SAFE-START") || strings.Contains(b, "\x1b") {
		t.Errorf("ctrl+y copied %q", b)
	}
}

func TestTUIHelpListsKeysAndBangRunsThroughTheModal(t *testing.T) {
	dir := t.TempDir()
	s := startTUI(t, dir, tuiEnv(t, nil, "LLM_PROVIDER=openai", "OPENAI_BASE_URL=http://127.0.0.1:9/v1", "OPENAI_MODEL=m", "CO_CLI_SANDBOX_BACKEND=subprocess"), 110, 96)
	s.ready()
	s.send("/help")
	// "!cmd" alone proves nothing: the prompt's placeholder ("!cmd runs a
	// shell command") shows it before /help. Its row in the help, then.
	scr := s.waitFor(tuiWait, "Commands:", "/yolo", "ctrl+y", "copy", "release the mouse", "run a shell command (same approval policy")
	if !regexp.MustCompile(`!cmd\s+run a shell command \(same approval policy`).MatchString(scr) {
		t.Fatalf("/help has no !cmd row:\n%s", scr)
	}
	s.send("!touch bang.txt")
	s.waitFor(tuiWait, "Approve run_shell_command?", "$ touch bang.txt")
	s.waitArmed()
	s.keys("y")
	s.waitFor(tuiWait, "✓ ! touch bang.txt")
	if !fileExists(dir, "bang.txt") {
		t.Fatal("!cmd did not run")
	}
}

func TestTUIFirstRunSaysWhatToSet(t *testing.T) {
	// 60 rows: /status's whole block fits, its provider row included.
	s := startTUI(t, t.TempDir(), tuiEnv(t, nil, "OLLAMA_HOST=http://127.0.0.1:9"), 100, 60)
	// The setup box comes first (TestTUIFirstRunSetup); Esc skips it, and
	// the welcome still says what to set.
	s.waitFor(tuiWait, "Set up a provider")
	s.keys("Escape")
	scr := s.waitFor(tuiWait, "No LLM provider is usable yet", "GEMINI_API_KEY", "ollama serve", "OPENAI_BASE_URL", "Setup skipped")
	// It leads with /setup, which needs no restart; the variables are the
	// alternative, not "For example, then restart co".
	setupAt, envAt := strings.Index(scr, "Type /setup to choose one here (no restart needed)."), strings.Index(scr, "export GEMINI_API_KEY")
	if setupAt < 0 || envAt < setupAt || strings.Contains(scr, "For example, then restart co") {
		t.Fatalf("the first-run box does not lead with /setup:\n%s", scr)
	}
	s.send("/status")
	// Status's own rows: "provider" alone was already on the screen (the
	// box says "No LLM provider is usable yet"), so it proved nothing, and
	// once /status's block scrolled that line away it could not be found.
	scr = s.waitFor(tuiWait, "none usable:", "untrusted")
	if !regexp.MustCompile(`provider\s+none usable:`).MatchString(scr) {
		t.Fatalf("/status has no provider row:\n%s", scr)
	}
}

// The renderer diffs each frame against the last one cell by cell, and
// repaints whole lines that hold wide characters (third_party/ultraviolet
// skips measuring ASCII cells for that decision). Lines mixing ASCII with
// CJK and accented text, growing chunk by chunk and scrolling, must end up
// on a real terminal exactly as written.
func TestTUIMixedWidthTextRedrawsExactly(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	lines := []string{
		"ascii then 中文字符 then ascii again",
		"日本語のテキスト and café crème brûlée",
		"plain ascii line number three",
		"한국어 텍스트 mixed with ASCII 12345",
		"末尾 wide at the end 終わり",
	}
	var reply strings.Builder
	for i := 0; i < 8; i++ { // enough to scroll the chat pane
		for _, l := range lines {
			fmt.Fprintf(&reply, "%d %s\n\n", i, l)
		}
	}
	reply.WriteString("WIDE-END 完")
	srv.Script(llmtest.Reply{Text: reply.String(), ChunkSize: 3, ChunkDelay: time.Millisecond})
	s := startTUI(t, t.TempDir(), tuiEnv(t, srv), 120, 30)
	s.ready()
	s.send("mixed widths")
	// "tokens" is in the status bar from the start: the turn's end is the
	// bar's spinner gone.
	scr := s.waitUntil(tuiWait, "WIDE-END and the turn's end", func(scr string) bool {
		return strings.Contains(scr, "WIDE-END 完") && turnOver(scr)
	})
	for _, l := range lines {
		want := "7 " + l
		if !strings.Contains(scr, want) {
			t.Errorf("screen lacks %q exactly:\n%s", want, scr)
		}
	}
	rows := strings.Split(scr, "\n")
	border := strings.IndexRune(rows[0], '│')
	if border < 0 {
		t.Fatalf("no side panel on the first line:\n%s", scr)
	}
	panel := displayWidth(rows[0][:border])
	for i, l := range rows {
		// The side panel's border stays in its column: the text before it
		// takes exactly the chat pane's cells, wide characters or not.
		if p := strings.IndexRune(l, '│'); p >= 0 && strings.ContainsAny(l[:p], "中日한末") {
			if w := displayWidth(l[:p]); w != panel {
				t.Errorf("line %d: side panel border at column %d, want %d: %q", i, w, panel, l)
			}
		}
	}
}

// displayWidth counts columns the way the terminal does for the scripts
// used above: CJK and Hangul take two, everything else one.
func displayWidth(s string) int {
	w := 0
	for _, r := range s {
		switch {
		case r >= 0x1100 && r <= 0x115F, r >= 0x2E80 && r <= 0xA4CF, r >= 0xAC00 && r <= 0xD7A3, r >= 0xF900 && r <= 0xFAFF, r >= 0xFF00 && r <= 0xFF60:
			w += 2
		default:
			w++
		}
	}
	return w
}

// Issue 27: in a terminal of 80 columns Ctrl+T did nothing. It opens the
// spans panel beside the chat and closes it; below 60 columns it says
// there is no room.
func TestTUICtrlTAtEightyColumns(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(llmtest.Reply{Text: "The reply is here."})
	s := startTUI(t, t.TempDir(), tuiEnv(t, srv), 80, 24)
	s.ready()
	s.send("hi")
	scr := s.waitFor(tuiWait, "The reply is here.")
	if strings.Contains(scr, "Spans") {
		t.Fatalf("the panel shows at 80 columns before ctrl+t:\n%s", scr)
	}
	s.keys("C-t")
	s.waitFor(tuiWait, "Spans", "invoke_agent", "The reply is here.")
	s.keys("C-t")
	s.waitUntil(tuiWait, "the second ctrl+t to close the panel", func(scr string) bool { return !strings.Contains(scr, "Spans") })
	s.resize(50, 24)
	s.keys("C-t")
	s.waitFor(tuiWait, "spans need 60 columns")
}

// In a 40×12 terminal the welcome box is whole: its title line ("co
// VERSION · your assistant in the terminal") was not cut to the box, so
// the box grew past the screen and lost its right border.
func TestTUIWelcomeBoxFitsFortyColumns(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	s := startTUI(t, t.TempDir(), tuiEnv(t, srv), 40, 12)
	// 12 rows: the box's bottom is on screen, its top may have scrolled.
	scr := s.waitFor(tuiWait, "Ask co anything", "╰")
	box := 0
	for _, l := range strings.Split(scr, "\n") {
		l = strings.TrimRight(l, " ")
		if w := len([]rune(l)); w > 40 {
			t.Errorf("a line wider than the screen (%d): %q", w, l)
		}
		if len(l) < 3 || !strings.HasPrefix(l, "  ") {
			continue
		}
		if left, right := []rune(l)[2], []rune(l)[len([]rune(l))-1]; strings.ContainsRune("╭│╰", left) {
			box++
			if want := map[rune]rune{'╭': '╮', '│': '│', '╰': '╯'}[left]; right != want {
				t.Errorf("a line of the box ends in %q, not %q: %q", right, want, l)
			}
		}
	}
	if box < 3 {
		t.Fatalf("no welcome box:\n%s", scr)
	}
	if t.Failed() {
		t.Logf("screen:\n%s", scr)
	}
}
