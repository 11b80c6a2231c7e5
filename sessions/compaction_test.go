package sessions

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/co-cli/co/message"
)

func exchange(i int) []message.Message {
	return []message.Message{
		{Role: message.RoleUser, Content: fmt.Sprintf("question %d", i)},
		{Role: message.RoleAssistant, Content: fmt.Sprintf("answer %d", i), Model: "m", Origin: "http://x"},
	}
}

func summary(text string) []message.Message {
	return []message.Message{
		{Role: message.RoleUser, Content: "[Summary of the earlier conversation]\n" + text},
		{Role: message.RoleAssistant, Content: "Understood."},
	}
}

func join(parts ...[]message.Message) []message.Message {
	var out []message.Message
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// compactionRow is the history column of the latest compaction of id.
func compactionRow(t *testing.T, s *Store, id string) []viewItem {
	t.Helper()
	var data string
	must(t, s.db.QueryRow(`SELECT history FROM compactions WHERE session_id = ? ORDER BY rowid DESC LIMIT 1`, id).Scan(&data))
	var items []viewItem
	must(t, json.Unmarshal([]byte(data), &items))
	return items
}

// A compaction is saved as ranges of saved messages and the summary; a
// resume gets the compacted history and what was saved after it, the
// transcript every message; a second compaction (of a history that starts
// with the first's summary) replaces the first.
func TestCompactionsAreSavedAndResumed(t *testing.T) {
	s := open(t)
	r := s.New("/w")
	var saved []message.Message
	for i := 0; i < 10; i++ {
		for _, m := range exchange(i) {
			must(t, r.Append(m))
			saved = append(saved, m)
		}
		if i == 3 {
			must(t, r.Aside(message.Aside{Notice: "a notice among what is summarised"}))
		}
	}
	h1 := join(saved[:2], summary("questions 1 to 5"), saved[12:])
	must(t, r.Compacted(h1))
	must(t, r.Aside(message.Aside{Notice: "Summarised 10 older messages to stay within the context."}))
	items := compactionRow(t, s, r.ID())
	if len(items) != 4 || items[0] != (viewItem{From: 1, To: 2}) || items[1].Msg == nil || items[2].Msg == nil || items[3] != (viewItem{From: 13, To: 20}) {
		t.Fatalf("saved as %+v, want the first exchange and seq 13-20 by reference, the summary itself", items)
	}

	res, err := s.LoadResume(r.ID())
	must(t, err)
	if !res.Compacted || !reflect.DeepEqual(res.History, h1) {
		t.Fatalf("resumed history:\n%+v\nwant\n%+v", res.History, h1)
	}
	if !reflect.DeepEqual(res.All, saved) || len(res.AllAsides) != 2 {
		t.Fatalf("all: %d messages, %d asides", len(res.All), len(res.AllAsides))
	}
	// The notice among the replaced messages goes where they were (after
	// the first exchange); the compaction's after the compacted history.
	if len(res.Asides) != 2 || res.Asides[0].After != 2 || res.Asides[1].After != len(h1) {
		t.Errorf("asides in the history: %+v", res.Asides)
	}

	// Resumed in another run, it goes on: more messages, a second
	// compaction that keeps the first summary in its recent part.
	r2, err := s.Resume(r.ID())
	must(t, err)
	for i := 10; i < 12; i++ {
		for _, m := range exchange(i) {
			must(t, r2.Append(m))
			saved = append(saved, m)
		}
	}
	h2 := join(summary("everything before"), h1[2:], saved[20:])
	must(t, r2.Compacted(h2))
	items = compactionRow(t, s, r.ID())
	if n := len(items); n != 5 || items[n-1] != (viewItem{From: 13, To: 24}) {
		t.Fatalf("second compaction saved as %+v", items)
	}
	must(t, r2.Append(exchange(12)[0]))
	res, err = s.LoadResume(r.ID())
	must(t, err)
	if want := append(h2, exchange(12)[0]); !reflect.DeepEqual(res.History, want) {
		t.Fatalf("after two compactions:\n%+v\nwant\n%+v", res.History, want)
	}

	// The transcript and Load are unchanged: every message, no summary.
	_, all, err := s.Load(r.ID())
	must(t, err)
	if len(all) != 25 {
		t.Errorf("Load: %d messages, want 25", len(all))
	}
	for _, m := range all {
		if strings.HasPrefix(m.Content, "[Summary") {
			t.Errorf("a summary in the transcript: %q", m.Content)
		}
	}

	must(t, s.Delete(r.ID()))
	var n int
	must(t, s.db.QueryRow(`SELECT count(*) FROM compactions`).Scan(&n))
	if n != 0 {
		t.Errorf("%d compactions left after the session was deleted", n)
	}
}

// A compacted history whose messages are not the saved ones (not saved at
// all, or changed) is saved as itself, so that a resume sends what the
// agent had.
func TestCompactionOfUnsavedMessagesKeepsThem(t *testing.T) {
	s := open(t)
	r := s.New("/w")
	h := join(summary("what came before"), exchange(1))
	must(t, r.Compacted(h))
	must(t, r.Append(exchange(2)[0]))
	res, err := s.LoadResume(r.ID())
	must(t, err)
	if want := append(h, exchange(2)[0]); !reflect.DeepEqual(res.History, want) {
		t.Fatalf("history %+v, want %+v", res.History, want)
	}
	if len(res.All) != 1 {
		t.Errorf("all: %+v", res.All)
	}
}

// A store of schema 5 (before compactions were saved) is migrated; its
// sessions resume whole, and a compaction after that is saved.
func TestSchema5StoreIsMigrated(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	db, err := sql.Open("sqlite3", path)
	must(t, err)
	for _, m := range migrations[:5] {
		_, err := db.Exec(m)
		must(t, err)
	}
	_, err = db.Exec(`PRAGMA user_version = 5;
		INSERT INTO sessions (id, workspace, title, created_at, updated_at, turns) VALUES ('old1', '/w', 'old', 1, 1, 2);
		INSERT INTO messages (session_id, seq, role, content, created_at) VALUES ('old1', 1, 'user', 'q1', 1), ('old1', 2, 'assistant', 'a1', 1),
			('old1', 3, 'user', 'q2', 1), ('old1', 4, 'assistant', 'a2', 1);
		INSERT INTO asides (session_id, after_seq, data, created_at) VALUES ('old1', 2, '{"notice":"Summarised 3 older messages to stay within the context."}', 1);`)
	must(t, err)
	db.Close()

	s, err := Open(path)
	must(t, err)
	defer s.Close()
	res, err := s.LoadResume("old1")
	must(t, err)
	if res.Compacted || len(res.History) != 4 || !reflect.DeepEqual(res.History, res.All) || len(res.Asides) != 1 || res.Asides[0].After != 2 {
		t.Fatalf("old session: compacted %v, history %+v, asides %+v", res.Compacted, res.History, res.Asides)
	}
	r, err := s.Resume("old1")
	must(t, err)
	h := join(summary("q1"), res.All[2:])
	must(t, r.Compacted(h))
	res, err = s.LoadResume("old1")
	must(t, err)
	if !res.Compacted || !reflect.DeepEqual(res.History, h) || len(res.All) != 4 {
		t.Fatalf("after a compaction: %+v", res.History)
	}
}
