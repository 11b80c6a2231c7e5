package deliver_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/deliver"
	"github.com/co-cli/co/deliver/dbustest"
	"github.com/co-cli/co/tools/google"
	"github.com/co-cli/co/tools/google/googlefake"
	"github.com/co-cli/co/tools/slack"
	"github.com/co-cli/co/tools/slack/slackfake"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// A notification reaches the freedesktop Notifications server on a real
// session bus: app name co, the title, the outcome and the answer's start,
// sanitised and escaped for the spec's body markup.
func TestDesktopNotificationOnARealBus(t *testing.T) {
	bus := dbustest.Start(t)
	srv := bus.Serve(t)
	d := deliver.Desktop{Getenv: env(map[string]string{"DBUS_SESSION_BUS_ADDRESS": bus.Address})}
	r := deliver.Run{Schedule: "brief", Outcome: deliver.Outcome("", 2), Answer: "Mail: 3 new <b>today</b>\x1b]52;c;aGk=\x07 & more"}
	if _, err := d.Notify(context.Background(), r.Title(), r.Short()); err != nil {
		t.Fatal(err)
	}
	n := srv.Next(t)
	if n.AppName != "co" || n.Summary != "co: brief" || n.Timeout != -1 {
		t.Errorf("notification %+v", n)
	}
	want := "done; 2 calls waiting for your approval: co inbox\n\nMail: 3 new &lt;b&gt;today&lt;/b&gt;␛]52;c;aGk=␇ &amp; more"
	if n.Body != want {
		t.Errorf("body:\n%q\nwant\n%q", n.Body, want)
	}
}

// A cron job has no DBUS_SESSION_BUS_ADDRESS: the bus is found at
// $XDG_RUNTIME_DIR/bus.
func TestDesktopFindsTheUserBusWithoutTheVariable(t *testing.T) {
	bus := dbustest.Start(t)
	srv := bus.Serve(t)
	d := deliver.Desktop{Getenv: env(map[string]string{"XDG_RUNTIME_DIR": bus.Dir})}
	if a, err := d.BusAddress(); err != nil || a != bus.Address {
		t.Fatalf("BusAddress = %q, %v; want %s", a, err, bus.Address)
	}
	if _, err := d.Notify(context.Background(), "co: x", "done"); err != nil {
		t.Fatal(err)
	}
	if n := srv.Next(t); n.Summary != "co: x" || n.Body != "done" {
		t.Errorf("notification %+v", n)
	}
}

// No bus at all, or a bus with no notification server: said, with what to
// do; nothing is started (no dbus-launch).
func TestDesktopWithoutABusOrServer(t *testing.T) {
	empty := t.TempDir()
	d := deliver.Desktop{Getenv: env(map[string]string{"XDG_RUNTIME_DIR": empty}), UID: 99999}
	_, err := d.Notify(context.Background(), "co: x", "done")
	if err == nil || !strings.Contains(err.Error(), "no session bus: DBUS_SESSION_BUS_ADDRESS is not set and there is no "+filepath.Join(empty, "bus")) ||
		!strings.Contains(err.Error(), "loginctl enable-linger") {
		t.Errorf("no bus: %v", err)
	}
	bus := dbustest.Start(t)
	d = deliver.Desktop{Getenv: env(map[string]string{"DBUS_SESSION_BUS_ADDRESS": bus.Address})}
	_, err = d.Notify(context.Background(), "co: x", "done")
	if err == nil || !strings.Contains(err.Error(), "no notification server on the session bus") || !strings.Contains(err.Error(), "dunst") {
		t.Errorf("no server: %v", err)
	}
}

func TestOutcomeAndSummary(t *testing.T) {
	for _, tc := range []struct {
		failure string
		waiting int
		want    string
	}{
		{"", 0, "done"},
		{"", 1, "done; 1 call waiting for your approval: co inbox"},
		{"the provider said 401", 0, "failed: the provider said 401"},
		{"boom", 3, "failed: boom; 3 calls waiting for your approval: co inbox"},
	} {
		if got := deliver.Outcome(tc.failure, tc.waiting); got != tc.want {
			t.Errorf("Outcome(%q, %d) = %q, want %q", tc.failure, tc.waiting, got, tc.want)
		}
	}
	r := deliver.Run{Schedule: "brief", Outcome: "done", Answer: strings.Repeat("é", 400)}
	short := r.Short()
	if want := "done\n\n" + strings.Repeat("é", deliver.SummaryChars) + "…"; short != want {
		t.Errorf("Short = %q", short)
	}
}

// Each place of notify is tried; a place not configured, or one that
// fails, is a line in the log with what to do, and the rest still go.
func TestDeliverSaysWhatFailedAndGoesOn(t *testing.T) {
	var log bytes.Buffer
	r := deliver.Run{Schedule: "brief", Outcome: "done", Answer: "hi", Start: time.Date(2026, 11, 26, 8, 0, 0, 0, time.UTC)}
	var shown []string
	p := deliver.Places{
		Desktop:      func(ctx context.Context, title, body string) error { return errors.New("no session bus: …") },
		SlackMissing: "set SLACK_BOT_TOKEN",
		MailMissing:  "run co google auth",
	}
	n := deliver.Deliver(context.Background(), r, []string{"desktop", "slack:#me", "mail"}, p, &log)
	if n != 3 {
		t.Errorf("failed = %d, want 3", n)
	}
	for _, want := range []string{
		"co: not delivered to desktop: no session bus: …\n",
		"co: not delivered to slack:#me: Slack is not configured: set SLACK_BOT_TOKEN\n",
		"co: not delivered to mail: Google is not configured: run co google auth\n",
	} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, log.String())
		}
	}
	p.Desktop = func(ctx context.Context, title, body string) error { shown = append(shown, title+"|"+body); return nil }
	log.Reset()
	if n := deliver.Deliver(context.Background(), r, []string{"desktop"}, p, &log); n != 0 || len(shown) != 1 || shown[0] != "co: brief|done\n\nhi" {
		t.Errorf("failed %d, shown %q, log %s", n, shown, log.String())
	}
}

// slack:MEMBER_ID is a direct message from the bot (chat.postMessage with
// the member ID as the channel); slack:#channel a post there. Text is
// escaped: an answer cannot ping @channel.
func TestSlackDelivery(t *testing.T) {
	ws := slackfake.New()
	defer ws.Close()
	ws.AddUsers(slackfake.User{ID: "U0123ABC", Name: "ada"})
	ws.AddChannels(slackfake.Channel{ID: "C0MEMEME", Name: "me"})
	w := slack.NewWorkspace(slack.Config{Token: slackfake.Token, APIURL: ws.URL})
	var log bytes.Buffer
	r := deliver.Run{Schedule: "brief", Outcome: "done", Answer: "Hi <!channel> & all"}
	p := deliver.Places{Slack: w.Deliver}
	if n := deliver.Deliver(context.Background(), r, []string{"slack:U0123ABC", "slack:#me", "slack:U9999999", "slack:#nowhere"}, p, &log); n != 2 {
		t.Errorf("failed = %d\n%s", n, log.String())
	}
	dm := ws.Messages(slackfake.DMOf("U0123ABC"))
	if len(dm) != 1 || dm[0].Text != "*co: brief*\ndone\n\nHi &lt;!channel&gt; &amp; all" {
		t.Errorf("DM: %+v", dm)
	}
	if ch := ws.Messages("C0MEMEME"); len(ch) != 1 || !strings.HasPrefix(ch[0].Text, "*co: brief*") {
		t.Errorf("#me: %+v", ch)
	}
	for _, want := range []string{"co: delivered to Slack: a direct message to U0123ABC\n", "co: delivered to Slack: #me (C0MEMEME)\n", "co: not delivered to slack:U9999999: Slack has no member or channel U9999999 the bot can post to (channel_not_found): check slack:U9999999 in the schedule's notify",
		"co: not delivered to slack:#nowhere: the bot sees no channel #nowhere: check slack:#nowhere in the schedule's notify"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, log.String())
		}
	}
}

// mail is a Gmail draft to the account's own address (users.getProfile),
// subject "co: NAME — date", the whole answer and the waiting calls.
func TestMailDelivery(t *testing.T) {
	g := googlefake.New()
	defer g.Close()
	tok := filepath.Join(t.TempDir(), google.TokenFile)
	if err := os.WriteFile(tok, g.AuthorizedUserJSON("client-1", "secret-1"), 0o600); err != nil {
		t.Fatal(err)
	}
	a := google.NewAccount(google.Config{TokenPath: tok, Endpoint: g.URL, Location: time.UTC, Getenv: func(string) string { return "" }})
	long := strings.Repeat("word ", 200)
	r := deliver.Run{Schedule: "brief", Outcome: deliver.Outcome("", 1), Answer: long + "end.", Session: "abc123",
		Waiting: []string{"1: write_file path='done.txt'"}, Start: time.Date(2026, 11, 26, 8, 0, 0, 0, time.UTC)}
	var log bytes.Buffer
	if n := deliver.Deliver(context.Background(), r, []string{"mail"}, deliver.Places{Mail: a.DraftToSelf}, &log); n != 0 {
		t.Fatalf("failed: %s", log.String())
	}
	drafts := g.Drafts()
	if len(drafts) != 1 {
		t.Fatalf("drafts: %d", len(drafts))
	}
	raw := string(drafts[0].Raw)
	for _, want := range []string{"To: <ada@example.com>", "Subject: =?utf-8?q?co:_brief_=E2=80=94_Thu_2026-11-26_08:00?=", "end.", "write_file path=3D'done.txt'", "co inbox show abc123"} {
		if !strings.Contains(raw, want) {
			t.Errorf("draft lacks %q:\n%s", want, raw)
		}
	}
	if !strings.Contains(log.String(), "co: delivered as a Gmail draft to yourself (not sent): https://mail.google.com/mail/?authuser=ada%40example.com#drafts?compose=") {
		t.Errorf("log: %s", log.String())
	}
}

// A place listed twice in notify (as "desktop" and " desktop", or the same
// channel twice) is delivered once, and the log says why the second is not.
func TestDeliverOncePerPlace(t *testing.T) {
	var log bytes.Buffer
	r := deliver.Run{Schedule: "brief", Outcome: "done", Answer: "hi", Start: time.Date(2026, 11, 26, 8, 0, 0, 0, time.UTC)}
	shown := 0
	p := deliver.Places{Desktop: func(ctx context.Context, title, body string) error { shown++; return nil }}
	if n := deliver.Deliver(context.Background(), r, []string{"desktop", "desktop"}, p, &log); n != 0 || shown != 1 {
		t.Errorf("failed %d, shown %d times, want 0 and 1; log:\n%s", n, shown, log.String())
	}
	if !strings.Contains(log.String(), "listed more than once") {
		t.Errorf("log does not say why the second was skipped:\n%s", log.String())
	}
}

// The rule per place after a run that read untrusted content with private
// data: Slack (others may read it) gets the outcome, the sources and where
// to read the answer, never the answer; the desktop and the draft to
// yourself keep it, after a line naming the sources. Without private data
// Slack keeps the answer, after that line; with no untrusted content
// nothing changes.
func TestDeliverWithholdsTheAnswerFromSharedPlacesAfterUntrustedAndPrivate(t *testing.T) {
	r := deliver.Run{Schedule: "brief", Outcome: "done", Answer: "the code is HUNTER-7731", Session: "s1",
		Untrusted: []string{"mail from a@evil.example", "web evil.example/x", "slack #general from Bob", "mcp everything"}, Private: true}
	got := map[string]string{}
	p := deliver.Places{
		Desktop: func(ctx context.Context, title, body string) error { got["desktop"] = body; return nil },
		Slack: func(ctx context.Context, to, text string) (string, error) {
			got["slack:"+to] = text
			return to, nil
		},
		Mail: func(ctx context.Context, subject, body string) (string, error) {
			got["mail"] = body
			return "link", nil
		},
	}
	deliverAll := func(r deliver.Run) string {
		clear(got)
		var log bytes.Buffer
		if n := deliver.Deliver(context.Background(), r, []string{"desktop", "slack:#team", "slack:U0123ABC", "mail"}, p, &log); n != 0 {
			t.Fatalf("%d failed: %s", n, log.String())
		}
		return log.String()
	}
	const caution = "This answer follows untrusted content from mail from a@evil.example, web evil.example/x, slack #general from Bob and 1 more: its links and requests may be theirs, not yours."

	log := deliverAll(r)
	for _, to := range []string{"slack:#team", "slack:U0123ABC"} {
		want := "*co: brief*\ndone\n\nThe answer is not shown here: this run read untrusted content (mail from a@evil.example, web evil.example/x, slack #general from Bob and 1 more) together with your private data, and its answer could carry that data to whoever reads this. Read it with co inbox show s1 (or co schedule logs brief)."
		if got[to] != want {
			t.Errorf("%s got:\n%s\nwant:\n%s", to, got[to], want)
		}
	}
	if got["desktop"] != "done\n\n"+caution+"\n\nthe code is HUNTER-7731" {
		t.Errorf("desktop got:\n%s", got["desktop"])
	}
	if !strings.Contains(got["mail"], "done\n\n"+caution+"\n\nthe code is HUNTER-7731\n") {
		t.Errorf("mail got:\n%s", got["mail"])
	}
	if !strings.Contains(log, "co: delivered to Slack: #team, without the answer: the run read untrusted content (mail from a@evil.example,") || strings.Contains(log, "HUNTER") {
		t.Errorf("log:\n%s", log)
	}

	r.Session = "" // not saved: the log has the answer
	deliverAll(r)
	if !strings.HasSuffix(got["slack:#team"], "Read it with co schedule logs brief.") {
		t.Errorf("slack without a session:\n%s", got["slack:#team"])
	}

	r.Private = false
	deliverAll(r)
	if got["slack:#team"] != "*co: brief*\ndone\n\n"+caution+"\n\nthe code is HUNTER-7731" {
		t.Errorf("slack after untrusted content only:\n%s", got["slack:#team"])
	}

	r.Untrusted, r.Private = nil, true
	deliverAll(r)
	if got["slack:#team"] != "*co: brief*\ndone\n\nthe code is HUNTER-7731" || got["desktop"] != "done\n\nthe code is HUNTER-7731" {
		t.Errorf("a clean run: %q", got)
	}
}

// Whether a Slack place is the user's own DM comes from Slack: a DM
// channel that conversations.info cannot answer for stays shared (the
// answer withheld, the log saying why); one it says is the user's IM gets
// the answer.
func TestSlackOwnDMNeedsSlackToSaySo(t *testing.T) {
	ws := slackfake.New()
	defer ws.Close()
	ws.AddUsers(slackfake.User{ID: "U0123ABC", Name: "ada"})
	ws.AddChannels(slackfake.Channel{ID: slackfake.DMOf("U0123ABC"), Name: "DM with ada", IM: true, User: "U0123ABC"})
	w := slack.NewWorkspace(slack.Config{Token: slackfake.Token, APIURL: ws.URL, Self: "U0123ABC"})
	r := deliver.Run{Schedule: "brief", Outcome: "done", Answer: "the code is 7731", Untrusted: []string{"mail from m@evil.example"}, Private: true}
	p := deliver.Places{Slack: w.Deliver, SlackOnlyYou: w.OnlyYou}

	ws.Fail("conversations.info", "internal_error")
	var log bytes.Buffer
	deliver.Deliver(context.Background(), r, []string{"slack:" + slackfake.DMOf("U0123ABC")}, p, &log)
	if m := ws.Messages(slackfake.DMOf("U0123ABC")); len(m) != 1 || strings.Contains(m[0].Text, "7731") {
		t.Errorf("Slack could not say whose DM it is, yet the answer went there: %+v", m)
	}
	if !strings.Contains(log.String(), "could not tell whether slack:DU0123ABC is your own DM, so it is treated as read by others") {
		t.Errorf("log:\n%s", log.String())
	}

	log.Reset()
	deliver.Deliver(context.Background(), r, []string{"slack:" + slackfake.DMOf("U0123ABC")}, p, &log)
	if m := ws.Messages(slackfake.DMOf("U0123ABC")); len(m) != 2 || !strings.Contains(m[1].Text, "7731") || !strings.Contains(m[1].Text, "This answer follows untrusted content from mail from m@evil.example") {
		t.Errorf("your own DM: %+v\n%s", m, log.String())
	}
}
