package sessions

import (
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/co-cli/co/message"
)

// Issue 27: every co run became a saved session that co --continue in the
// chat then resumed. A session records what started it; Latest finds the
// latest of one kind, List still lists every kind, each marked.
func TestSessionsKeepTheirKindApart(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), FileName))
	must(t, err)
	defer s.Close()
	chat := s.New("/w")
	must(t, chat.Append(message.Message{Role: message.RoleUser, Content: "a chat"}))
	run := s.NewKind("/w", Run)
	must(t, run.Append(message.Message{Role: message.RoleUser, Content: "a co run"}))

	if l, err := s.Latest("/w", Chat); err != nil || l.ID != chat.ID() || l.Kind != Chat {
		t.Errorf("latest chat = %+v, %v; want %s", l, err, chat.ID())
	}
	if l, err := s.Latest("/w", Run); err != nil || l.ID != run.ID() || l.Kind != Run {
		t.Errorf("latest co run = %+v, %v; want %s", l, err, run.ID())
	}
	if l, err := s.Latest("/w", ""); err != nil || l.ID != run.ID() {
		t.Errorf("latest of any kind = %+v, %v; want %s", l, err, run.ID())
	}
	if _, err := s.Latest("/other", Run); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "no saved co run session in /other") {
		t.Errorf("latest co run of an empty workspace: %v", err)
	}
	all, err := s.List("/w", 0)
	must(t, err)
	if len(all) != 2 || all[0].Kind != Run || all[1].Kind != Chat {
		t.Errorf("List = %+v", all)
	}
	chats, err := s.ListKind("/w", Chat, 0)
	must(t, err)
	if len(chats) != 1 || chats[0].ID != chat.ID() {
		t.Errorf("ListKind(chat) = %+v", chats)
	}
	// Resumed, a session keeps the kind it was started as.
	r, err := s.Resume(run.ID())
	must(t, err)
	must(t, r.Append(message.Message{Role: message.RoleAssistant, Content: "ok"}))
	if f, err := s.Find(run.ID()); err != nil || f.Kind != Run {
		t.Errorf("resumed co run session: %+v %v", f, err)
	}
}

// A store of schema 3 (before kinds) is migrated; its sessions count as
// the chat's.
func TestSchema3StoreIsMigrated(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	db, err := sql.Open("sqlite3", path)
	must(t, err)
	for _, m := range migrations[:3] {
		_, err := db.Exec(m)
		must(t, err)
	}
	_, err = db.Exec(`PRAGMA user_version = 3;
		INSERT INTO sessions (id, workspace, title, created_at, updated_at, turns) VALUES ('old1', '/w', 'old', 1, 1, 1);
		INSERT INTO messages (session_id, seq, role, content, created_at) VALUES ('old1', 1, 'user', 'from before', 1);`)
	must(t, err)
	db.Close()

	s, err := Open(path)
	must(t, err)
	defer s.Close()
	l, err := s.Latest("/w", Chat)
	must(t, err)
	if l.ID != "old1" || l.Kind != Chat {
		t.Fatalf("old session after migration: %+v", l)
	}
	if _, err := s.Latest("/w", Run); !errors.Is(err, ErrNotFound) {
		t.Errorf("an old session counted as co run's: %v", err)
	}
}
