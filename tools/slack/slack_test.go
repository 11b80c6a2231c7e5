package slack_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/agent/provider"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/tools"
	"github.com/co-cli/co/tools/slack"
	"github.com/co-cli/co/tools/slack/slackfake"
)

type fixture struct {
	ws    *slackfake.Workspace
	w     *slack.Workspace
	tools map[string]tools.Tool
}

func newFixture(t *testing.T, mod func(*slack.Config)) *fixture {
	t.Helper()
	ws := slackfake.New()
	t.Cleanup(ws.Close)
	ws.AddUsers(
		slackfake.User{ID: "U01ADA", Name: "ada", RealName: "Ada Lovelace", DisplayName: "Ada", Title: "Engineer", TZ: "Europe/London"},
		slackfake.User{ID: "U02BOB", Name: "bob", RealName: "Bob Smith", TZ: "America/New_York"},
		slackfake.User{ID: "U03OLD", Name: "old", RealName: "Gone Person", Deleted: true},
		slackfake.User{ID: "U0BOT", Name: "co-bot", RealName: "co", Bot: true},
	)
	ws.AddChannels(
		slackfake.Channel{ID: "C01GENERAL", Name: "general", Topic: "Company-wide", Members: 42},
		slackfake.Channel{ID: "C02RANDOM", Name: "random", Members: 40},
		slackfake.Channel{ID: "G03SECRET", Name: "secret", Private: true, Members: 3},
		slackfake.Channel{ID: "C04LOCKED", Name: "locked", NotMember: true},
		slackfake.Channel{ID: "D05DMADA", IM: true, User: "U01ADA"},
	)
	loc, _ := time.LoadLocation("Europe/Berlin")
	cfg := slack.Config{Token: slackfake.Token, APIURL: ws.URL, Location: loc, MaxRateWait: 3 * time.Second}
	if mod != nil {
		mod(&cfg)
	}
	f := &fixture{ws: ws, w: slack.NewWorkspace(cfg), tools: map[string]tools.Tool{}}
	for _, tl := range slack.Tools(f.w) {
		f.tools[tl.Name()] = tl
	}
	return f
}

func (f *fixture) run(t *testing.T, name, args string) (tools.Result, error) {
	t.Helper()
	tl := f.tools[name]
	if err := tools.NewValidator().Validate(tl, json.RawMessage(args)); err != nil {
		t.Fatalf("%s(%s) does not fit the schema: %v", name, args, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return tl.Run(ctx, json.RawMessage(args))
}

func (f *fixture) mustRun(t *testing.T, name, args string) tools.Result {
	t.Helper()
	res, err := f.run(t, name, args)
	if err != nil {
		t.Fatalf("%s(%s): %v", name, args, err)
	}
	return res
}

func TestListChannelsPagesWithCursors(t *testing.T) {
	f := newFixture(t, nil)
	for i := 1; i <= 20; i++ {
		f.ws.AddChannels(slackfake.Channel{ID: fmt.Sprintf("C9%08d", i), Name: fmt.Sprintf("team-%02d", i)})
	}
	res := f.mustRun(t, slack.NameListChannels, `{"limit":10}`)
	if res.Meta["count"] != 10 || res.Meta["has_more"] != true || res.Meta["next_cursor"] != "offset:10" {
		t.Fatalf("page 1 meta = %v", res.Meta)
	}
	if !strings.HasPrefix(res.Display, "Slack channels (public_channel):\n1. #general (C01GENERAL) — 42 members — Company-wide\n2. #random (C02RANDOM) — 40 members\n") ||
		!strings.HasSuffix(res.Display, `More channels: call again with cursor "offset:10".`) {
		t.Errorf("page 1:\n%s", res.Display)
	}
	res = f.mustRun(t, slack.NameListChannels, `{"limit":10,"cursor":"offset:10"}`)
	if res.Meta["count"] != 10 || res.Meta["has_more"] != true {
		t.Fatalf("page 2 meta = %v", res.Meta)
	}
	res = f.mustRun(t, slack.NameListChannels, `{"limit":10,"cursor":"`+res.Meta["next_cursor"].(string)+`"}`)
	if res.Meta["count"] != 3 || res.Meta["has_more"] != false || res.Meta["next_cursor"] != nil || strings.Contains(res.Display, "More") {
		t.Fatalf("page 3 = %v\n%s", res.Meta, res.Display)
	}
	res = f.mustRun(t, slack.NameListChannels, `{"types":"private_channel, im"}`)
	if res.Display != "Slack channels (private_channel, im):\n1. #secret (G03SECRET) — private — 3 members\n2. DM with Ada (D05DMADA)" {
		t.Errorf("private and DMs:\n%s", res.Display)
	}
	if _, err := f.run(t, slack.NameListChannels, `{"types":"public"}`); !tools.IsRetry(err) {
		t.Errorf("bad types: %v", err)
	}
}

func TestListMessagesShowsNames(t *testing.T) {
	f := newFixture(t, nil)
	f.ws.Post(slackfake.Message{Channel: "C01GENERAL", User: "U02BOB", Text: "first"})
	parent := f.ws.Post(slackfake.Message{Channel: "C01GENERAL", User: "U01ADA",
		Text: "Hi <@U02BOB>, see <#C02RANDOM> and <https://example.com/doc|the doc> &amp; <!here>\nsecond line"})
	f.ws.Post(slackfake.Message{Channel: "C01GENERAL", User: "U02BOB", Text: "reply one", ThreadTS: parent})
	f.ws.Post(slackfake.Message{Channel: "C01GENERAL", User: "U01ADA", Text: "reply <@U02BOB|bob> two", ThreadTS: parent})

	for _, ch := range []string{"#general", "general", "C01GENERAL", "<#C01GENERAL|general>", "#General"} {
		res := f.mustRun(t, slack.NameListMessages, `{"channel":`+jsonString(ch)+`}`)
		want := "Messages in #general (C01GENERAL), oldest first:\n" +
			"[2024-05-06 14:54] Bob Smith: first\n" +
			"[2024-05-06 14:55] Ada: Hi @Bob Smith, see #random and the doc (https://example.com/doc) & @here\n  second line\n" +
			"    thread: 2 replies — thread_ts " + parent
		if res.Display != want || res.Meta["count"] != 2 || res.Meta["has_more"] != false || res.Meta["channel"] != "C01GENERAL" {
			t.Errorf("channel %q: %v\n%s\nwant\n%s", ch, res.Meta, res.Display, want)
		}
	}
	if n := f.ws.CallsTo("users.info"); n != 2 {
		t.Errorf("users.info called %d times, want 2 (names are cached for the session)", n)
	}
	if n := f.ws.CallsTo("conversations.list"); n != 1 {
		t.Errorf("conversations.list called %d times, want 1", n)
	}

	res := f.mustRun(t, slack.NameListReplies, `{"channel":"#general","thread_ts":"`+parent+`"}`)
	want := "Thread " + parent + " in #general (C01GENERAL):\n" +
		"[2024-05-06 14:55] Ada: Hi @Bob Smith, see #random and the doc (https://example.com/doc) & @here\n  second line\n" +
		"  ↳ [2024-05-06 14:56] Bob Smith: reply one\n" +
		"  ↳ [2024-05-06 14:57] Ada: reply @Bob Smith two"
	if res.Display != want || res.Meta["count"] != 3 {
		t.Errorf("replies = %v\n%s\nwant\n%s", res.Meta, res.Display, want)
	}
	if _, err := f.run(t, slack.NameListReplies, `{"channel":"#general","thread_ts":"yesterday"}`); !tools.IsRetry(err) {
		t.Errorf("bad thread_ts: %v", err)
	}
	if _, err := f.run(t, slack.NameListReplies, `{"channel":"#general","thread_ts":"1715000001.000001"}`); !tools.IsRetry(err) || !strings.Contains(err.Error(), "no such thread") {
		t.Errorf("unknown thread: %v", err)
	}
}

func jsonString(s string) string { b, _ := json.Marshal(s); return string(b) }

func TestListMessagesPagesBackInTime(t *testing.T) {
	f := newFixture(t, nil)
	for i := 1; i <= 20; i++ {
		f.ws.Post(slackfake.Message{Channel: "C02RANDOM", User: "U02BOB", Text: fmt.Sprintf("msg %d", i)})
	}
	res := f.mustRun(t, slack.NameListMessages, `{"channel":"random"}`)
	if res.Meta["count"] != 15 || res.Meta["has_more"] != true || !strings.Contains(res.Display, "Bob Smith: msg 6\n") ||
		!strings.Contains(res.Display, "Bob Smith: msg 20\nMore (older) messages: call again with cursor") {
		t.Fatalf("newest page = %v\n%s", res.Meta, res.Display)
	}
	res = f.mustRun(t, slack.NameListMessages, `{"channel":"random","cursor":"`+res.Meta["next_cursor"].(string)+`"}`)
	if res.Meta["count"] != 5 || res.Meta["has_more"] != false || !strings.Contains(res.Display, "msg 1\n") || strings.Contains(res.Display, "msg 6") {
		t.Fatalf("older page = %v\n%s", res.Meta, res.Display)
	}
}

func TestListUsers(t *testing.T) {
	f := newFixture(t, nil)
	res := f.mustRun(t, slack.NameListUsers, `{"limit":2}`)
	if res.Display != "Slack users:\n1. Ada (@ada, U01ADA) — Engineer — Europe/London\n2. Bob Smith (@bob, U02BOB) — America/New_York\n"+
		`More users: call again with cursor "offset:2".` || res.Meta["count"] != 2 || res.Meta["has_more"] != true {
		t.Errorf("page 1 = %v\n%s", res.Meta, res.Display)
	}
	res = f.mustRun(t, slack.NameListUsers, `{"limit":2,"cursor":"offset:2"}`)
	if res.Display != "Slack users:\n1. co (@co-bot, U0BOT) — bot" || res.Meta["count"] != 1 || res.Meta["has_more"] != false {
		t.Errorf("page 2 (deleted users left out) = %v\n%s", res.Meta, res.Display)
	}
	if n := f.ws.CallsTo("users.info"); n != 0 {
		t.Errorf("users.info called %d times", n)
	}
}

func TestSlackErrorsSayWhatToDo(t *testing.T) {
	f := newFixture(t, nil)
	cases := []struct {
		name, tool, args string
		setup            func()
		want             string
		retry            bool
	}{
		{"not a member", slack.NameListMessages, `{"channel":"#locked"}`, nil, "invite it there in Slack (/invite @the-bot)", false},
		{"unknown name", slack.NameListMessages, `{"channel":"#nope"}`, nil, "there is no channel #nope that the bot can see", true},
		{"unknown id", slack.NameListMessages, `{"channel":"C0NOPE123"}`, nil, "channel not found; use list_slack_channels", true},
		{"missing scope", slack.NameListMessages, `{"channel":"C02RANDOM"}`, func() { f.ws.Fail("conversations.history", "missing_scope") },
			"lacks channels:history (it has: chat:write)", false},
		{"revoked token", slack.NameListUsers, `{}`, func() { f.ws.Fail("users.list", "token_revoked") },
			"Slack rejected the bot token (token_revoked): set SLACK_BOT_TOKEN", false},
		{"stale cursor", slack.NameListChannels, `{"cursor":"zzz"}`, func() { f.ws.Fail("conversations.list", "invalid_cursor") },
			"call again without it", true},
		{"bad channel", slack.NameListMessages, `{"channel":"two words"}`, nil, "is not a channel name or id", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.setup != nil {
				tc.setup()
			}
			_, err := f.run(t, tc.tool, tc.args)
			if err == nil || !strings.Contains(err.Error(), tc.want) || tools.IsRetry(err) != tc.retry {
				t.Errorf("err = %v (retry %v), want %q (retry %v)", err, tools.IsRetry(err), tc.want, tc.retry)
			}
		})
	}
	bad := slack.NewWorkspace(slack.Config{Token: "xoxb-wrong", APIURL: f.ws.URL})
	_, err := slack.Tools(bad)[1].Run(context.Background(), json.RawMessage(`{}`))
	if err == nil || !strings.Contains(err.Error(), "Slack rejected the bot token (invalid_auth)") {
		t.Errorf("wrong token: %v", err)
	}
}

func TestRateLimitsAreWaitedOutThenReported(t *testing.T) {
	// The waits are recorded, not slept: the test asserts co asks for
	// exactly what Retry-After said, whatever the machine's load.
	var waits []time.Duration
	f := newFixture(t, func(c *slack.Config) {
		c.Sleep = func(ctx context.Context, d time.Duration) error {
			waits = append(waits, d)
			return ctx.Err()
		}
	})
	f.ws.Post(slackfake.Message{Channel: "C02RANDOM", User: "U02BOB", Text: "hello"})
	f.ws.RateLimit("conversations.history", "1")
	res := f.mustRun(t, slack.NameListMessages, `{"channel":"C02RANDOM"}`)
	if fmt.Sprint(waits) != "[1s]" || res.Meta["count"] != 1 {
		t.Errorf("after a 429 with Retry-After 1: waits %v, %v", waits, res.Meta)
	}
	if n := f.ws.CallsTo("conversations.history"); n != 2 {
		t.Errorf("conversations.history called %d times, want 2", n)
	}

	waits = nil
	f.ws.RateLimit("conversations.history", "60")
	_, err := f.run(t, slack.NameListMessages, `{"channel":"C02RANDOM"}`)
	if err == nil || !strings.Contains(err.Error(), "Slack is rate-limiting co (HTTP 429; it asks to wait 1m0s more") {
		t.Errorf("long Retry-After: %v", err)
	}
	if len(waits) != 0 {
		t.Errorf("waited %v for a limit beyond the bound", waits)
	}

	waits = nil
	f.ws.RateLimit("users.list", "1", "1", "1", "1")
	_, err = f.run(t, slack.NameListUsers, `{}`)
	if err == nil || !strings.Contains(err.Error(), "after 3s of waiting") {
		t.Errorf("repeated 429s: %v", err)
	}
	if fmt.Sprint(waits) != "[1s 1s 1s]" {
		t.Errorf("repeated 429s waited %v, want [1s 1s 1s] (the 3s bound)", waits)
	}
	if n := f.ws.CallsTo("users.list"); n != 4 {
		t.Errorf("users.list called %d times, want 4", n)
	}
}

// TestRateLimitWaitEndsWithTheContext: the real wait (no Sleep injected)
// gives up when the call is cancelled rather than sleeping out Retry-After.
func TestRateLimitWaitEndsWithTheContext(t *testing.T) {
	f := newFixture(t, func(c *slack.Config) { c.MaxRateWait = time.Hour })
	f.ws.RateLimit("users.list", "3000")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := f.tools[slack.NameListUsers].Run(ctx, json.RawMessage(`{}`))
		done <- err
	}()
	// Cancel once the 429 has been answered: co is then waiting.
	deadline := time.Now().Add(30 * time.Second)
	for f.ws.CallsTo("users.list") == 0 {
		if time.Now().After(deadline) {
			t.Fatal("users.list never called")
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the wait did not end with the context (hang detector)")
	}
}

// turn runs one agent turn in which the scripted model calls tool with
// args, answering approvals with verdicts in order (none left: the test
// fails if co asks).
func (f *fixture) turn(t *testing.T, ag *agent.Agent, llm *llmtest.Server, tool, args string, verdicts ...message.Verdict) (asked []agent.PendingCall, fin agent.ToolCallFinished) {
	t.Helper()
	llm.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: tool, Args: args}}},
		llmtest.Reply{Text: "Done."},
	)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for ev := range ag.Submit(ctx, "please") {
		switch e := ev.(type) {
		case agent.ApprovalRequested:
			asked = append(asked, e.Calls...)
			if len(verdicts) == 0 {
				t.Errorf("co asked about %+v", e.Calls)
				e.Reply(nil)
				continue
			}
			e.Reply(verdicts[:1])
			verdicts = verdicts[1:]
		case agent.ToolCallFinished:
			fin = e
		case agent.TurnFailed:
			t.Fatalf("turn failed: %+v", e)
		}
	}
	return asked, fin
}

func (f *fixture) agent(t *testing.T) (*agent.Agent, *llmtest.Server) {
	llm := llmtest.NewServer()
	t.Cleanup(llm.Close)
	reg, err := tools.NewRegistry(slack.Tools(f.w)...)
	if err != nil {
		t.Fatal(err)
	}
	return agent.New(agent.Config{
		Provider:     provider.Provider{Name: "openai", BaseURL: llm.URL, APIKey: "k", Model: "m", KeyEnv: "OPENAI_API_KEY"},
		SystemPrompt: "test",
		Tools:        reg,
		Approvals:    agent.NewApprovals(agent.ApprovalOptions{Isolated: true}),
		ToolRetries:  3,
		StallTimeout: 10 * time.Second,
	}), llm
}

func TestMessageIsPostedOnlyAfterApproval(t *testing.T) {
	f := newFixture(t, nil)
	ag, llm := f.agent(t)
	args := `{"channel":"#general","text":"Deploy at 5 <@U02BOB> — a < b & c > d"}`

	asked, fin := f.turn(t, ag, llm, slack.NameSendMessage, args, message.Deny)
	if len(asked) != 1 || fin.Status != message.CallDenied {
		t.Fatalf("deny: asked %d, %+v", len(asked), fin)
	}
	c := asked[0].Check
	if c.Preview != "#general (C01GENERAL)\n\nDeploy at 5 <@U02BOB> — a < b & c > d" || c.Scope != "send_slack_message:C01GENERAL" ||
		c.ScopeLabel != "posts to #general (C01GENERAL)" || c.Decision.String() != "ask" {
		t.Errorf("check = %+v", c)
	}
	if n := f.ws.CallsTo("chat.postMessage"); n != 0 || len(f.ws.Messages("C01GENERAL")) != 0 {
		t.Fatalf("a denied message reached Slack: %d calls, %+v", n, f.ws.Messages("C01GENERAL"))
	}

	asked, fin = f.turn(t, ag, llm, slack.NameSendMessage, args, message.ApproveOnce)
	if len(asked) != 1 || fin.Status != message.CallDone || fin.Result.Meta["channel"] != "C01GENERAL" || fin.Result.Meta["ts"] == "" {
		t.Fatalf("approve: %+v", fin)
	}
	posted := f.ws.Messages("C01GENERAL")
	if len(posted) != 1 || posted[0].Text != "Deploy at 5 <@U02BOB> — a &lt; b &amp; c &gt; d" || posted[0].TS != fin.Result.Meta["ts"] {
		t.Fatalf("on the server: %+v", posted)
	}
	res := f.mustRun(t, slack.NameListMessages, `{"channel":"general"}`)
	if !strings.HasSuffix(res.Display, "co: Deploy at 5 @Bob Smith — a < b & c > d") {
		t.Errorf("read back:\n%s", res.Display)
	}

	// Approved for the session: the same channel no longer asks, another
	// channel does.
	f.turn(t, ag, llm, slack.NameSendMessage, `{"channel":"C01GENERAL","text":"one"}`, message.ApproveSession)
	asked, fin = f.turn(t, ag, llm, slack.NameSendMessage, `{"channel":"general","text":"two"}`)
	if len(asked) != 0 || fin.Status != message.CallDone {
		t.Errorf("granted channel: asked %d, %+v", len(asked), fin)
	}
	asked, _ = f.turn(t, ag, llm, slack.NameSendMessage, `{"channel":"random","text":"three"}`, message.Deny)
	if len(asked) != 1 {
		t.Errorf("another channel: asked %d", len(asked))
	}
	if got := len(f.ws.Messages("C01GENERAL")); got != 3 || len(f.ws.Messages("C02RANDOM")) != 0 {
		t.Errorf("general has %d messages, random %d", got, len(f.ws.Messages("C02RANDOM")))
	}
}

func TestReplyInThread(t *testing.T) {
	f := newFixture(t, nil)
	parent := f.ws.Post(slackfake.Message{Channel: "C02RANDOM", User: "U01ADA", Text: "question?"})
	c := f.tools[slack.NameSendMessage].(tools.Checker).Check(context.Background(), json.RawMessage(`{"channel":"random","text":"answer","thread_ts":"`+parent+`"}`))
	if c.Preview != "#random (C02RANDOM), in thread "+parent+"\n\nanswer" {
		t.Errorf("preview = %q", c.Preview)
	}
	res := f.mustRun(t, slack.NameSendMessage, `{"channel":"random","text":"answer","thread_ts":"`+parent+`"}`)
	if res.Display != "Replied in thread "+parent+" of #random (C02RANDOM) (ts "+res.Meta["ts"].(string)+")." {
		t.Errorf("display = %q", res.Display)
	}
	if m := f.ws.Messages("C02RANDOM"); len(m) != 2 || m[1].ThreadTS != parent {
		t.Errorf("thread = %+v", m)
	}
}

func TestInvalidMessagesNeverAskNorReachSlack(t *testing.T) {
	f := newFixture(t, nil)
	ag, llm := f.agent(t)
	for _, args := range []string{
		`{"channel":"#general","text":"   "}`,
		`{"channel":"","text":"hi"}`,
		`{"channel":"#general","text":"hi","thread_ts":"last week"}`,
		`{"channel":"#general","text":"` + strings.Repeat("x", 40001) + `"}`,
	} {
		asked, fin := f.turn(t, ag, llm, slack.NameSendMessage, args)
		if len(asked) != 0 || fin.Status != message.CallRetry {
			t.Errorf("%.60s: asked %d, %+v", args, len(asked), fin)
		}
	}
	if n := len(f.ws.Calls()); n != 0 {
		t.Errorf("%d calls reached Slack: %+v", n, f.ws.Calls())
	}
}

func TestRateLimitedPostIsReportedAndNotPosted(t *testing.T) {
	f := newFixture(t, func(c *slack.Config) { c.MaxRateWait = time.Second })
	f.ws.RateLimit("chat.postMessage", "30")
	_, err := f.run(t, slack.NameSendMessage, `{"channel":"C02RANDOM","text":"hi"}`)
	if err == nil || !strings.Contains(err.Error(), "rate-limiting") {
		t.Fatalf("err = %v", err)
	}
	if len(f.ws.Messages("C02RANDOM")) != 0 {
		t.Error("posted despite the 429")
	}
}

func TestUnconfigured(t *testing.T) {
	u := slack.Unconfigured()
	if u.Family != "Slack" || len(u.Tools) != 5 || !strings.Contains(u.String(), "SLACK_BOT_TOKEN") {
		t.Errorf("%+v", u)
	}
}

// OnlyYou: the user's own member ID, or a DM channel Slack says is an IM
// with them, reaches them alone; anyone else, any channel, and anything
// while slack_member_id is not set, does not. Only a D… channel costs a
// call (conversations.info).
func TestOnlyYou(t *testing.T) {
	for _, c := range []struct {
		self, to string
		want     bool
		calls    int
	}{
		{"U0ADA0001", "U0ADA0001", true, 0},
		{"U01ADA", "D05DMADA", true, 1},
		{"U02BOB", "D05DMADA", false, 1},
		{"U0ADA0001", "U0BOB0001", false, 0},
		{"U01ADA", "C01GENERAL", false, 0},
		{"U01ADA", "G03SECRET", false, 0},
		{"U01ADA", "#general", false, 0},
		{"", "U0ADA0001", false, 0},
		{"", "D05DMADA", false, 0},
	} {
		f := newFixture(t, func(cfg *slack.Config) { cfg.Self = c.self })
		got, err := f.w.OnlyYou(context.Background(), c.to)
		if err != nil || got != c.want {
			t.Errorf("self %q, to %s: %v, %v; want %v", c.self, c.to, got, err, c.want)
		}
		if n := f.ws.CallsTo("conversations.info"); n != c.calls {
			t.Errorf("self %q, to %s: %d calls to conversations.info, want %d", c.self, c.to, n, c.calls)
		}
	}
	f := newFixture(t, func(cfg *slack.Config) { cfg.Self = "U01ADA" })
	if got, err := f.w.OnlyYou(context.Background(), "D09GONE1"); got || err == nil {
		t.Errorf("a DM channel Slack does not know: %v, %v; want false and an error", got, err)
	}
}
