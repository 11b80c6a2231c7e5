package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/co-cli/co/agent/llmtest"
)

// TestTwoProcessesShareTheDataDir runs co twice at once in two terminals
// (full-screen chats in tmux) and twice more as co run, all on one data
// directory, with slow streamed replies and tool calls so that their
// writes to sessions.db, co-cli.db and history.txt interleave. Every turn
// must finish, no "locked"/"busy" may reach the user, and nothing of
// either may be lost: co sessions lists every session with all its
// messages, the span store holds every run's turns and history.txt every
// prompt.
func TestTwoProcessesShareTheDataDir(t *testing.T) {
	const turns = 3
	tuis := []string{"alpha", "beta"}
	runs := []string{"gamma", "delta"}
	srv := llmtest.NewServer()
	defer srv.Close()
	slow := func(r llmtest.Reply) llmtest.Reply {
		r.ChunkSize, r.ChunkDelay = 2, 3*time.Millisecond
		return r
	}
	for _, tag := range append(append([]string{}, tuis...), runs...) {
		for i := 1; i <= turns; i++ {
			p := fmt.Sprintf("%s turn %d", tag, i)
			srv.Rules(
				slow(llmtest.Reply{Match: p, Text: "Let me look at " + p + ".", ToolCalls: []llmtest.ToolCall{
					{Name: "list_directory", Args: `{}`},
					{Name: "read_file", Args: `{"path":"notes.txt"}`},
				}}),
				slow(llmtest.Reply{Match: p, Text: fmt.Sprintf("Answer to %s: the notes say hello, and that is all there is to it.", p)}),
			)
		}
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := tuiEnv(t, srv)
	var data string
	for _, kv := range e {
		if strings.HasPrefix(kv, "XDG_DATA_HOME=") {
			data = filepath.Join(strings.TrimPrefix(kv, "XDG_DATA_HOME="), "co-cli")
		}
	}

	// The two co runs, each doing its turns one after another, while the
	// chats do theirs.
	var wg sync.WaitGroup
	type result struct {
		tag, out, errOut string
		code             int
	}
	results := make(chan result, len(runs)*turns)
	for _, tag := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 1; i <= turns; i++ {
				out, errOut, code := runCo(t, dir, e, "", "run", fmt.Sprintf("%s turn %d", tag, i))
				results <- result{tag, out, errOut, code}
			}
		}()
	}
	// The two chats start at the same moment as the co runs, all on a data
	// dir that does not exist yet (so they create its stores together).
	screens := make([]*tuiSession, len(tuis))
	for i := range tuis {
		screens[i] = startTUI(t, dir, e, 120, 40)
	}
	for _, s := range screens {
		s.ready()
	}
	for i := 1; i <= turns; i++ {
		for j, s := range screens {
			s.send(fmt.Sprintf("%s turn %d", tuis[j], i))
		}
		for j, s := range screens {
			s.waitFor(30*time.Second, fmt.Sprintf("Answer to %s turn %d: the notes say hello", tuis[j], i))
		}
	}
	wg.Wait()
	close(results)
	for r := range results {
		if r.code != 0 || !strings.Contains(r.out, "the notes say hello") {
			t.Errorf("co run %s: exit %d\nstdout: %s\nstderr: %s", r.tag, r.code, r.out, r.errOut)
		}
		if s := r.out + r.errOut; strings.Contains(s, "locked") || strings.Contains(s, "busy") || strings.Contains(s, "will not be saved") {
			t.Errorf("co run %s showed %q", r.tag, s)
		}
	}
	for j, s := range screens {
		if scr := s.screen(); strings.Contains(scr, "locked") || strings.Contains(scr, "busy") || strings.Contains(scr, "will not be saved") {
			t.Errorf("chat %s showed a store error:\n%s", tuis[j], scr)
		}
		s.send("/exit")
	}
	for j, s := range screens {
		if code := s.exitCode(20 * time.Second); code != 0 {
			t.Errorf("chat %s exited %d", tuis[j], code)
		}
		if scr := s.screen(); strings.Contains(scr, "locked") || strings.Contains(scr, "busy") || strings.Contains(scr, "will not be saved") {
			t.Errorf("chat %s showed on exit:\n%s", tuis[j], scr)
		}
	}

	// Sessions: one per co run turn and one per chat, each complete: user,
	// assistant with two calls, two tool results, assistant (6 messages a
	// turn).
	out, errOut, code := runCo(t, dir, e, "", "sessions")
	if code != 0 {
		t.Fatalf("co sessions: exit %d %s", code, errOut)
	}
	ids := map[string]string{} // tag (of the first prompt) → session id
	for _, line := range strings.Split(out, "\n")[1:] {
		for _, tag := range append(append([]string{}, tuis...), runs...) {
			if strings.Contains(line, tag+" turn") {
				ids[strings.Fields(line)[0]] = tag
			}
		}
	}
	if want := len(tuis) + len(runs)*turns; len(ids) != want {
		t.Fatalf("co sessions lists %d sessions of the %d:\n%s", len(ids), want, out)
	}
	for id, tag := range ids {
		// The transcript, as --resume shows it, through a plain chat
		// that only looks and leaves.
		tr, errOut, code := runCo(t, dir, e, "/exit\n", "--resume", id, "--plain")
		if code != 0 {
			t.Errorf("--resume %s (%s): exit %d %s", id, tag, code, errOut)
			continue
		}
		n := turns
		if contains(runs, tag) {
			n = 1
		}
		for i := 1; i <= turns; i++ {
			p := fmt.Sprintf("%s turn %d", tag, i)
			if !strings.Contains(tr, "Answer to "+p) {
				continue
			}
			n--
			if c := strings.Count(tr, "notes.txt"); c == 0 {
				t.Errorf("session %s lacks its tool calls:\n%s", id, tr)
			}
		}
		if n != 0 {
			t.Errorf("session %s (%s) lacks answers:\n%s", id, tag, tr)
		}
	}

	// Spans: every turn of every process, as co tail shows them.
	tail, errOut, code := runCo(t, dir, e, "", "tail", "--no-follow", "--json", "--last", "0")
	if code != 0 || strings.Contains(errOut, "locked") {
		t.Fatalf("co tail: exit %d %s", code, errOut)
	}
	sessionsSeen := map[string]int{} // co.session.id → agent turns
	sc := bufio.NewScanner(strings.NewReader(tail))
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	tools := 0
	for sc.Scan() {
		var sp struct {
			Name     string         `json:"name"`
			Resource map[string]any `json:"resource"`
		}
		if err := json.Unmarshal(sc.Bytes(), &sp); err != nil {
			t.Fatalf("co tail line %q: %v", sc.Text(), err)
		}
		switch {
		case strings.HasPrefix(sp.Name, "invoke_agent"):
			sessionsSeen[fmt.Sprint(sp.Resource["session.id"])]++
		case strings.HasPrefix(sp.Name, "execute_tool"):
			tools++
		}
	}
	total := 0
	for _, n := range sessionsSeen {
		total += n
	}
	if want := (len(tuis) + len(runs)) * turns; total != want || tools != 2*want || len(sessionsSeen) != len(tuis)+len(runs)*turns {
		t.Errorf("co tail shows %d turns (want %d) of %d runs (want %d), %d tool calls (want %d)", total, want, len(sessionsSeen), len(tuis)+len(runs)*turns, tools, 2*want)
	}

	// History: every prompt typed into either chat.
	b, err := os.ReadFile(filepath.Join(data, "history.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tag := range tuis {
		for i := 1; i <= turns; i++ {
			if p := fmt.Sprintf("%s turn %d\n", tag, i); strings.Count(string(b), p) != 1 {
				t.Errorf("history.txt has %q %d times:\n%s", p, strings.Count(string(b), p), b)
			}
		}
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}
