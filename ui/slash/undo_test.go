package slash

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/provider"
	"github.com/co-cli/co/checkpoint"
	"github.com/co-cli/co/journal"
	"github.com/co-cli/co/sessions"
	"github.com/co-cli/co/undo"
)

func undoAgent() *agent.Agent {
	return agent.New(agent.Config{Provider: provider.Provider{Name: "openai", BaseURL: "http://127.0.0.1:1/v1", Model: "m"}})
}

// /undo and /rewind are refused, each with its reason, where there is
// nothing they could take back: a conversation not saved, a turn under
// way, a service that is not there; a bad argument says the usage.
func TestUndoRefusals(t *testing.T) {
	ag := undoAgent()
	svc := func() *undo.Service { return undo.New(undo.Config{}) }
	cases := []struct {
		name string
		env  Env
		line string
		want string
	}{
		{"not saved", Env{Agent: ag}, "/undo", "not being saved"},
		{"not saved rewind", Env{Agent: ag}, "/rewind 1", "not being saved"},
		{"nil service", Env{Agent: ag, Undo: func() *undo.Service { return nil }}, "/undo", "not being saved"},
		{"no session store", Env{Agent: ag, Undo: svc}, "/undo", "not being saved"},
		{"no session store rewind", Env{Agent: ag, Undo: svc}, "/rewind", "not being saved"},
		{"busy", Env{Agent: ag, Running: true, Undo: svc}, "/undo", "a turn is running"},
		{"busy rewind", Env{Agent: ag, Running: true, Undo: svc}, "/rewind", "a turn is running"},
		{"undo takes no argument", Env{Agent: ag, Undo: svc}, "/undo 3", "usage: /undo"},
	}
	for _, c := range cases {
		r := Dispatch(c.env, c.line)
		if !r.Err || r.Action != None || r.Rewind != nil || !strings.Contains(r.Output, c.want) {
			t.Errorf("%s: %s = %+v, want an error saying %q", c.name, c.line, r, c.want)
		}
		if strings.ContainsRune(r.Output, 0x1b) {
			t.Errorf("%s: a raw escape reaches the terminal: %q", c.name, r.Output)
		}
	}
	st, err := sessions.Open(filepath.Join(t.TempDir(), "sessions.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	empty := Env{Agent: ag, Undo: func() *undo.Service { return undo.New(undo.Config{Sessions: st, Session: "20260101-000000-abcd"}) }}
	for _, line := range []string{"/undo", "/rewind", "/rewind 1"} {
		if r := Dispatch(empty, line); !r.Err || r.Rewind != nil || !strings.Contains(r.Output, "has no turns yet") {
			t.Errorf("%s in a conversation with no turns = %+v", line, r)
		}
	}
	help := Dispatch(Env{Agent: ag}, "/help").Output
	for _, want := range []string{"/undo ", "/rewind ", "summarise"} {
		if !strings.Contains(help, want) {
			t.Errorf("/help lacks %q", want)
		}
	}
}

func TestParseMode(t *testing.T) {
	for w, want := range map[string]undo.Mode{"both": undo.Both, "files": undo.FilesOnly, "f": undo.FilesOnly,
		"conversation": undo.ConversationOnly, "conv": undo.ConversationOnly, "summarise": undo.Summarise, "Summarize": undo.Summarise} {
		if got, ok := ParseMode(w); !ok || got != want {
			t.Errorf("ParseMode(%q) = %v, %v; want %v", w, got, ok, want)
		}
	}
	for _, w := range []string{"", "x", "filesx", "all"} {
		if _, ok := ParseMode(w); ok {
			t.Errorf("ParseMode(%q) took it", w)
		}
	}
}

// What a rewind did is said file by file, conflicts with their reason,
// and nothing from a file name, a prompt or the journal reaches the
// terminal raw or on more than its line.
func TestReportIsSanitised(t *testing.T) {
	esc := "\x1b]52;c;ZXZpbA==\x07"
	res := undo.Result{
		Taken:  []undo.Turn{{N: 2, Prompt: "fix it" + esc}, {N: 3}},
		Prompt: "fix it" + esc + "\nplease",
		Files: checkpoint.Report{
			Restored:      []string{"a.txt" + esc},
			Removed:       []string{"new\nfile"},
			Conflicts:     []checkpoint.Conflict{{Path: "c.txt", Reason: "changed since " + esc}},
			NotRestorable: []checkpoint.Skipped{{Path: "big.bin"}},
		},
		Notes: []string{"note" + esc},
	}
	rep := Report(Rewind{N: 2, Mode: undo.Both}, res)
	for _, want := range []string{"Took back turns 2 to 3 (files and conversation).", "restored: a.txt", "removed:  new⏎file",
		"conflict: c.txt — changed since", "not restorable: big.bin — its earlier state was not kept", "note: note"} {
		if !strings.Contains(rep, want) {
			t.Errorf("report lacks %q:\n%s", want, rep)
		}
	}
	if strings.Count(rep, "\n") != 5 {
		t.Errorf("a name spilled over its line:\n%s", rep)
	}
	q := ConflictQuestion(res)
	if !strings.Contains(q, "c.txt") || !strings.Contains(q, "Overwrite") {
		t.Errorf("conflict question = %q", q)
	}
	was := PromptWas(res)
	if !strings.HasPrefix(was, "Your prompt was:\nfix it") || !strings.HasSuffix(was, "please") {
		t.Errorf("PromptWas = %q", was)
	}
	for _, s := range []string{rep, q, was, TurnLine(res.Taken[0])} {
		if strings.ContainsAny(s, "\x1b\x07") {
			t.Errorf("a raw escape reaches the terminal: %q", s)
		}
	}
	if got := Report(Rewind{Mode: undo.FilesOnly}, undo.Result{Taken: []undo.Turn{{N: 1}}}); !strings.Contains(got, "no file had changed") {
		t.Errorf("files-only report with no change = %q", got)
	}
}

// What the turns sent: the undoable entries to ask about one by one, the
// rest listed with why, those undone before left out.
func TestSplitSent(t *testing.T) {
	esc := "\x1b[2J"
	sent := []journal.Entry{
		{Seq: 1, What: "posted to #general: hi" + esc, Undoable: true, Ask: "3 people saw it" + esc},
		{Seq: 2, What: "fetched https://x", WhyNot: "a web request cannot be called back"},
		{Seq: 3, What: "drafted a mail", Undoable: true, Undone: journal.Undone},
		{Seq: 4, What: "called an MCP tool"},
	}
	ask, cannot := SplitSent(sent)
	if len(ask) != 1 || ask[0].Seq != 1 {
		t.Fatalf("ask = %+v", ask)
	}
	if len(cannot) != 2 || !strings.Contains(cannot[0], "fetched https://x — a web request cannot be called back") ||
		!strings.Contains(cannot[1], "called an MCP tool — the service has no undo") {
		t.Errorf("cannot = %q", cannot)
	}
	q := SentQuestion(ask[0])
	if !strings.Contains(q, "posted to #general: hi") || !strings.Contains(q, "3 people saw it") || !strings.HasSuffix(q, "Take it back?") {
		t.Errorf("question = %q", q)
	}
	for _, s := range []string{q, SentOutcome(ask[0], journal.Result{Outcome: journal.Undone}, nil),
		SentOutcome(ask[0], journal.Result{}, errors.New("forbidden"+esc))} {
		if strings.ContainsRune(s, 0x1b) {
			t.Errorf("a raw escape reaches the terminal: %q", s)
		}
	}
	if got := SentOutcome(ask[0], journal.Result{Outcome: journal.AlreadyGone, Message: "Already gone: it was deleted\x1b[2J"}, nil); got != "Already gone: it was deleted␛[2J" {
		t.Errorf("outcome = %q", got)
	}
	if got := SentOutcome(ask[0], journal.Result{Outcome: journal.AlreadyGone}, nil); !strings.HasPrefix(got, "already gone: posted") {
		t.Errorf("outcome = %q", got)
	}
	if got := SentOutcome(ask[0], journal.Result{}, errors.New("missing_scope")); !strings.HasPrefix(got, "could not take back posted") || !strings.HasSuffix(got, "missing_scope") {
		t.Errorf("outcome = %q", got)
	}
}
