package app

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/config"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/sessions"
)

// Issue 39: compaction is part of the saved session. These tests resume
// as co --continue does (app.New with Resume{Latest: true}) against a real
// session store and agent/llmtest, and measure requests at the server.

// compactionSetup is a model server whose summaries are short and whose
// replies are about a kilobyte, and settings that point co at it with
// max_history_messages (the default 40 unless set).
func compactionSetup(t *testing.T, maxHistory int, extra ...string) (*llmtest.Server, *config.Loaded) {
	t.Helper()
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	// A summary request's only user message is the transcript, which
	// starts "USER: " (agent/history.go); no chat message of these tests
	// contains it.
	srv.Rules(llmtest.Reply{Match: "USER: ", Reusable: true, Text: "- the user asked numbered questions and got long answers"})
	srv.SetDefault(llmtest.Reply{Text: strings.Repeat("a long answer ", 70), ChunkSize: 4096})
	home := t.TempDir()
	env := map[string]string{
		"CO_CLI_SANDBOX_BACKEND": "subprocess",
		"XDG_CONFIG_HOME":        filepath.Join(home, "cfg"), "XDG_DATA_HOME": filepath.Join(home, "data"),
		"LLM_PROVIDER": "openai", "OPENAI_BASE_URL": srv.URL, "OPENAI_MODEL": "test-model", "OPENAI_API_KEY": "sk-test",
		"CO_CLI_MEMORY_ENABLED": "false",
	}
	if maxHistory > 0 {
		env["CO_CLI_MAX_HISTORY_MESSAGES"] = fmt.Sprint(maxHistory)
	}
	for i := 0; i+1 < len(extra); i += 2 {
		env[extra[i]] = extra[i+1]
	}
	l, err := config.Load(config.LoadOptions{Getenv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }, WorkDir: t.TempDir(), HomeDir: home})
	if err != nil {
		t.Fatal(err)
	}
	return srv, l
}

// openApp is app.New as the chat makes it: a new session, or the latest
// one (co --continue).
func openApp(t *testing.T, l *config.Loaded, cont bool) *App {
	t.Helper()
	a, err := New(context.Background(), l, Options{Version: "test", Resume: Resume{Latest: cont}})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// turn sends prompt and waits for the turn to finish.
func turn(t *testing.T, a *App, prompt string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var end agent.Event
	for ev := range a.Agent.Submit(ctx, prompt) {
		switch ev.(type) {
		case agent.TurnFinished, agent.TurnFailed:
			end = ev
		}
	}
	if _, ok := end.(agent.TurnFinished); !ok {
		t.Fatalf("turn %q ended with %#v", prompt[:min(len(prompt), 20)], end)
	}
}

// question is turn i's prompt, about a kilobyte.
func question(i int) string {
	return fmt.Sprintf("question %d: %s", i, strings.Repeat("more detail ", 80))
}

// sizes are the body sizes of requests, the largest, and how many were
// summary requests (not streamed: agent/history.go's summarize).
func sizes(reqs []llmtest.Request) (largest, summaries int) {
	for _, r := range reqs {
		largest = max(largest, len(r.Raw))
		if !r.Stream {
			summaries++
		}
	}
	return largest, summaries
}

// A 150-turn chat compacts as it goes; resumed, its first turn sends no
// request larger than the chat ever did and asks for no summary: it starts
// from the saved compaction, not from every saved message.
func TestResumedLongChatSendsNoLargerRequest(t *testing.T) {
	for _, tc := range []struct {
		name  string
		max   int
		extra []string
	}{
		{"max_history_messages", 0, nil},
		// Past 80% of a known window (12,000 tokens: about 48 KB).
		{"context window", 10000, []string{"CO_CLI_LLM_CONTEXT_WINDOW", "12000"}},
	} {
		t.Run(tc.name, func(t *testing.T) { resumeLongChat(t, tc.max, tc.extra...) })
	}
}

func resumeLongChat(t *testing.T, maxHistory int, extra ...string) {
	srv, l := compactionSetup(t, maxHistory, extra...)
	a := openApp(t, l, false)
	for i := 0; i < 150; i++ {
		turn(t, a, question(i))
	}
	before, summaries := sizes(srv.Requests())
	if summaries == 0 {
		t.Fatal("the chat never summarised: the test proves nothing")
	}
	id := a.Agent.SessionID()
	a.Close()

	n := len(srv.Requests())
	b := openApp(t, l, true)
	if b.Agent.SessionID() != id {
		t.Fatalf("resumed %s, want %s", b.Agent.SessionID(), id)
	}
	turn(t, b, question(150))
	after := srv.Requests()[n:]
	largest, summaries := sizes(after)
	t.Logf("largest request before closing: %d bytes; after resuming: %d bytes, %d summaries", before, largest, summaries)
	if summaries != 0 || largest > before {
		t.Errorf("resumed: %d requests, %d summaries, largest %d bytes; before it was closed the chat's largest was %d", len(after), summaries, largest, before)
	}
	// The scrollback still has every message, the model the summary.
	shown, _ := b.Agent.Shown()
	if len(shown) != 302 || !strings.HasPrefix(shown[0].Content, "question 0:") {
		t.Errorf("the resumed chat shows %d messages, want all 302", len(shown))
	}
	if h := b.Agent.History(); len(h) >= 60 {
		t.Errorf("the model's history has %d messages: the compaction was not resumed", len(h))
	}
	// Resumed, it compacts again as it goes, and that is saved too.
	for i := 151; i < 190; i++ {
		turn(t, b, question(i))
	}
	if _, summaries := sizes(srv.Requests()[n:]); summaries == 0 {
		t.Fatal("the resumed chat never summarised")
	}
	before, _ = sizes(srv.Requests())
	b.Close()
	n = len(srv.Requests())
	c := openApp(t, l, true)
	defer c.Close()
	turn(t, c, question(190))
	if largest, summaries := sizes(srv.Requests()[n:]); summaries != 0 || largest > before {
		t.Errorf("resumed again: %d summaries, largest %d bytes; the chat's largest was %d", summaries, largest, before)
	}
	// The transcript keeps every message, and no summary as a message.
	_, msgs, err := c.Sessions.Load(id)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 382 {
		t.Errorf("the transcript has %d messages, want 382", len(msgs))
	}
	for _, m := range msgs {
		if strings.HasPrefix(m.Content, agent.SummaryIntro) {
			t.Fatalf("a summary was saved as a message of the transcript")
		}
	}
}

// /compact is saved: resumed, the model gets the summary and the new
// question, nothing summarised again; the scrollback shows every message
// and the notice of the compaction.
func TestCompactSurvivesResume(t *testing.T) {
	srv, l := compactionSetup(t, 0)
	a := openApp(t, l, false)
	for i := 0; i < 6; i++ {
		turn(t, a, question(i))
	}
	if n, err := a.Agent.Compact(context.Background()); err != nil || n != 12 {
		t.Fatalf("Compact = %d, %v", n, err)
	}
	a.Close()

	n := len(srv.Requests())
	b := openApp(t, l, true)
	defer b.Close()
	turn(t, b, "and now?")
	after := srv.Requests()[n:]
	if _, summaries := sizes(after); summaries != 0 || len(after) != 1 {
		t.Fatalf("resumed: %d requests, %d summaries", len(after), summaries)
	}
	var users []string
	for _, m := range after[0].Body.Messages {
		if m.Role == "user" {
			users = append(users, m.Content[:min(len(m.Content), 40)])
		}
	}
	if len(users) != 2 || !strings.HasPrefix(users[0], agent.SummaryIntro) || users[1] != "and now?" {
		t.Errorf("the resumed request's user messages: %q", users)
	}
	shown, xs := b.Agent.Shown()
	if len(shown) != 14 || shown[0].Content != question(0) {
		t.Errorf("the resumed chat shows %d messages, want 14", len(shown))
	}
	var notice bool
	for _, x := range xs {
		notice = notice || x.Notice == agent.CompactedNotice(12) && x.After == 12
	}
	if !notice {
		t.Errorf("the /compact notice is not shown where it happened: %+v", xs)
	}
}

// A session saved before compactions were (schema 5, messages only)
// resumes whole; its first turn summarises as it needs, and that
// compaction is saved: the next resume summarises nothing.
func TestOldSessionResumesAndThenKeepsItsCompaction(t *testing.T) {
	srv, l := compactionSetup(t, 0)
	path := filepath.Join(l.Paths.DataDir, sessions.FileName)
	wd, err := WorkingDir()
	if err != nil {
		t.Fatal(err)
	}
	oldStore(t, path, wd, 150)

	b := openApp(t, l, true)
	if h := b.Agent.History(); len(h) != 300 {
		t.Fatalf("the old session resumed with %d messages, want 300", len(h))
	}
	turn(t, b, question(150))
	if _, summaries := sizes(srv.Requests()); summaries != 1 {
		t.Errorf("the old session's first turn made %d summaries, want 1", summaries)
	}
	chat := srv.Requests()[len(srv.Requests())-1]
	b.Close()

	n := len(srv.Requests())
	c := openApp(t, l, true)
	defer c.Close()
	turn(t, c, question(151))
	after := srv.Requests()[n:]
	largest, summaries := sizes(after)
	if summaries != 0 || largest > len(chat.Raw)+4096 {
		t.Errorf("resumed again: %d summaries, largest request %d bytes (the turn after the summary: %d)", summaries, largest, len(chat.Raw))
	}
	if shown, _ := c.Agent.Shown(); len(shown) != 304 {
		t.Errorf("the resumed chat shows %d messages, want 304", len(shown))
	}
}

// oldStore writes a sessions file as co wrote it before compactions were
// saved (schema 5): one chat session of turns exchanges.
func oldStore(t *testing.T, path, workspace string, turns int) {
	t.Helper()
	// The schema as it was: a real store, taken back to version 5.
	st, err := sessions.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	stmts := []string{`DROP TABLE IF EXISTS compactions`, `DROP INDEX messages_undone`, `ALTER TABLE messages DROP COLUMN undone`, `ALTER TABLE messages DROP COLUMN undone_at`,
		`ALTER TABLE asides DROP COLUMN undone`, `ALTER TABLE sessions DROP COLUMN cached_tokens`, `ALTER TABLE sessions DROP COLUMN cost`,
		`ALTER TABLE sessions DROP COLUMN unpriced`, `PRAGMA user_version = 5`,
		fmt.Sprintf(`INSERT INTO sessions (id, workspace, title, created_at, updated_at, turns) VALUES ('old1', %q, 'old', 1, 1, %d)`, workspace, turns)}
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < turns; i++ {
		for k, m := range []message.Message{{Role: message.RoleUser, Content: question(i)}, {Role: message.RoleAssistant, Content: strings.Repeat("a long answer ", 70)}} {
			if _, err := db.Exec(`INSERT INTO messages (session_id, seq, role, content, created_at) VALUES ('old1', ?, ?, ?, ?)`, 2*i+k+1, string(m.Role), m.Content, 1); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// The last request's size survives a resume: a chat whose last request
// filled more than 80% of a known window compacts before its next one,
// and so does its first turn after co --continue (the size is saved with
// the reply, agent.Restore), not a turn later.
func TestResumeCompactsWhenTheChatWould(t *testing.T) {
	const window = 20000
	extra := []string{"CO_CLI_LLM_CONTEXT_WINDOW", fmt.Sprint(window)}
	// A server that counts the prompt as co estimates it, tools included
	// (llama-server's usage: the chat template renders the tools), so
	// the 80% reason, not the estimate, decides.
	setup := func() (*llmtest.Server, *config.Loaded) {
		srv, l := compactionSetup(t, 100000, extra...)
		srv.SetProfile(llmtest.ProfileLlamaCpp)
		srv.SetLlamaContext(2 * window)
		return srv, l
	}
	// The chat, not closed: the turn that first summarises, and the
	// request before it.
	srv, l := setup()
	a := openApp(t, l, false)
	first, last := -1, 0
	for i := 0; i < 80 && first < 0; i++ {
		n := len(srv.Requests())
		turn(t, a, question(i))
		reqs := srv.Requests()[n:]
		if _, s := sizes(reqs); s > 0 {
			first = i
			break
		}
		last = llmtest.PromptTokens(reqs[len(reqs)-1])
	}
	a.Close()
	if first < 1 {
		t.Fatalf("the chat summarised at turn %d: the test proves nothing", first)
	}
	t.Logf("the chat summarised at turn %d; the request before it had %d tokens of %d", first, last, window)
	if last <= window*8/10 {
		t.Fatalf("the request before the summary had %d tokens, not past 80%% of %d: another reason summarised", last, window)
	}

	// The same conversation, closed before that turn and resumed.
	srv2, l2 := setup()
	b := openApp(t, l2, false)
	for i := 0; i < first; i++ {
		turn(t, b, question(i))
	}
	b.Close()
	c := openApp(t, l2, true)
	defer c.Close()
	n := len(srv2.Requests())
	turn(t, c, question(first))
	if _, s := sizes(srv2.Requests()[n:]); s != 1 {
		t.Errorf("the resumed chat's turn %d made %d summaries; the chat not closed made one", first, s)
	}
}
