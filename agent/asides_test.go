package agent_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/sessions"
)

// A !cmd and the notice that older messages were summarised are kept in
// the conversation where they happened, and saved there, so that a
// resumed session shows them again (issue 19, item 17).
func TestBangsAndSummaryNoticesAreKeptAndSaved(t *testing.T) {
	f := newFixture(t, func(c *agent.Config) { c.History = agent.HistoryOptions{MaxMessages: 12} })
	if err := f.ag.Tools().Add(&bangShell{}); err != nil {
		t.Fatal(err)
	}
	st, err := sessions.Open(filepath.Join(t.TempDir(), sessions.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rec := st.New("/w")
	f.ag.SetRecorder(rec)
	bang := func(cmd string) {
		for ev := range f.ag.RunBang(context.Background(), cmd) {
			if r, ok := ev.(agent.ApprovalRequested); ok {
				r.Reply([]message.Verdict{message.ApproveOnce})
			}
		}
	}
	bang("echo first")
	f.ag.SetHistory(longHistory(5)) // 20 messages, not saved
	bang("echo second")
	f.srv.Script(llmtest.Reply{Text: "- questions 0-3"}, llmtest.Reply{Text: "fine"})
	finished(t, run(t, context.Background(), f.ag, "next", nil))

	h, xs := f.ag.History(), f.ag.Asides()
	if len(xs) != 3 {
		t.Fatalf("asides = %+v", xs)
	}
	first, notice, second := xs[0], xs[1], xs[2]
	if first.Bang == nil || first.After != 0 || first.Bang.Finished.Result.Display != "ok" {
		t.Errorf("the first !cmd: %+v", first)
	}
	if !strings.HasPrefix(notice.Notice, "Summarised ") || !strings.HasSuffix(notice.Notice, " older messages to stay within the context.") ||
		!strings.HasPrefix(h[notice.After].Content, agent.SummaryIntro) {
		t.Errorf("the notice %q is not just before the summary (at %d)", notice.Notice, notice.After)
	}
	if second.Bang == nil || h[second.After-1].Content != "answer 4" || h[second.After].Content != "next" {
		t.Errorf("the second !cmd moved away from the message it followed: after %d of %d", second.After, len(h))
	}

	// Saved: the store places them by what it saved (the 20 messages set
	// directly were not), the notice with its count.
	_, saved, sx, err := st.LoadAsides(rec.ID())
	if err != nil {
		t.Fatal(err)
	}
	if len(sx) != 3 || sx[0].Bang == nil || sx[1].Bang == nil || sx[2].Notice != notice.Notice {
		t.Fatalf("saved asides = %+v", sx)
	}
	if sx[2].After != 1 || saved[0].Content != "next" {
		t.Errorf("the saved notice is not after the prompt that caused it: after %d, history %+v", sx[2].After, saved)
	}
	if bc := sx[1].Bang; bc == nil || !strings.Contains(bc.Args, "echo second") || bc.Finished.Status != message.CallDone {
		t.Errorf("the saved !cmd: %+v", bc)
	}
}

// /clear forgets the asides with the conversation.
func TestResetForgetsAsides(t *testing.T) {
	f := newFixture(t, nil)
	if err := f.ag.Tools().Add(&bangShell{}); err != nil {
		t.Fatal(err)
	}
	for ev := range f.ag.RunBang(context.Background(), "echo x") {
		if r, ok := ev.(agent.ApprovalRequested); ok {
			r.Reply([]message.Verdict{message.ApproveOnce})
		}
	}
	if len(f.ag.Asides()) != 1 {
		t.Fatal("the !cmd was not kept")
	}
	f.ag.Reset()
	if len(f.ag.Asides()) != 0 {
		t.Fatal("asides survived /clear")
	}
}
