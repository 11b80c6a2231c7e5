package sessions

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/tools"
)

// turnSeqs appends n exchanges (exchange(from…)) to r and returns the seq
// of each one's user message, as Session.Seq gives it.
func turnSeqs(t *testing.T, r *Session, from, n int) []int64 {
	t.Helper()
	var out []int64
	for i := from; i < from+n; i++ {
		ex := exchange(i)
		must(t, r.Append(ex[0]))
		out = append(out, r.Seq())
		must(t, r.Append(ex[1]))
	}
	return out
}

func contents(msgs []message.Message) string {
	var b []string
	for _, m := range msgs {
		b = append(b, m.Content)
	}
	return strings.Join(b, " | ")
}

// Undoing the last turn takes its messages, its asides, its decision and
// the draft of its reply out of what a resume sends and shows, while the
// transcript keeps them marked; the list counts it as undone.
func TestUndoLastTurnIsNotResumed(t *testing.T) {
	s := open(t)
	r := s.New("/w")
	seqs := turnSeqs(t, r, 0, 2)
	must(t, r.Append(message.Message{Role: message.RoleUser, Content: "delete the logs"}))
	last := r.Seq()
	must(t, r.Append(message.Message{Role: message.RoleAssistant, ToolCalls: []message.ToolCall{{ID: "c1", Name: "run_shell_command", Args: "{}"}}}))
	must(t, r.Decision("c1", "run_shell_command", message.ApproveOnce))
	must(t, r.Append(message.Message{Role: message.RoleTool, ToolCallID: "c1", ToolName: "run_shell_command", Content: "removed"}))
	must(t, r.Aside(message.Aside{Notice: "a notice after the call"}))
	must(t, r.Draft("Done, the logs are"))

	turns, err := s.UndoFrom(r.ID(), last)
	must(t, err)
	if turns != 1 {
		t.Errorf("UndoFrom took out %d turns, want 1", turns)
	}
	if _, err := os.Stat(s.draftPath(r.ID())); !os.IsNotExist(err) {
		t.Errorf("the undone turn's draft is still there: %v", err)
	}
	res, err := s.LoadResume(r.ID())
	must(t, err)
	want := "question 0 | answer 0 | question 1 | answer 1"
	if got := contents(res.History); got != want {
		t.Errorf("history after undo: %q, want %q", got, want)
	}
	if got := contents(res.All); got != want {
		t.Errorf("all after undo: %q, want %q", got, want)
	}
	if len(res.Asides) != 0 || len(res.AllAsides) != 0 {
		t.Errorf("asides of the undone turn are shown: %+v %+v", res.Asides, res.AllAsides)
	}
	_, h, err := s.Load(r.ID())
	must(t, err)
	if got := contents(h); got != want {
		t.Errorf("Load after undo: %q", got)
	}
	// The transcript keeps every step, the undone ones marked.
	var marked []string
	for _, e := range res.Entries {
		switch {
		case e.Decision != nil:
			marked = append(marked, "decision:"+e.Undone)
		case e.Aside != nil:
			marked = append(marked, "aside:"+e.Undone)
		default:
			marked = append(marked, e.Message.Content+":"+e.Undone)
		}
	}
	wantMarks := "question 0: answer 0: question 1: answer 1: delete the logs:undone :undone decision:undone removed:undone aside:undone"
	if got := strings.Join(marked, " "); got != wantMarks {
		t.Errorf("transcript marks:\n got %s\nwant %s", got, wantMarks)
	}
	info, err := s.Find(r.ID())
	must(t, err)
	if info.Turns != 2 || info.Undone != 1 {
		t.Errorf("info: turns %d, undone %d; want 2 and 1", info.Turns, info.Undone)
	}
	ts, err := s.Turns(r.ID())
	must(t, err)
	if info.Title != "question 0" {
		t.Errorf("title %q", info.Title)
	}
	if len(ts) != 3 || ts[0].Seq != seqs[0] || ts[1].Seq != seqs[1] || ts[2].Seq != last || ts[2].Undone != MarkUndone || ts[1].Undone != "" || ts[2].Prompt != "delete the logs" {
		t.Errorf("turns: %+v", ts)
	}
	// A resume does not bring it back, and the session continues after it.
	r2, err := s.Resume(r.ID())
	must(t, err)
	if r2.Seq() != last+2 {
		t.Errorf("resumed Seq %d, want %d (after the undone messages)", r2.Seq(), last+2)
	}
	res, err = s.LoadResume(r.ID())
	must(t, err)
	if got := contents(res.History); got != want {
		t.Errorf("history after Resume: %q", got)
	}
}

// Seq keeps counting after an undo (seqs are never reused), and what is
// appended then is live and resumed after the turns before the undone ones.
func TestSeqAfterUndoContinues(t *testing.T) {
	s := open(t)
	r := s.New("/w")
	if r.Seq() != 0 {
		t.Fatalf("Seq of a new session: %d", r.Seq())
	}
	seqs := turnSeqs(t, r, 0, 3)
	if seqs[0] != 1 || seqs[1] != 3 || seqs[2] != 5 {
		t.Fatalf("turn seqs %v", seqs)
	}
	n, err := s.UndoFrom(r.ID(), seqs[1])
	must(t, err)
	if n != 2 {
		t.Errorf("took out %d turns, want 2", n)
	}
	more := turnSeqs(t, r, 7, 1)
	if more[0] != 7 || r.Seq() != 8 {
		t.Errorf("after undo the next turn is %d (Seq %d), want 7 (8)", more[0], r.Seq())
	}
	must(t, r.Aside(message.Aside{Notice: "after the new turn"}))
	res, err := s.LoadResume(r.ID())
	must(t, err)
	if got := contents(res.History); got != "question 0 | answer 0 | question 7 | answer 7" {
		t.Errorf("history: %q", got)
	}
	if len(res.Asides) != 1 || res.Asides[0].After != 4 {
		t.Errorf("asides: %+v", res.Asides)
	}
	// The turn after the undo can be undone in turn; the first can too.
	n, err = s.UndoFrom(r.ID(), more[0])
	must(t, err)
	if n != 1 {
		t.Errorf("took out %d, want 1", n)
	}
	info, err := s.Find(r.ID())
	must(t, err)
	if info.Turns != 1 || info.Undone != 3 {
		t.Errorf("info: %d turns, %d undone", info.Turns, info.Undone)
	}
	_, err = s.UndoFrom(r.ID(), seqs[0])
	must(t, err)
	info, err = s.Find(r.ID())
	must(t, err)
	if info.Title != "" || info.Turns != 0 {
		t.Errorf("every turn undone: title %q, %d turns", info.Title, info.Turns)
	}
	turnSeqs(t, r, 9, 1)
	info, err = s.Find(r.ID())
	must(t, err)
	if info.Title != "question 9" || info.Turns != 1 {
		t.Errorf("the next turn names it: title %q, %d turns", info.Title, info.Turns)
	}
}

// fromSeq must be a live turn's user message; anything else is refused
// with ErrNotATurn and changes nothing.
func TestUndoFromRefusesWhatIsNotALiveTurn(t *testing.T) {
	s := open(t)
	r := s.New("/w")
	seqs := turnSeqs(t, r, 0, 2)
	for _, c := range []struct {
		seq  int64
		want string
	}{
		{seqs[0] + 1, "assistant message"},
		{99, "has no message 99"},
	} {
		if _, err := s.UndoFrom(r.ID(), c.seq); !errors.Is(err, ErrNotATurn) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("UndoFrom(%d): %v, want ErrNotATurn saying %q", c.seq, err, c.want)
		}
	}
	_, err := s.UndoFrom(r.ID(), seqs[1])
	must(t, err)
	if _, err := s.UndoFrom(r.ID(), seqs[1]); !errors.Is(err, ErrNotATurn) || !strings.Contains(err.Error(), "undone already") {
		t.Errorf("undoing an undone turn again: %v", err)
	}
	if err := s.SummariseFrom(r.ID(), seqs[1], "x"); !errors.Is(err, ErrNotATurn) {
		t.Errorf("summarising an undone turn: %v", err)
	}
	if _, err := s.UndoFrom("nosuch", 1); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown session: %v", err)
	}
	if _, err := s.Turns("nosuch"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Turns of an unknown session: %v", err)
	}
	res, err := s.LoadResume(r.ID())
	must(t, err)
	if got := contents(res.History); got != "question 0 | answer 0" {
		t.Errorf("history: %q", got)
	}
}

// Undoing from a middle turn drops the compaction saved after it (its
// summary covers undone messages) but keeps one saved before it: the
// history is the earlier compaction's and the live messages after it.
func TestUndoFromMiddleTurnDropsLaterCompactions(t *testing.T) {
	s := open(t)
	r := s.New("/w")
	var live []message.Message
	for i := 0; i < 4; i++ {
		live = append(live, exchange(i)...)
		turnSeqs(t, r, i, 1)
	}
	first := join(summary("turns 0 to 2"), exchange(3))
	must(t, r.Compacted(first))
	seqs := turnSeqs(t, r, 4, 3) // turns 4, 5, 6: seqs 9, 11, 13
	must(t, r.Compacted(join(summary("turns 0 to 5"), exchange(6))))
	var n int
	must(t, s.db.QueryRow(`SELECT count(*) FROM compactions WHERE session_id = ?`, r.ID()).Scan(&n))
	if n != 2 {
		t.Fatalf("%d compactions saved, want 2", n)
	}

	turns, err := s.UndoFrom(r.ID(), seqs[1])
	must(t, err)
	if turns != 2 {
		t.Errorf("took out %d turns, want 2", turns)
	}
	must(t, s.db.QueryRow(`SELECT count(*) FROM compactions WHERE session_id = ?`, r.ID()).Scan(&n))
	if n != 1 {
		t.Errorf("%d compactions left, want the first only", n)
	}
	res, err := s.LoadResume(r.ID())
	must(t, err)
	if want := join(first, exchange(4)); !res.Compacted || !reflect.DeepEqual(res.History, want) {
		t.Errorf("history after undo:\n got %q\nwant %q", contents(res.History), contents(want))
	}
	if want := join(live, exchange(4)); !reflect.DeepEqual(res.All, want) {
		t.Errorf("all after undo: %q", contents(res.All))
	}
	// A compaction after the undo is saved over the live messages and
	// resumes exactly.
	r2, err := s.Resume(r.ID())
	must(t, err)
	turnSeqs(t, r2, 7, 2)
	h := join(exchange(0), summary("0 to 4"), exchange(7), exchange(8))
	must(t, r2.Compacted(h))
	items := compactionRow(t, s, r.ID())
	if len(items) != 4 || items[0].From != 1 || items[0].To != 2 || items[3].From != 15 || items[3].To != 18 {
		t.Errorf("compaction after undo saved as %+v", items)
	}
	res, err = s.LoadResume(r.ID())
	must(t, err)
	if !reflect.DeepEqual(res.History, h) {
		t.Errorf("history: %q, want %q", contents(res.History), contents(h))
	}
	// Undoing the first turn drops every compaction: nothing is left.
	_, err = s.UndoFrom(r.ID(), 1)
	must(t, err)
	res, err = s.LoadResume(r.ID())
	must(t, err)
	if res.Compacted || len(res.History) != 0 || len(res.All) != 0 {
		t.Errorf("after undoing every turn: compacted %v, %q, %q", res.Compacted, contents(res.History), contents(res.All))
	}
}

// A range of a compaction saved across messages an undo took out earlier
// stands for the live messages in it.
func TestCompactionRangesSkipUndoneMessages(t *testing.T) {
	s := open(t)
	r := s.New("/w")
	seqs := turnSeqs(t, r, 0, 3)
	_, err := s.UndoFrom(r.ID(), seqs[1])
	must(t, err)
	turnSeqs(t, r, 3, 3)
	// The history: turn 0, then 3, 4, 5; compacted to turn 0, a summary,
	// turn 5 (the summary's acknowledgement is what it is).
	h := join(exchange(0), exchange(3), summary("s"), exchange(5))
	must(t, r.Compacted(h))
	items := compactionRow(t, s, r.ID())
	// turn 0 (seqs 1-2) and turn 3 (7-8) are consecutive among the live
	// messages: one range over the undone ones.
	if len(items) != 4 || items[0].From != 1 || items[0].To != 8 {
		t.Errorf("saved as %+v", items)
	}
	res, err := s.LoadResume(r.ID())
	must(t, err)
	if !reflect.DeepEqual(res.History, h) {
		t.Errorf("history %q, want %q", contents(res.History), contents(h))
	}
}

// After SummariseFrom a resume sends the history before the turn, then
// the summary and its acknowledgement, then what came after; the
// summarised messages stay in the transcript and in what the chat shows,
// marked, and an undo from a turn before them takes them out too.
func TestSummariseFromResumesTheSummary(t *testing.T) {
	s := open(t)
	r := s.New("/w")
	seqs := turnSeqs(t, r, 0, 2)
	must(t, r.Append(message.Message{Role: message.RoleUser, Content: "read the page"}))
	must(t, r.Append(message.Message{Role: message.RoleAssistant, ToolCalls: []message.ToolCall{{ID: "c1", Name: "web_fetch", Args: "{}"}}}))
	web := tools.Origin{Kind: "web", Label: "https://example.com", Untrusted: true, Public: true}
	must(t, r.Append(message.Message{Role: message.RoleTool, ToolCallID: "c1", ToolName: "web_fetch", Content: "page", Sources: []tools.Origin{web}}))
	must(t, r.Append(message.Message{Role: message.RoleAssistant, Content: "it says hello"}))
	must(t, r.Aside(message.Aside{Notice: "after the page"}))
	more := turnSeqs(t, r, 3, 1)
	must(t, r.Draft("half"))

	must(t, s.SummariseFrom(r.ID(), seqs[1], "we talked about 1, a page and 3"))
	if _, err := os.Stat(s.draftPath(r.ID())); !os.IsNotExist(err) {
		t.Errorf("draft kept: %v", err)
	}
	res, err := s.LoadResume(r.ID())
	must(t, err)
	sum := message.Message{Role: message.RoleUser, Content: agent.SummaryIntro + "we talked about 1, a page and 3", Sources: []tools.Origin{web}}
	want := join(exchange(0), []message.Message{sum, {Role: message.RoleAssistant, Content: SummaryAck}})
	if !res.Compacted || !reflect.DeepEqual(res.History, want) {
		t.Fatalf("history after summarising:\n got %+v\nwant %+v", res.History, want)
	}
	if len(res.Asides) != 0 {
		t.Errorf("asides in the history: %+v", res.Asides)
	}
	if got := contents(res.All); got != "question 0 | answer 0 | question 1 | answer 1 | read the page |  | page | it says hello | question 3 | answer 3" {
		t.Errorf("all: %q", got)
	}
	if len(res.AllAsides) != 2 || res.AllAsides[0].Notice != SummarisedNotice || res.AllAsides[0].After != 2 || res.AllAsides[1].After != 8 {
		t.Errorf("all's asides: %+v", res.AllAsides)
	}
	summarised := 0
	for _, e := range res.Entries {
		if e.Undone == MarkSummarised {
			summarised++
		} else if e.Undone != "" || (e.Aside == nil && e.Message.Content != "question 0" && e.Message.Content != "answer 0") {
			t.Errorf("entry %+v marked %q", e, e.Undone)
		}
	}
	if summarised != 9 { // 8 messages and the aside
		t.Errorf("%d entries marked summarised, want 9", summarised)
	}
	ts, err := s.Turns(r.ID())
	must(t, err)
	if len(ts) != 4 || ts[0].Undone != "" || ts[1].Undone != MarkSummarised || ts[3].Seq != more[0] || ts[3].Undone != MarkSummarised {
		t.Errorf("turns: %+v", ts)
	}

	// Later messages follow the summary; a compaction of that history
	// keeps the summary.
	after := turnSeqs(t, r, 4, 2)
	res, err = s.LoadResume(r.ID())
	must(t, err)
	if want := join(want, exchange(4), exchange(5)); !reflect.DeepEqual(res.History, want) {
		t.Errorf("history after more turns: %q", contents(res.History))
	}
	h := join(exchange(0), []message.Message{sum, {Role: message.RoleAssistant, Content: SummaryAck}}, summary("4"), exchange(5))
	must(t, r.Compacted(h))
	res, err = s.LoadResume(r.ID())
	must(t, err)
	if !reflect.DeepEqual(res.History, h) {
		t.Errorf("history after a compaction: %q", contents(res.History))
	}
	// Undoing the turn after the summary keeps the summary.
	_, err = s.UndoFrom(r.ID(), after[1])
	must(t, err)
	res, err = s.LoadResume(r.ID())
	must(t, err)
	if want := join(want, exchange(4)); !reflect.DeepEqual(res.History, want) {
		t.Errorf("history after undoing the last turn: %q", contents(res.History))
	}
	// Undoing from the first turn takes the summarised ones out too.
	n, err := s.UndoFrom(r.ID(), seqs[0])
	must(t, err)
	if n != 5 {
		t.Errorf("took out %d turns, want 5 (two live, three summarised)", n)
	}
	res, err = s.LoadResume(r.ID())
	must(t, err)
	if len(res.History) != 0 || len(res.All) != 0 || len(res.AllAsides) != 0 {
		t.Errorf("after undoing all: %q %q %+v", contents(res.History), contents(res.All), res.AllAsides)
	}
}

// The summary message has the shape of the agent's (its intro), so the
// agent's compaction sees it as a summary.
func TestSummaryShapeIsTheAgents(t *testing.T) {
	if SummaryIntro != agent.SummaryIntro {
		t.Fatalf("SummaryIntro %q, agent's %q", SummaryIntro, agent.SummaryIntro)
	}
	if err := open(t).SummariseFrom("x", 1, " "); err == nil || !strings.Contains(err.Error(), "summary is empty") {
		t.Errorf("an empty summary: %v", err)
	}
}

// A store of schema 6 (before undo) is migrated with nothing undone: its
// sessions resume as before and can be undone.
func TestSchema6StoreIsMigrated(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	db, err := sql.Open("sqlite3", path)
	must(t, err)
	for _, m := range migrations[:6] {
		_, err := db.Exec(m)
		must(t, err)
	}
	_, err = db.Exec(`PRAGMA user_version = 6;
		INSERT INTO sessions (id, workspace, title, created_at, updated_at, turns) VALUES ('old1', '/w', 'old', 1, 1, 2);
		INSERT INTO messages (session_id, seq, role, content, created_at) VALUES ('old1', 1, 'user', 'q1', 1), ('old1', 2, 'assistant', 'a1', 1),
			('old1', 3, 'user', 'q2', 1), ('old1', 4, 'assistant', 'a2', 1);
		INSERT INTO asides (session_id, after_seq, data, created_at) VALUES ('old1', 4, '{"notice":"n"}', 1);
		INSERT INTO compactions (session_id, upto_seq, history, created_at) VALUES ('old1', 2, '[{"msg":{"role":"user","content":"s"}},{"msg":{"role":"assistant","content":"ok"}}]', 1);`)
	must(t, err)
	db.Close()

	s, err := Open(path)
	must(t, err)
	defer s.Close()
	info, err := s.Find("old1")
	must(t, err)
	if info.Turns != 2 || info.Undone != 0 {
		t.Errorf("migrated info: %+v", info)
	}
	res, err := s.LoadResume("old1")
	must(t, err)
	if got := contents(res.History); !res.Compacted || got != "s | ok | q2 | a2" || len(res.All) != 4 || len(res.AllAsides) != 1 {
		t.Errorf("migrated session: %q, all %q, asides %+v", got, contents(res.All), res.AllAsides)
	}
	for _, e := range res.Entries {
		if e.Undone != "" {
			t.Errorf("migrated entry marked %q: %+v", e.Undone, e)
		}
	}
	ts, err := s.Turns("old1")
	must(t, err)
	if len(ts) != 2 || ts[1].Seq != 3 || ts[1].Undone != "" {
		t.Fatalf("turns: %+v", ts)
	}
	n, err := s.UndoFrom("old1", 3)
	must(t, err)
	res, err = s.LoadResume("old1")
	must(t, err)
	if got := contents(res.History); n != 1 || got != "s | ok" || len(res.AllAsides) != 0 {
		t.Errorf("after undo: %d, %q, %+v", n, got, res.AllAsides)
	}
}

// Stores on one file (two co processes) undo, summarise, append and read
// one session's turns at once: every operation succeeds or refuses
// cleanly, and the file ends consistent.
func TestConcurrentUndoIsSafe(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data", FileName)
	s, err := Open(path)
	must(t, err)
	defer s.Close()
	const sessions = 4
	var ids []string
	var firsts [][]int64
	for i := 0; i < sessions; i++ {
		r := s.New("/w")
		firsts = append(firsts, turnSeqs(t, r, 0, 12))
		ids = append(ids, r.ID())
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := 0; i < sessions; i++ {
		other, err := Open(path)
		must(t, err)
		defer other.Close()
		for w, st := range []*Store{s, other} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := 11 - w; k >= 0; k -= 2 {
					var err error
					if k%3 == 0 {
						err = st.SummariseFrom(ids[i], firsts[i][k], fmt.Sprintf("summary %d", k))
					} else {
						_, err = st.UndoFrom(ids[i], firsts[i][k])
					}
					// The other store may have taken this turn out first.
					if err != nil && !errors.Is(err, ErrNotATurn) {
						errs <- err
						return
					}
					if _, err := st.LoadResume(ids[i]); err != nil {
						errs <- err
						return
					}
					if _, err := st.List("", 0); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for i, id := range ids {
		res, err := s.LoadResume(id)
		must(t, err)
		ts, err := s.Turns(id)
		must(t, err)
		if ts[0].Undone == "" && len(res.History) == 0 {
			t.Errorf("session %d: its first turn is live but the history is empty", i)
		}
		for _, m := range res.History {
			for _, tr := range ts {
				if tr.Undone != "" && m.Content == tr.Prompt {
					t.Errorf("session %d: turn %q is %s but resumed", i, tr.Prompt, tr.Undone)
				}
			}
		}
		info, err := s.Find(id)
		must(t, err)
		live := 0
		for _, tr := range ts {
			if tr.Undone != MarkUndone {
				live++
			}
		}
		if info.Turns != live || info.Undone != len(ts)-live {
			t.Errorf("session %d: info says %d turns %d undone; turns say %d live of %d", i, info.Turns, info.Undone, live, len(ts))
		}
	}
}
