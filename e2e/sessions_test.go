package e2e

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/co-cli/co/agent/llmtest"
)

// validHistory fails when a request sent to the model has a tool call
// without its result right after it.
func validHistory(t *testing.T, r llmtest.Request) {
	t.Helper()
	if msg := r.HistoryError(); msg != "" {
		t.Fatal(msg)
	}
}

func TestContinueResumeListAndRemove(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.SetDefault(llmtest.Reply{Echo: true})
	dir := t.TempDir()
	e := env(t, srv)
	out, _, code := runCo(t, dir, e, "first question\nsecond question\n", "--plain")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	out, _, _ = runCo(t, dir, e, "", "sessions")
	if !strings.Contains(out, "first question") || !strings.Contains(out, dir) || !strings.Contains(out, " 2 ") {
		t.Fatalf("co sessions:\n%s", out)
	}
	id := strings.Fields(strings.Split(out, "\n")[1])[0]

	out, _, code = runCo(t, dir, e, "third question\n", "--continue", "--plain")
	if code != 0 || !strings.Contains(out, "You said: second question") || !strings.Contains(out, "(resumed session") {
		t.Fatalf("--continue did not show the transcript (exit %d):\n%s", code, out)
	}
	last := srv.Requests()[len(srv.Requests())-1]
	if n := len(last.Body.Messages); n != 6 {
		t.Errorf("the resumed turn sent %d messages, want 6 (system + 2 exchanges + new prompt)", n)
	}
	// A second chat in the same workspace is a new session; --resume picks.
	runCo(t, dir, e, "another topic\n", "--plain")
	out, _, _ = runCo(t, dir, e, "", "run", "--resume", id[:10], "and now?")
	if !strings.Contains(out, "You said: and now?") {
		t.Fatalf("co run --resume: %s", out)
	}
	last = srv.Requests()[len(srv.Requests())-1]
	if !strings.Contains(last.Body.Messages[1].Content, "first question") {
		t.Errorf("co run --resume sent another conversation: %+v", last.Body.Messages[1])
	}
	out, _, code = runCo(t, dir, e, "", "sessions", "rm", id)
	if code != 0 || !strings.Contains(out, "Deleted session "+id) {
		t.Fatalf("rm: exit %d %s", code, out)
	}
	_, errOut, code := runCo(t, dir, e, "", "--resume", id, "--plain")
	if code != 1 || !strings.Contains(errOut, "no such session") {
		t.Fatalf("resume of a deleted session: exit %d %s", code, errOut)
	}
}

func TestClearStartsANewSavedSession(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.SetDefault(llmtest.Reply{Echo: true})
	dir := t.TempDir()
	e := env(t, srv)
	out, _, _ := runCo(t, dir, e, "topic one\n/clear\ntopic two\n/sessions\n", "--plain")
	if !strings.Contains(out, "topic one") || strings.Count(out, "topic ") < 4 {
		t.Fatalf("/sessions should list both conversations:\n%s", out)
	}
	out, _, _ = runCo(t, dir, e, "", "sessions")
	if strings.Count(out, "topic one") != 1 || strings.Count(out, "topic two") != 1 {
		t.Fatalf("two sessions expected:\n%s", out)
	}
}

func TestDamagedStoreIsReportedAndKept(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.SetDefault(llmtest.Reply{Echo: true})
	e := env(t, srv)
	var data string
	for _, kv := range e {
		if strings.HasPrefix(kv, "XDG_DATA_HOME=") {
			data = filepath.Join(strings.TrimPrefix(kv, "XDG_DATA_HOME="), "co-cli")
		}
	}
	if err := os.MkdirAll(data, 0o700); err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(data, "sessions.db")
	junk := []byte(strings.Repeat("this is not sqlite ", 300))
	if err := os.WriteFile(store, junk, 0o600); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := runCo(t, t.TempDir(), e, "", "--continue", "--plain")
	if code != 1 || !strings.Contains(errOut, "may be damaged") {
		t.Fatalf("--continue on a damaged store: exit %d %s", code, errOut)
	}
	out, errOut, code := runCo(t, t.TempDir(), e, "hi\n", "--plain")
	// The warning is in the banner, with every other warning of the start.
	banner, _, _ := strings.Cut(out, "Type a message")
	if code != 0 || !strings.Contains(banner, "warning: this conversation will not be saved") || !strings.Contains(out, "You said: hi") {
		t.Fatalf("a new chat with a damaged store must warn and work: exit %d\n%s\n%s", code, errOut, out)
	}
	if b, _ := os.ReadFile(store); string(b) != string(junk) {
		t.Fatal("the damaged store was overwritten")
	}
}

// TestKillDashNineLosesNothingOnScreen kills co with SIGKILL at three points
// of a turn, then checks that co --continue shows what had been shown and
// that the next turn works.
func TestKillDashNineLosesNothingOnScreen(t *testing.T) {
	cases := []struct {
		name     string
		script   []llmtest.Reply
		prompt   string
		waitFor  string // on screen before the kill
		answer   string // typed after waitFor, if any
		waitMore string
		want     []string // in the resumed transcript
	}{
		{
			name:    "while streaming",
			script:  []llmtest.Reply{{Text: "Streaming words that will be cut " + strings.Repeat("more ", 300), ChunkSize: 5, ChunkDelay: 15 * time.Millisecond}},
			prompt:  "tell me a story",
			waitFor: "Streaming words that will be cut more more",
			want:    []string{"co> tell me a story", "Streaming words that will be cut more more", "[interrupted]"},
		},
		{
			name:    "at the approval prompt",
			script:  []llmtest.Reply{{Text: "I will make a file.", ToolCalls: []llmtest.ToolCall{shellCall("k1", "touch x.txt")}}},
			prompt:  "make x",
			waitFor: "Approve run_shell_command(cmd='touch x.txt')? [y/n/a] ",
			want:    []string{"co> make x", "I will make a file.", "tool: run_shell_command(cmd='touch x.txt')", "result: run_shell_command interrupted"},
		},
		{
			name:     "while a tool runs",
			script:   []llmtest.Reply{{ToolCalls: []llmtest.ToolCall{shellCall("k2", "sleep 60")}}},
			prompt:   "wait a minute",
			waitFor:  "Approve run_shell_command(cmd='sleep 60')? [y/n/a] ",
			answer:   "y",
			waitMore: "co> ", // never: we kill while sleep runs
			want:     []string{"co> wait a minute", "tool: run_shell_command(cmd='sleep 60')", "approval: run_shell_command approved once", "result: run_shell_command interrupted"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer()
			defer srv.Close()
			srv.Script(tc.script...)
			dir := t.TempDir()
			e := env(t, srv)
			p := start(t, dir, e, "--plain")
			p.waitFor("co> ", 10*time.Second)
			p.send(tc.prompt)
			p.waitFor(tc.waitFor, 10*time.Second)
			if tc.answer != "" {
				p.send(tc.answer)
				waitForDescendant(t, p.cmd.Process.Pid, "sleep", 30*time.Second) // the tool is running
			}
			shown := p.stdout.String()
			_ = p.cmd.Process.Signal(syscall.SIGKILL)
			p.wait(10 * time.Second)

			srv.Script(llmtest.Reply{Text: "resumed fine"})
			out, _, code := runCo(t, dir, e, "go on\n", "--continue", "--plain")
			if code != 0 {
				t.Fatalf("--continue exit %d:\n%s", code, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("resumed transcript lacks %q\n--- shown before the kill:\n%s\n--- resumed:\n%s", w, shown, out)
				}
			}
			if !strings.Contains(out, "resumed fine") {
				t.Fatalf("the next turn did not work:\n%s", out)
			}
			validHistory(t, srv.Requests()[len(srv.Requests())-1])
		})
	}
}

// A resumed transcript shows a tool's result as the live chat did: its
// outcome and display text, not the JSON the model was given.
func TestResumedTranscriptShowsToolResultsReadably(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv.Script(llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "l1", Name: "list_directory", Args: `{}`}}}, llmtest.Reply{Text: "listed"})
	e := env(t, srv)
	runCo(t, dir, e, "list\n", "--plain")
	out, _, _ := runCo(t, dir, e, "", "--continue", "--plain")
	if !strings.Contains(out, "result: list_directory done\n") || !strings.Contains(out, "notes.txt") || strings.Contains(out, `"display"`) {
		t.Fatalf("resumed transcript:\n%s", out)
	}
}

// TestTUIKillDashNineLosesNothingOnScreen kills the full-screen chat with
// SIGKILL while a reply streams. The chat saves streamed text once per
// frame, right before the frame (agent.SyncDraft): every word that was on
// screen must come back with --continue.
func TestTUIKillDashNineLosesNothingOnScreen(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	var reply strings.Builder
	for i := 1; i <= 400; i++ {
		fmt.Fprintf(&reply, "w%03d ", i)
	}
	srv.Script(llmtest.Reply{Text: reply.String(), ChunkSize: 5, ChunkDelay: 10 * time.Millisecond})
	dir := t.TempDir()
	e := tuiEnv(t, srv)
	s := startTUI(t, dir, e, 100, 30)
	s.ready()
	s.send("count for me")
	s.waitFor(tuiWait, "w060")
	shown := s.screen()
	s.signal(syscall.SIGKILL)

	last := 0
	for _, f := range strings.Fields(shown) {
		var n int
		if _, err := fmt.Sscanf(f, "w%03d", &n); err == nil && n > last {
			last = n
		}
	}
	if last < 60 {
		t.Fatalf("could not read the last word shown:\n%s", shown)
	}
	srv.Script(llmtest.Reply{Text: "resumed fine"})
	out, errOut, code := runCo(t, dir, e, "go on\n", "--continue", "--plain")
	if code != 0 {
		t.Fatalf("--continue exit %d:\n%s%s", code, out, errOut)
	}
	if want := fmt.Sprintf("w%03d", last); !strings.Contains(out, want) || !strings.Contains(out, "[interrupted]") {
		t.Errorf("resumed transcript lacks %s, the last word on screen before the kill, or the interrupted mark\n--- shown:\n%s\n--- resumed:\n%s", want, shown, out)
	}
	if !strings.Contains(out, "resumed fine") {
		t.Fatalf("the next turn did not work:\n%s", out)
	}
	validHistory(t, srv.Requests()[len(srv.Requests())-1])
}

// A !cmd and its output come back when the session is resumed, in
// --plain and in the full-screen chat, between the messages around it
// (issue 19, item 17).
func TestResumedSessionShowsBangCommands(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.SetDefault(llmtest.Reply{Echo: true})
	dir := t.TempDir()
	e := env(t, srv)
	// Unsandboxed, every command asks: "y" approves it once.
	out, _, code := runCo(t, dir, e, "hello\n!echo bang-$((6*7))-marker\ny\nbye\n", "--plain")
	if code != 0 || !strings.Contains(out, "bang-42-marker") {
		t.Fatalf("the !cmd did not run (exit %d):\n%s", code, out)
	}
	out, _, code = runCo(t, dir, e, "", "--continue", "--plain")
	if code != 0 {
		t.Fatalf("--continue exit %d:\n%s", code, out)
	}
	order := []string{"You said: hello", "co> !echo bang-$((6*7))-marker", "result: run_shell_command done", "bang-42-marker", "co> bye", "You said: bye", "(resumed session"}
	assertInOrder(t, out, order)
	// The !cmd's approval is told by its result line, not by a separate
	// approval line that its shared call id would put in the wrong place.
	if strings.Contains(out, "approval: run_shell_command") {
		t.Errorf("the !cmd's approval is shown apart from it:\n%s", out)
	}

	te := append([]string(nil), e...) // the same data dir, on a terminal
	for i, kv := range te {
		if strings.HasPrefix(kv, "TERM=") {
			te[i] = "TERM=xterm-256color"
		}
	}
	s := startTUI(t, dir, te, 100, 40, "--continue")
	shown := s.waitFor(tuiWait, "Resumed session")
	assertInOrder(t, shown, []string{"You said: hello", "! echo bang-$((6*7))-marker", "bang-42-marker", "You said: bye", "Resumed session"})
}

// assertInOrder fails unless each of want appears in s after the one before.
func assertInOrder(t *testing.T, s string, want []string) {
	t.Helper()
	at := 0
	for _, w := range want {
		i := strings.Index(s[at:], w)
		if i < 0 {
			t.Fatalf("%q is missing after position %d (want in order %q):\n%s", w, at, want, s)
		}
		at += i + len(w)
	}
}

// waitForDescendant waits until a process below pid runs a command whose
// argv[0] base name is name; timeout only detects a hang.
func waitForDescendant(t *testing.T, pid int, name string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		if hasDescendant(pid, name) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %q process below pid %d after %v", name, pid, timeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func hasDescendant(root int, name string) bool {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return false
	}
	parent := map[int]int{}
	var named []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so split after its ")".
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(stat[i+1:]))
		if len(f) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		parent[pid] = ppid
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if argv0, _, _ := bytes.Cut(cmdline, []byte{0}); filepath.Base(string(argv0)) == name {
			named = append(named, pid)
		}
	}
	for _, pid := range named {
		for p, hops := parent[pid], 0; p > 1 && hops < 64; p, hops = parent[p], hops+1 {
			if p == root {
				return true
			}
		}
	}
	return false
}

// Issue 27: every co run became a saved session, and co --continue in the
// chat resumed it. A co run's session is kept apart: the chat's --continue
// and /sessions take the chat's, co run --continue takes co run's,
// --resume ID and /sessions ID take either; /sessions marks the current
// session and a switch says one line.
func TestChatAndRunSessionsAreKeptApart(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.SetDefault(llmtest.Reply{Echo: true})
	dir := t.TempDir()
	e := env(t, srv)
	if out, errOut, code := runCo(t, dir, e, "chat question\n", "--plain"); code != 0 {
		t.Fatalf("chat: exit %d\n%s%s", code, out, errOut)
	}
	if out, errOut, code := runCo(t, dir, e, "", "run", "scripted question"); code != 0 {
		t.Fatalf("co run: exit %d\n%s%s", code, out, errOut)
	}
	list, _, _ := runCo(t, dir, e, "", "sessions")
	var chatID, runID string
	for _, l := range strings.Split(list, "\n") {
		switch f := strings.Fields(l); {
		case strings.Contains(l, "chat question") && strings.Contains(l, " chat "):
			chatID = f[0]
		case strings.Contains(l, "scripted question") && strings.Contains(l, " co run "):
			runID = f[0]
		}
	}
	if chatID == "" || runID == "" {
		t.Fatalf("co sessions does not tell the chat's session from co run's:\n%s", list)
	}

	// The chat continues its own session, though co run's is more recent.
	out, errOut, code := runCo(t, dir, e, "/sessions\n/sessions all\n/sessions "+chatID+"\n/sessions "+runID[:10]+"\n", "--continue", "--plain")
	if code != 0 {
		t.Fatalf("co --continue: exit %d\n%s%s", code, out, errOut)
	}
	resumed, rest, _ := strings.Cut(out, "(resumed session "+chatID)
	if !strings.Contains(resumed, "You said: chat question") || strings.Contains(resumed, "scripted question") {
		t.Fatalf("co --continue did not resume the chat's session %s:\n%s", chatID, out)
	}
	// /sessions: the chat's, the current one marked, co run's counted.
	plainList, rest, _ := strings.Cut(rest, "co> /sessions all")
	if !strings.Contains(plainList, "* "+chatID) || strings.Contains(plainList, runID) ||
		!strings.Contains(plainList, "1 session saved by co run is not listed: /sessions all lists them too.") {
		t.Errorf("/sessions:\n%s", plainList)
	}
	allList, switched, _ := strings.Cut(rest, "co> /sessions "+runID[:10])
	allList, same, _ := strings.Cut(allList, "co> /sessions "+chatID)
	if !strings.Contains(same, "Session "+chatID+" (chat question) is the one this chat is in.") {
		t.Errorf("/sessions with the current session's id:\n%s", same)
	}
	if !strings.Contains(allList, "* "+chatID) || !regexp.MustCompile(`  `+runID+` .* co run +scripted question`).MatchString(allList) {
		t.Errorf("/sessions all:\n%s", allList)
	}
	if !strings.Contains(switched, "You said: scripted question") ||
		strings.Count(switched, runID) != 1 || !strings.Contains(switched, "Switched to co run's session "+runID+" (scripted question); type to continue.") ||
		strings.Contains(switched, "esumed") {
		t.Errorf("/sessions ID: not one line naming the session:\n%s", switched)
	}

	// co run --continue continues co run's session, not the chat's.
	out, errOut, code = runCo(t, dir, e, "", "run", "--continue", "and again")
	if code != 0 {
		t.Fatalf("co run --continue: exit %d\n%s%s", code, out, errOut)
	}
	last := srv.Requests()[len(srv.Requests())-1]
	var sent []string
	for _, m := range last.Body.Messages {
		sent = append(sent, m.Content)
	}
	if s := strings.Join(sent, "\n"); !strings.Contains(s, "scripted question") || strings.Contains(s, "chat question") {
		t.Errorf("co run --continue sent another conversation:\n%s", s)
	}

	// The full-screen chat: /sessions marks the current session, and
	// /sessions ID ends the switched-to transcript with one line.
	te := append([]string(nil), e...)
	for i, kv := range te {
		if strings.HasPrefix(kv, "TERM=") {
			te[i] = "TERM=xterm-256color"
		}
	}
	tui := startTUI(t, dir, te, 140, 40, "--continue")
	tui.waitFor(tuiWait, "Resumed session "+chatID)
	tui.send("/sessions")
	tui.waitFor(tuiWait, "* "+chatID, "* is this chat's session.", "/sessions all lists them too.")
	tui.send("/sessions " + runID[:10])
	scr := tui.waitFor(tuiWait, "Switched to co run's session "+runID)
	if strings.Contains(scr, "Resumed session") || strings.Count(scr, runID) != 1 || !strings.Contains(scr, "You said: scripted question") {
		t.Errorf("the full-screen /sessions ID: not the transcript and one line naming the session:\n%s", scr)
	}

	// With no chat session, the chat's --continue says which co run session
	// there is and how to take it.
	dir2 := t.TempDir()
	runCo(t, dir2, e, "", "run", "only a run")
	_, errOut, code = runCo(t, dir2, e, "", "--continue", "--plain")
	if code != 1 || !strings.Contains(errOut, "no saved chat session in "+dir2) || !strings.Contains(errOut, "co --resume ") {
		t.Errorf("--continue with only a co run session: exit %d\n%s", code, errOut)
	}
	dir3 := t.TempDir()
	runCo(t, dir3, e, "only a chat\n", "--plain")
	_, errOut, code = runCo(t, dir3, e, "", "run", "--continue", "go on")
	if code != 1 || !strings.Contains(errOut, "no saved co run session in "+dir3) || !strings.Contains(errOut, "co run --resume ") {
		t.Errorf("co run --continue with only a chat session: exit %d\n%s", code, errOut)
	}
}
