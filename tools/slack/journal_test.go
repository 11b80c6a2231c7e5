package slack_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/journal"
	"github.com/co-cli/co/tools/slack"
)

// turnCtx is a tool call's context in turn 3 of a session journalled in j.
func turnCtx(t *testing.T) (context.Context, *journal.Journal) {
	t.Helper()
	j, err := journal.Open(t.TempDir(), "s-1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return journal.WithTurn(ctx, j, 3, time.Now()), j
}

// send_slack_message journals its post with the channel and ts Slack
// answered; undo deletes that message with chat.delete. A post Slack
// refused journals nothing.
func TestSentMessageIsJournalledAndDeleted(t *testing.T) {
	f := newFixture(t, nil)
	ctx, j := turnCtx(t)
	send := f.tools[slack.NameSendMessage]
	if _, err := send.Run(ctx, json.RawMessage(`{"channel":"#locked","text":"not in it"}`)); err == nil {
		t.Fatal("posting where the bot is not a member succeeded")
	}
	res, err := send.Run(ctx, json.RawMessage(`{"channel":"#general","text":"Lunch at noon?"}`))
	if err != nil {
		t.Fatal(err)
	}
	msgs := f.ws.Messages("C01GENERAL")
	if len(msgs) != 1 {
		t.Fatalf("%d messages in #general", len(msgs))
	}
	es, err := j.List(3)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 1 {
		t.Fatalf("%d entries, want the one post: %+v", len(es), es)
	}
	e := es[0]
	var h journal.SlackHandle
	if err := json.Unmarshal(e.Handle, &h); err != nil {
		t.Fatal(err)
	}
	if e.Kind != journal.SlackMessage || !e.Undoable || e.Tool != slack.NameSendMessage || e.Turn != 3 ||
		h.Channel != "C01GENERAL" || h.TS != msgs[0].TS || h.TS != res.Meta["ts"] {
		t.Fatalf("entry %+v handle %+v, want channel C01GENERAL ts %s", e, h, msgs[0].TS)
	}
	if !strings.Contains(e.What, "#general (C01GENERAL)") || !strings.Contains(e.What, "Lunch at noon?") {
		t.Errorf("what: %q", e.What)
	}

	r := journal.NewRegistry()
	r.Slack(f.w)
	if out, err := r.Undo(ctx, j, e.Seq); err != nil || out.Outcome != journal.Undone {
		t.Fatalf("undo: %+v %v", out, err)
	}
	if m := f.ws.Messages("C01GENERAL"); len(m) != 0 {
		t.Fatalf("after undo #general holds %+v", m)
	}
	var deletes []map[string]string
	for _, c := range f.ws.Calls() {
		if c.Method == "chat.delete" {
			deletes = append(deletes, c.Args)
		}
	}
	if len(deletes) != 1 || deletes[0]["channel"] != "C01GENERAL" || deletes[0]["ts"] != h.TS {
		t.Fatalf("chat.delete calls %v, want one for C01GENERAL %s", deletes, h.TS)
	}
}
