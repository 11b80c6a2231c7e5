package cli

import (
	"strings"
	"testing"

	"github.com/co-cli/co/internal/app"
	"github.com/co-cli/co/message"
)

// Issue 41: co sessions counts the turns an undo took out apart, and the
// transcript a --plain resume prints marks them (and summarised ones),
// the prompt made safe as every saved text.
func TestSessionsMarkUndoneTurns(t *testing.T) {
	isolatedHome(t)
	l, err := loadSettings()
	must(t, err)
	st, err := app.OpenSessions(l)
	must(t, err)
	defer st.Close()
	r := st.New("/w")
	var seqs []int64
	for _, p := range []string{"first", "second", "third\x1b[2J", "fourth"} {
		must(t, r.Append(message.Message{Role: message.RoleUser, Content: p}))
		seqs = append(seqs, r.Seq())
		must(t, r.Append(message.Message{Role: message.RoleAssistant, Content: "ok " + p}))
	}
	n, err := st.UndoFrom(r.ID(), seqs[3])
	must(t, err)
	if n != 1 {
		t.Fatalf("undone %d", n)
	}
	must(t, st.SummariseFrom(r.ID(), seqs[1], "they asked twice"))

	code, out, errOut := run(t, "v", "sessions", "--all")
	if code != 0 {
		t.Fatalf("co sessions = %d: %s", code, errOut)
	}
	if !strings.Contains(out, "3 (1 undone)") {
		t.Errorf("co sessions does not count the undone turn:\n%s", out)
	}
	_, entries, err := st.Transcript(r.ID())
	must(t, err)
	text := transcriptText(entries)
	for _, want := range []string{"co> first\nok first\n", "co> second — summarised\n", "co> third␛[2J — summarised\n", "co> fourth — undone\nok fourth\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("transcript lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "\x1b") {
		t.Errorf("raw escape in the transcript: %q", text)
	}
}
