package sessions

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/message"
	"github.com/co-cli/co/tools"
)

func bang(cmd, out string, st message.CallStatus) message.Aside {
	return message.Aside{Bang: &message.BangRun{Args: `{"cmd":"` + cmd + `"}`, Finished: message.ToolCallFinished{
		CallID: "bang", Name: message.BangTool, Status: st, Result: tools.Result{Display: out, Meta: map[string]any{"exit_code": float64(0)}},
		Decision: message.ByPolicy, Duration: 42 * time.Millisecond, Bang: true,
	}}}
}

// A !cmd and a summarising notice come back from the store where they
// happened, between the messages they followed and preceded.
func TestAsidesComeBackInTheirPlace(t *testing.T) {
	s := open(t)
	r := s.New("/work/a")
	must(t, r.Aside(bang("pwd", "/work/a", message.CallDone))) // before any message
	must(t, r.Append(message.Message{Role: message.RoleUser, Content: "hello"}))
	must(t, r.Append(message.Message{Role: message.RoleAssistant, Content: "hi"}))
	must(t, r.Aside(bang("ls", "a.txt\nb.txt", message.CallDone)))
	must(t, r.Aside(message.Aside{After: 1, Notice: "Summarised 7 older messages to stay within the context."}))
	must(t, r.Append(message.Message{Role: message.RoleUser, Content: "bye"}))
	must(t, r.Aside(bang("rm -rf /", "", message.CallDenied)))

	info, tr, err := s.Transcript(r.ID())
	must(t, err)
	if info.Title != "hello" {
		t.Errorf("title %q: a session is named by its first prompt", info.Title)
	}
	var got []string
	for _, e := range tr {
		switch {
		case e.Aside != nil && e.Aside.Bang != nil:
			f := e.Aside.Bang.Finished
			got = append(got, "!"+e.Aside.Bang.Args+" "+f.Status.String()+" "+f.Result.Display)
			if f.Decision != message.ByPolicy || f.Duration != 42*time.Millisecond || f.Name != message.BangTool || !f.Bang {
				t.Errorf("the saved run lost its details: %+v", f)
			}
		case e.Aside != nil:
			got = append(got, "note "+e.Aside.Notice)
		default:
			got = append(got, string(e.Message.Role)+" "+e.Message.Content)
		}
	}
	want := []string{
		`!{"cmd":"pwd"} done /work/a`,
		"user hello",
		"assistant hi",
		`!{"cmd":"ls"} done a.txt` + "\nb.txt",
		"note Summarised 7 older messages to stay within the context.",
		"user bye",
		`!{"cmd":"rm -rf /"} denied `,
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("transcript:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// The history to resume holds only messages; the asides are placed by
	// the number of messages before each.
	_, h, xs, err := s.LoadAsides(r.ID())
	must(t, err)
	if len(h) != 3 {
		t.Fatalf("history %+v", h)
	}
	var after []int
	for _, x := range xs {
		after = append(after, x.After)
	}
	if len(after) != 4 || after[0] != 0 || after[1] != 2 || after[2] != 2 || after[3] != 3 {
		t.Fatalf("asides placed after %v messages, want [0 2 2 3]", after)
	}
}

// A session that only ran commands is saved and named by the first.
func TestABangOnlySessionIsNamedByItsCommand(t *testing.T) {
	s := open(t)
	r := s.New("/work/b")
	must(t, r.Aside(bang("git status", "clean", message.CallDone)))
	info, err := s.Find(r.ID())
	must(t, err)
	if info.Title != "!git status" {
		t.Fatalf("title %q", info.Title)
	}
}

// Asides are placed after the messages a crash left unanswered are patched.
func TestAsidesFollowPatchedResults(t *testing.T) {
	s := open(t)
	r := s.New("/work/c")
	must(t, r.Append(message.Message{Role: message.RoleUser, Content: "go"}))
	must(t, r.Append(message.Message{Role: message.RoleAssistant, ToolCalls: []message.ToolCall{{ID: "c1", Name: "read_file", Args: `{}`}, {ID: "c2", Name: "read_file", Args: `{}`}}}))
	must(t, r.Aside(bang("date", "today", message.CallDone)))
	_, h, xs, err := s.LoadAsides(r.ID())
	must(t, err)
	if len(h) != 4 || len(xs) != 1 || xs[0].After != 4 {
		t.Fatalf("history of %d messages, asides %+v: the !cmd must follow the two patched results", len(h), xs)
	}
}

// A store of schema 2 (before asides) is migrated and its sessions load.
func TestSchema2StoreIsMigrated(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	db, err := sql.Open("sqlite3", path)
	must(t, err)
	for _, m := range migrations[:2] {
		_, err := db.Exec(m)
		must(t, err)
	}
	_, err = db.Exec(`PRAGMA user_version = 2;
		INSERT INTO sessions (id, workspace, title, created_at, updated_at, turns) VALUES ('old1', '/w', 'old', 1, 1, 1);
		INSERT INTO messages (session_id, seq, role, content, created_at) VALUES ('old1', 1, 'user', 'from before', 1);`)
	must(t, err)
	db.Close()

	s, err := Open(path)
	must(t, err)
	defer s.Close()
	_, h, xs, err := s.LoadAsides("old1")
	must(t, err)
	if len(h) != 1 || h[0].Content != "from before" || len(xs) != 0 {
		t.Fatalf("old session after migration: %+v %+v", h, xs)
	}
	r, err := s.Resume("old1")
	must(t, err)
	must(t, r.Aside(bang("ls", "x", message.CallDone)))
	_, _, xs, err = s.LoadAsides("old1")
	must(t, err)
	if len(xs) != 1 || xs[0].After != 1 {
		t.Fatalf("asides after migration: %+v", xs)
	}
}
