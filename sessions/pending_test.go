package sessions

import (
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/message"
)

// Issue 29: a scheduled run is a session of its own kind that names its
// schedule; --continue's Latest(Chat) never picks it.
func TestScheduledSessionNamesItsSchedule(t *testing.T) {
	s := open(t)
	chat := s.New("/w")
	must(t, chat.Append(message.Message{Role: message.RoleUser, Content: "a chat"}))
	before := time.Now()
	run := s.NewScheduled("/w", "brief")
	must(t, run.Append(message.Message{Role: message.RoleUser, Content: "brief me"}))
	must(t, run.Append(message.Message{Role: message.RoleAssistant, Content: "Two mails."}))
	must(t, run.SetOutcome("done"))

	i, err := s.Find(run.ID())
	must(t, err)
	if i.Kind != Scheduled || i.Schedule != "brief" || i.Outcome != "done" {
		t.Errorf("scheduled session = %+v", i)
	}
	if c, err := s.Find(chat.ID()); err != nil || c.Schedule != "" || c.Kind != Chat {
		t.Errorf("chat session = %+v %v", c, err)
	}
	if l, err := s.Latest("/w", Chat); err != nil || l.ID != chat.ID() {
		t.Errorf("latest chat = %+v %v: a scheduled run must not be continued as a chat", l, err)
	}
	if _, err := s.Latest("/x", Scheduled); err == nil || !strings.Contains(err.Error(), "no saved scheduled run") {
		t.Errorf("latest scheduled in an empty workspace: %v", err)
	}

	got, err := s.ScheduledSince(before, 0)
	must(t, err)
	if len(got) != 1 || got[0].ID != run.ID() {
		t.Errorf("ScheduledSince(before) = %+v", got)
	}
	if got, _ := s.ScheduledSince(time.Now(), 0); len(got) != 0 {
		t.Errorf("ScheduledSince(now) = %+v, want none", got)
	}
	run2 := s.NewScheduled("/w", "todos")
	must(t, run2.Append(message.Message{Role: message.RoleUser, Content: "todos"}))
	got, err = s.ScheduledSince(time.Time{}, 1)
	must(t, err)
	if len(got) != 1 || got[0].ID != run2.ID() {
		t.Errorf("ScheduledSince(zero, 1) = %+v, want the newest", got)
	}
}

func TestPendingCallsWaitAndAreDecidedOnce(t *testing.T) {
	s := open(t)
	run := s.NewScheduled("/w", "brief")
	must(t, run.Append(message.Message{Role: message.RoleUser, Content: "brief me"}))

	if _, err := s.AddPending(Pending{SessionID: run.ID()}); err == nil {
		t.Error("a waiting call without a tool was kept")
	}
	id1, err := s.AddPending(Pending{SessionID: run.ID(), CallID: "c1", Tool: "gmail_send", Args: `{"to":"a@b.c"}`,
		Reason: "sends mail", Untrusted: []string{"web 127.0.0.1/page", "mail from x@y.z"}, To: "a@b.c", Sends: "the summary"})
	must(t, err)
	id2, err := s.AddPending(Pending{SessionID: run.ID(), CallID: "c2", Tool: "run_shell_command", Args: `{"cmd":"make"}`, Reason: "runs a command"})
	must(t, err)

	p, err := s.PendingCall(id1)
	must(t, err)
	if p.State != Waiting || p.Tool != "gmail_send" || p.CallID != "c1" || p.Schedule != "brief" || p.To != "a@b.c" || p.Sends != "the summary" ||
		len(p.Untrusted) != 2 || p.Untrusted[1] != "mail from x@y.z" || p.Created.IsZero() || !p.Decided.IsZero() {
		t.Errorf("pending call = %+v", p)
	}
	w, err := s.PendingCalls(Waiting)
	must(t, err)
	if len(w) != 2 || w[0].ID != id2 || w[1].ID != id1 || w[0].Untrusted == nil && len(w[0].Untrusted) != 0 {
		t.Fatalf("waiting = %+v, want newest first", w)
	}

	must(t, s.DecidePending(id1, Approved))
	err = s.DecidePending(id1, Denied)
	if err == nil || !strings.Contains(err.Error(), "already approved") {
		t.Errorf("deciding twice: %v", err)
	}
	if err := s.DecidePending(id2, Waiting); err == nil {
		t.Error("a call was decided back to waiting")
	}
	if err := s.DecidePending(999, Denied); !errors.Is(err, ErrNoPending) {
		t.Errorf("deciding an unknown call: %v", err)
	}
	if w, _ := s.PendingCalls(Waiting); len(w) != 1 || w[0].ID != id2 {
		t.Errorf("waiting after a decision = %+v", w)
	}
	all, err := s.PendingCalls("")
	must(t, err)
	if len(all) != 2 {
		t.Errorf("every state = %+v", all)
	}
	if p, _ := s.PendingCall(id1); p.State != Approved || p.Decided.IsZero() {
		t.Errorf("approved call = %+v", p)
	}

	// Deleting the session drops its waiting calls.
	must(t, s.Delete(run.ID()))
	if all, _ := s.PendingCalls(""); len(all) != 0 {
		t.Errorf("calls of a deleted session = %+v", all)
	}
}

func TestLastLookedOnlyMovesForward(t *testing.T) {
	s := open(t)
	if at, err := s.LastLooked(); err != nil || !at.IsZero() {
		t.Fatalf("never looked = %v %v", at, err)
	}
	t1 := time.Unix(1000, 0)
	must(t, s.Looked(t1))
	must(t, s.Looked(time.Unix(500, 0)))
	if at, err := s.LastLooked(); err != nil || !at.Equal(t1) {
		t.Errorf("last looked = %v %v, want %v", at, err, t1)
	}
	// Looking is noticing; noticing is not looking.
	if at, _ := s.LastNoticed(); !at.Equal(t1) {
		t.Errorf("last noticed = %v, want %v", at, t1)
	}
	t2 := time.Unix(2000, 0)
	must(t, s.Noticed(t2))
	if at, _ := s.LastNoticed(); !at.Equal(t2) {
		t.Errorf("last noticed = %v, want %v", at, t2)
	}
	if at, _ := s.LastLooked(); !at.Equal(t1) {
		t.Errorf("noticing moved the last look to %v", at)
	}
}

// A store of schema 4 (before scheduled runs) is migrated in one step:
// its sessions keep their kind, have no schedule, and calls can wait.
func TestSchema4StoreIsMigrated(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	db, err := sql.Open("sqlite3", path)
	must(t, err)
	for _, m := range migrations[:4] {
		_, err := db.Exec(m)
		must(t, err)
	}
	_, err = db.Exec(`PRAGMA user_version = 4;
		INSERT INTO sessions (id, workspace, title, created_at, updated_at, turns, kind) VALUES ('old1', '/w', 'old', 1, 1, 1, 'run');
		INSERT INTO messages (session_id, seq, role, content, created_at) VALUES ('old1', 1, 'user', 'from before', 1);`)
	must(t, err)
	db.Close()

	s, err := Open(path)
	must(t, err)
	defer s.Close()
	l, err := s.Latest("/w", Run)
	must(t, err)
	if l.ID != "old1" || l.Kind != Run || l.Schedule != "" || l.Outcome != "" {
		t.Fatalf("old session after migration: %+v", l)
	}
	if _, err := s.AddPending(Pending{SessionID: "old1", CallID: "c", Tool: "write_file"}); err != nil {
		t.Errorf("a call cannot wait in a migrated store: %v", err)
	}
	var v int
	must(t, s.db.QueryRow(`PRAGMA user_version`).Scan(&v))
	if v != len(migrations) {
		t.Errorf("schema version after migration = %d, want %d", v, len(migrations))
	}
}
