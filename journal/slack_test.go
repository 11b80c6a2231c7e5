package journal_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/co-cli/co/journal"
	"github.com/co-cli/co/tools/slack"
	"github.com/co-cli/co/tools/slack/slackfake"
)

func newSlack(t *testing.T) (*slackfake.Workspace, *slack.Workspace) {
	t.Helper()
	ws := slackfake.New()
	t.Cleanup(ws.Close)
	ws.AddUsers(slackfake.User{ID: "U01ADA", Name: "ada", RealName: "Ada Lovelace"})
	ws.AddChannels(slackfake.Channel{ID: "C01GENERAL", Name: "general", Members: 3})
	return ws, slack.NewWorkspace(slack.Config{Token: slackfake.Token, APIURL: ws.URL})
}

// post sends a message with send_slack_message, as the model does, and
// journals it from the result's Meta.
func post(t *testing.T, w *slack.Workspace, j *journal.Journal, text string) journal.Entry {
	t.Helper()
	for _, tl := range slack.Tools(w) {
		if tl.Name() != slack.NameSendMessage {
			continue
		}
		res, err := tl.Run(ctx(t), json.RawMessage(`{"channel":"#general","text":`+strconvQuote(text)+`}`))
		if err != nil {
			t.Fatal(err)
		}
		ch, _ := res.Meta["channel"].(string)
		ts, _ := res.Meta["ts"].(string)
		return record(t, j, journal.SlackPost(1, tl.Name(), ch, ts, "#general", text))
	}
	t.Fatal("no send_slack_message")
	return journal.Entry{}
}

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }

func TestSlackPostIsDeleted(t *testing.T) {
	ws, w := newSlack(t)
	j := open(t, t.TempDir())
	r := journal.NewRegistry()
	r.Slack(w)
	e := post(t, w, j, "Lunch at noon?")
	if len(ws.Messages("C01GENERAL")) != 1 {
		t.Fatal("the post did not reach the fake")
	}
	undo(t, r, j, e.Seq, journal.Undone)
	if m := ws.Messages("C01GENERAL"); len(m) != 0 {
		t.Fatalf("after undo the channel holds %+v", m)
	}
	var h journal.SlackHandle
	_ = json.Unmarshal(e.Handle, &h)
	calls := 0
	for _, c := range ws.Calls() {
		if c.Method == "chat.delete" {
			calls++
			if c.Args["channel"] != "C01GENERAL" || c.Args["ts"] != h.TS {
				t.Errorf("chat.delete got %v, want channel C01GENERAL ts %s", c.Args, h.TS)
			}
		}
	}
	if calls != 1 {
		t.Fatalf("%d chat.delete calls, want 1", calls)
	}
	if got := entry(t, j, e.Seq).Undone; got != journal.Undone {
		t.Errorf("journal says %q", got)
	}
}

// A post someone deleted in Slack meanwhile: message_not_found is
// "already gone", and the journal marks it so.
func TestSlackPostAlreadyGone(t *testing.T) {
	_, w := newSlack(t)
	j := open(t, t.TempDir())
	r := journal.NewRegistry()
	r.Slack(w)
	e := post(t, w, j, "oops")
	var h journal.SlackHandle
	_ = json.Unmarshal(e.Handle, &h)
	if err := w.DeleteMessage(ctx(t), h.Channel, h.TS); err != nil {
		t.Fatal(err)
	}
	res := undo(t, r, j, e.Seq, journal.AlreadyGone)
	if !strings.Contains(res.Message, "already gone") || !strings.Contains(res.Message, "message_not_found") {
		t.Errorf("message %q", res.Message)
	}
	if got := entry(t, j, e.Seq).Undone; got != journal.AlreadyGone {
		t.Errorf("journal says %q", got)
	}
}

func TestSlackRefusals(t *testing.T) {
	cases := []struct {
		name   string
		setup  func(ws *slackfake.Workspace, e *journal.Entry)
		saying []string
	}{
		{"someone else's message", func(ws *slackfake.Workspace, e *journal.Entry) {
			ts := ws.Post(slackfake.Message{Channel: "C01GENERAL", User: "U01ADA", Text: "mine"})
			*e = journal.SlackPost(1, slack.NameSendMessage, "C01GENERAL", ts, "#general", "mine")
		}, []string{"cant_delete_message", "only messages the bot posted", "delete it in Slack yourself"}},
		{"token without chat:write", func(ws *slackfake.Workspace, e *journal.Entry) {
			ws.Fail("chat.delete", "missing_scope")
		}, []string{"chat:write", "OAuth & Permissions", "reinstall"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ws, w := newSlack(t)
			j := open(t, t.TempDir())
			r := journal.NewRegistry()
			r.Slack(w)
			e := post(t, w, j, "posted by co")
			var other journal.Entry
			c.setup(ws, &other)
			if other.Kind != "" {
				e = record(t, j, other)
			}
			_, err := r.Undo(ctx(t), j, e.Seq)
			if !journal.IsPermission(err) {
				t.Fatalf("undo: %v, want a permission refusal", err)
			}
			for _, s := range c.saying {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("%q does not say %q", err, s)
				}
			}
			if got := entry(t, j, e.Seq).Undone; got != "" {
				t.Errorf("a refused undo is journalled as %q", got)
			}
		})
	}
}
