package e2e

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/co-cli/co/agent/llmtest"
)

// A line typed while co starts, before the chat takes the terminal, is
// sent when its Enter was typed too: the terminal turned that Enter into
// a line feed (Ctrl+J, the new-line key), which left the line unsent in
// the input with an empty line under it. A second line typed ahead goes
// after the first's answer; a Ctrl+J typed once the chat runs is a new
// line again.
func TestTUITypedAheadLinesAreSent(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(llmtest.Reply{Text: "first answer"}, llmtest.Reply{Text: "second answer"}, llmtest.Reply{Text: "third answer"})
	gate := filepath.Join(t.TempDir(), "start")
	s := startTUIAfter(t, gate, t.TempDir(), tuiEnv(t, srv), 100, 30)
	s.send("typed ahead")
	s.send("and another")
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	s.waitFor(tuiWait, "first answer", "second answer")
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[0].LastUserMessage() != "typed ahead" || reqs[1].LastUserMessage() != "and another" {
		for _, r := range reqs {
			t.Logf("sent %q", r.LastUserMessage())
		}
		t.Fatalf("%d requests, want the two lines in order", len(reqs))
	}
	s.typeText("one")
	s.keys("C-j")
	s.typeText("two")
	s.keys("Enter")
	s.waitFor(tuiWait, "third answer")
	if n := len(srv.Requests()); n != 3 {
		t.Fatalf("%d requests after a line with a Ctrl+J in it", n)
	}
	if got := srv.Requests()[2].LastUserMessage(); got != "one\ntwo" {
		t.Errorf("Ctrl+J once the chat runs: sent %q, want a new line in the message", got)
	}
}
