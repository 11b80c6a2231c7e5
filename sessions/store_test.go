package sessions

import (
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/co-cli/co/message"
)

func open(t *testing.T) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "data", FileName))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestRoundTrip(t *testing.T) {
	s := open(t)
	r := s.New("/work/a")
	msgs := []message.Message{
		{Role: message.RoleUser, Content: "List the files\nplease"},
		{Role: message.RoleAssistant, Content: "Sure.", ToolCalls: []message.ToolCall{{ID: "c1", Name: "run_shell_command", Args: `{"cmd":"ls"}`}}},
		{Role: message.RoleTool, ToolCallID: "c1", ToolName: "run_shell_command", Content: "a.txt"},
		{Role: message.RoleAssistant, Content: "One file: a.txt"},
	}
	must(t, r.Append(msgs[0]))
	must(t, r.Append(msgs[1]))
	must(t, r.Decision("c1", "run_shell_command", message.ApproveOnce))
	must(t, r.Append(msgs[2]))
	must(t, r.Draft("One "))
	must(t, r.Draft("fi"))
	must(t, r.Append(msgs[3]))
	must(t, r.Usage(message.Usage{InputTokens: 120, OutputTokens: 30}))

	info, got, err := s.Load(r.ID())
	must(t, err)
	if info.Title != "List the files" || info.Turns != 1 || info.InputTokens != 120 || info.Workspace != "/work/a" {
		t.Errorf("info = %+v", info)
	}
	if len(got) != 4 || got[1].ToolCalls[0].Args != `{"cmd":"ls"}` || got[2].ToolCallID != "c1" || got[3].Content != "One file: a.txt" {
		t.Fatalf("history = %+v", got)
	}
	_, tr, err := s.Transcript(r.ID())
	must(t, err)
	if len(tr) != 5 || tr[2].Decision == nil || tr[2].Decision.Verdict != "approved once" {
		t.Fatalf("transcript = %+v", tr)
	}
}

func TestDraftAndDanglingCallsLoadAsInterrupted(t *testing.T) {
	s := open(t)
	r := s.New("/w")
	must(t, r.Append(message.Message{Role: message.RoleUser, Content: "go"}))
	must(t, r.Append(message.Message{Role: message.RoleAssistant, ToolCalls: []message.ToolCall{{ID: "c1", Name: "t", Args: "{}"}, {ID: "c2", Name: "t", Args: "{}"}}}))
	must(t, r.Append(message.Message{Role: message.RoleTool, ToolCallID: "c1", ToolName: "t", Content: "ok"}))
	// killed here: c2 never answered
	_, h, err := s.Load(r.ID())
	must(t, err)
	if len(h) != 4 || h[3].ToolCallID != "c2" || h[3].Content != message.InterruptedResult {
		t.Fatalf("dangling call not patched: %+v", h)
	}
	// A later reply being streamed when killed comes back interrupted.
	r2 := s.New("/w")
	must(t, r2.Append(message.Message{Role: message.RoleUser, Content: "talk"}))
	must(t, r2.Draft("half a "))
	must(t, r2.Draft("sent"))
	_, h, err = s.Load(r2.ID())
	must(t, err)
	if len(h) != 2 || h[1].Content != "half a sent" || !h[1].Interrupted {
		t.Fatalf("draft not resumed as interrupted: %+v", h)
	}
}

func TestResumeAppendsAfterTheEnd(t *testing.T) {
	s := open(t)
	r := s.New("/w")
	must(t, r.Append(message.Message{Role: message.RoleUser, Content: "one"}))
	must(t, r.Append(message.Message{Role: message.RoleAssistant, Content: "1"}))
	r2, err := s.Resume(r.ID())
	must(t, err)
	must(t, r2.Append(message.Message{Role: message.RoleUser, Content: "two"}))
	info, h, err := s.Load(r.ID())
	must(t, err)
	if len(h) != 3 || h[2].Content != "two" || info.Turns != 2 || info.Title != "one" {
		t.Fatalf("after resume: %+v %+v", info, h)
	}
}

func TestListFindDelete(t *testing.T) {
	s := open(t)
	var ids []string
	for _, ws := range []string{"/a", "/b", "/a"} {
		r := s.New(ws)
		must(t, r.Append(message.Message{Role: message.RoleUser, Content: "hi from " + ws}))
		ids = append(ids, r.ID())
	}
	s.New("/a") // no message: no row
	l, err := s.List("/a", 0)
	must(t, err)
	if len(l) != 2 || l[0].ID != ids[2] {
		t.Fatalf("List(/a) = %+v", l)
	}
	if all, _ := s.List("", 0); len(all) != 3 {
		t.Fatalf("List all = %d", len(all))
	}
	latest, err := s.Latest("/b", "")
	must(t, err)
	if latest.ID != ids[1] {
		t.Errorf("Latest(/b) = %s", latest.ID)
	}
	if _, err := s.Latest("/none", ""); !errors.Is(err, ErrNotFound) {
		t.Errorf("Latest of an empty workspace: %v", err)
	}
	f, err := s.Find(ids[0][:12])
	must(t, err)
	if f.ID != ids[0] {
		t.Errorf("Find by prefix = %s", f.ID)
	}
	if _, err := s.Find("zzz"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Find unknown: %v", err)
	}
	if _, err := s.Find(ids[0][:3]); err == nil || !strings.Contains(err.Error(), "ambiguous") {
		t.Errorf("Find ambiguous prefix: %v", err)
	}
	must(t, s.Delete(ids[0]))
	if _, _, err := s.Load(ids[0]); !errors.Is(err, ErrNotFound) {
		t.Errorf("Load after Delete: %v", err)
	}
	if err := s.Delete(ids[0]); !errors.Is(err, ErrNotFound) {
		t.Errorf("Delete twice: %v", err)
	}
}

func TestBadFilesAreNeverOverwritten(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]func(path string){
		"garbage": func(p string) {
			if err := os.WriteFile(p, []byte(strings.Repeat("not a database ", 400)), 0o600); err != nil {
				t.Fatal(err)
			}
		},
		"newer version": func(p string) {
			db, _ := sql.Open("sqlite3", p)
			if _, err := db.Exec(`CREATE TABLE x (a); PRAGMA user_version = 99`); err != nil {
				t.Fatal(err)
			}
			db.Close()
		},
		"someone else's database": func(p string) {
			db, _ := sql.Open("sqlite3", p)
			if _, err := db.Exec(`CREATE TABLE people (name TEXT)`); err != nil {
				t.Fatal(err)
			}
			db.Close()
		},
	}
	wants := map[string]string{"garbage": "may be damaged", "newer version": "written by a newer co", "someone else's database": "not a co session store"}
	for name, make := range cases {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(name, " ", "_")+".db")
			make(p)
			before, _ := os.ReadFile(p)
			_, err := Open(p)
			if err == nil || !strings.Contains(err.Error(), wants[name]) || !strings.Contains(err.Error(), "left untouched") {
				t.Fatalf("Open = %v", err)
			}
			after, _ := os.ReadFile(p)
			if string(before) != string(after) {
				t.Fatal("the file was modified")
			}
		})
	}
}

func TestTitle(t *testing.T) {
	for in, want := range map[string]string{
		"  fix   the bug\nin main.go": "fix the bug",
		strings.Repeat("long ", 20):   strings.TrimSpace(strings.Repeat("long ", 12))[:59] + "…",
	} {
		if got := Title(in); got != want {
			t.Errorf("Title(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestResumeRepairsWhatACrashLeft(t *testing.T) {
	s := open(t)
	r := s.New("/w")
	must(t, r.Append(message.Message{Role: message.RoleUser, Content: "go"}))
	must(t, r.Append(message.Message{Role: message.RoleAssistant, ToolCalls: []message.ToolCall{{ID: "c1", Name: "t", Args: "{}"}}}))
	r2, err := s.Resume(r.ID())
	must(t, err)
	must(t, r2.Append(message.Message{Role: message.RoleUser, Content: "again"}))
	must(t, r2.Draft("partial"))
	r3, err := s.Resume(r.ID())
	must(t, err)
	_ = r3
	_, tr, err := s.Transcript(r.ID())
	must(t, err)
	var roles []string
	for _, e := range tr {
		roles = append(roles, string(e.Message.Role)+":"+e.Message.Content)
	}
	want := "user:go|assistant:|tool:" + message.InterruptedResult + "|user:again|assistant:partial"
	if strings.Join(roles, "|") != want {
		t.Fatalf("stored after repairs:\n%s\nwant\n%s", strings.Join(roles, "|"), want)
	}
	if !tr[4].Message.Interrupted {
		t.Error("the draft must be stored as an interrupted reply")
	}
}

func TestFilesArePrivate(t *testing.T) {
	s := open(t)
	r := s.New("/w")
	must(t, r.Append(message.Message{Role: message.RoleUser, Content: "secret plans"}))
	must(t, r.Draft("streaming"))
	dir := filepath.Dir(s.Path())
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		perm := fi.Mode().Perm()
		if fi.IsDir() && perm&0o077 != 0 || !fi.IsDir() && perm&0o077 != 0 {
			t.Errorf("%s has mode %v: others can read it", p, perm)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestAttachmentsAreSavedByReferenceNotBytes(t *testing.T) {
	s := open(t)
	r := s.New("/work/a")
	secret := []byte("\x89PNG\r\n\x1a\n-the-image-bytes-")
	att := message.Attachment{Kind: message.AttachImage, Name: "shot.png", Path: "/home/u/shot.png", MIME: "image/png",
		Size: 1234, Width: 640, Height: 480, SHA256: "ab12", Data: secret}
	must(t, r.Append(message.Message{Role: message.RoleUser, Content: "what is this?", Attachments: []message.Attachment{att}}))

	_, got, err := s.Load(r.ID())
	must(t, err)
	if len(got) != 1 || len(got[0].Attachments) != 1 {
		t.Fatalf("history = %+v", got)
	}
	a := got[0].Attachments[0]
	want := att
	want.Data = nil
	if a.Kind != want.Kind || a.Name != want.Name || a.Path != want.Path || a.MIME != want.MIME || a.Size != want.Size ||
		a.Width != want.Width || a.Height != want.Height || a.SHA256 != want.SHA256 || a.Data != nil {
		t.Fatalf("attachment = %+v, want %+v", a, want)
	}
	raw, err := os.ReadFile(s.Path())
	must(t, err)
	if strings.Contains(string(raw), "-the-image-bytes-") {
		t.Fatal("the attachment's bytes are in the sessions file")
	}
}

// OpenLater touches nothing until the store is used: the full-screen
// chat's start does not create or migrate the file before its first
// frame. The first use opens it; a file that cannot be opened is that
// use's error, and Close before any use opens nothing.
func TestOpenLaterOpensAtFirstUse(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "data", FileName)
	s := OpenLater(path)
	if _, err := os.Stat(filepath.Dir(path)); !os.IsNotExist(err) {
		t.Fatalf("OpenLater touched the data folder: %v", err)
	}
	r := s.New("/w")
	must(t, r.Append(message.Message{Role: message.RoleUser, Content: "hi"}))
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the first use did not create the store: %v", err)
	}
	must(t, s.Close())

	junk := filepath.Join(dir, "junk.db")
	must(t, os.WriteFile(junk, []byte(strings.Repeat("not sqlite ", 400)), 0o600))
	bad := OpenLater(junk)
	if _, err := bad.Find("x"); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Errorf("a damaged file's first use: %v, want the damage named", err)
	}
	if err := bad.Ready(); err == nil {
		t.Error("Ready on a damaged file: no error")
	}

	never := OpenLater(filepath.Join(dir, "never", FileName))
	must(t, never.Close())
	if _, err := os.Stat(filepath.Join(dir, "never")); !os.IsNotExist(err) {
		t.Errorf("Close opened the store: %v", err)
	}
	if err := never.Ready(); err == nil {
		t.Error("a store closed before use opened after it")
	}
}
