package sessions_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/agent/provider"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/sessions"
)

// open and must are store_test.go's, for these external tests.
func open(t *testing.T) *sessions.Store {
	t.Helper()
	s, err := sessions.Open(filepath.Join(t.TempDir(), "data", sessions.FileName))
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

// With DeferDrafts (the full-screen chat), streamed text is saved when the
// front end calls SyncDraft before it shows text, from the front end's own
// goroutine: the draft then holds at least everything handed out before
// the sync, calls into the session never overlap (-race), and once the
// reply is saved no draft is left behind.
func TestDeferredDraftsHoldWhatWasHandedOut(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	reply := strings.Repeat("word ", 200)
	srv.Script(llmtest.Reply{Text: reply, ChunkSize: 5, ChunkDelay: 500 * time.Microsecond})

	s := open(t)
	r := s.New("/w")
	ag := agent.New(agent.Config{Provider: provider.Provider{Name: "openai", BaseURL: srv.URL, Model: "m"}, Recorder: r})
	ag.DeferDrafts()

	events := ag.Submit(context.Background(), "talk")
	var (
		mu     sync.Mutex
		handed strings.Builder // text received as events so far
		checks int
	)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the front end's frame loop
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			case <-time.After(3 * time.Millisecond):
			}
			mu.Lock()
			want := handed.String()
			ag.SyncDraft()
			// Read the draft while the turn may still append to it.
			b, err := os.ReadFile(s.DraftPath(r.ID()))
			mu.Unlock()
			if err == nil && !strings.HasPrefix(string(b), want) {
				t.Errorf("after SyncDraft the draft holds %q, want it to start with the %d bytes handed out", b, len(want))
				return
			}
			if err == nil && want != "" {
				checks++
			}
		}
	}()
	for ev := range events {
		if d, ok := ev.(agent.TextDelta); ok {
			mu.Lock()
			handed.WriteString(d.Text)
			mu.Unlock()
		}
	}
	close(stop)
	wg.Wait()
	ag.SyncDraft() // a late frame after the reply was saved writes nothing

	if checks == 0 {
		t.Fatal("no sync happened while the reply streamed; the test checked nothing")
	}
	if _, err := os.Stat(s.DraftPath(r.ID())); !os.IsNotExist(err) {
		t.Errorf("a draft is left after the reply was saved (err %v)", err)
	}
	_, h, err := s.Load(r.ID())
	must(t, err)
	if len(h) != 2 || h[1].Content != reply || h[1].Interrupted {
		t.Fatalf("saved history = %+v", h)
	}
}

// Without DeferDrafts (--plain, co run) every chunk is in the draft before
// its event is sent.
func TestDraftsAreSavedPerChunkByDefault(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(llmtest.Reply{Text: strings.Repeat("abc ", 50), ChunkSize: 4, ChunkDelay: time.Millisecond})
	s := open(t)
	r := s.New("/w")
	ag := agent.New(agent.Config{Provider: provider.Provider{Name: "openai", BaseURL: srv.URL, Model: "m"}, Recorder: r})
	var handed strings.Builder
	checked := 0
	for ev := range ag.Submit(context.Background(), "talk") {
		d, ok := ev.(agent.TextDelta)
		if !ok {
			continue
		}
		handed.WriteString(d.Text)
		if b, err := os.ReadFile(s.DraftPath(r.ID())); err == nil {
			if !strings.HasPrefix(string(b), handed.String()) {
				t.Fatalf("draft %q lacks text already handed out %q", b, handed.String())
			}
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("never saw the draft while streaming")
	}
}

// draftChecker is the session as the agent's Recorder, reading the draft
// file when the reply is saved (the moment before Append replaces it).
type draftChecker struct {
	*sessions.Session
	path  string
	draft *string
}

func (c draftChecker) Append(m message.Message) error {
	if m.Role == message.RoleAssistant {
		b, _ := os.ReadFile(c.path)
		*c.draft = string(b)
	}
	return c.Session.Append(m)
}

// A stream's last chunks, handed out as events but not yet synced by a
// frame, are in the draft before the reply replaces it: a frame that shows
// them in between never shows unsaved text. Dropping them at the stream's
// end left the draft short in that window (seen under load in
// TestDeferredDraftsHoldWhatWasHandedOut).
func TestDeferredDraftsHoldTheWholeReplyWhenItIsSaved(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	reply := strings.Repeat("word ", 50)
	srv.Script(llmtest.Reply{Text: reply, ChunkSize: 5})

	s := open(t)
	r := s.New("/w")
	var atSave string
	rec := draftChecker{Session: r, path: s.DraftPath(r.ID()), draft: &atSave}
	ag := agent.New(agent.Config{Provider: provider.Provider{Name: "openai", BaseURL: srv.URL, Model: "m"}, Recorder: rec})
	ag.DeferDrafts() // and no frame ever syncs: everything is still held at the stream's end

	var handed strings.Builder
	for ev := range ag.Submit(context.Background(), "talk") {
		if d, ok := ev.(agent.TextDelta); ok {
			handed.WriteString(d.Text)
		}
	}
	if handed.String() != reply {
		t.Fatalf("handed out %q", handed.String())
	}
	if atSave != reply {
		t.Fatalf("when the reply was saved the draft held %d bytes, want the %d handed out", len(atSave), len(reply))
	}
	if _, err := os.Stat(s.DraftPath(r.ID())); !os.IsNotExist(err) {
		t.Errorf("a draft is left after the reply was saved (err %v)", err)
	}
}
