package slack

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	slackapi "github.com/slack-go/slack"

	"github.com/co-cli/co/journal"
	"github.com/co-cli/co/tools"
)

// maxText is the longest text co posts (Slack truncates beyond 40,000).
const maxText = 40000

// resolveTimeout bounds the channel lookup the approval check makes.
const resolveTimeout = 5 * time.Second

type sendArgs struct {
	Channel  string `json:"channel"`
	Text     string `json:"text"`
	ThreadTS string `json:"thread_ts"`
}

// parseSend validates the arguments of send_slack_message without the
// network. Check and Run both use it.
func parseSend(raw json.RawMessage) (sendArgs, error) {
	var a sendArgs
	if err := tools.Decode(NameSendMessage, raw, &a); err != nil {
		return a, err
	}
	a.ThreadTS = strings.TrimSpace(a.ThreadTS)
	switch {
	case strings.TrimSpace(a.Text) == "":
		return a, tools.Retryf("text is empty: give the message to post")
	case utf8.RuneCountInString(a.Text) > maxText:
		return a, tools.Retryf("text is longer than %d characters: shorten it or split it in several messages", maxText)
	case a.ThreadTS != "" && !validTS().MatchString(a.ThreadTS):
		return a, tools.Retryf("thread_ts %q is not a Slack message timestamp such as 1715000000.123456", a.ThreadTS)
	}
	return a, CheckChannel(a.Channel)
}

// SendMessage is send_slack_message. It asks the user, showing the channel
// and the text; grants are per channel.
type SendMessage struct{ w *Workspace }

func (t *SendMessage) Name() string { return NameSendMessage }

func (t *SendMessage) Description() string {
	return "Post a message to a Slack channel (by name such as #general, or id) as the bot, or reply in a thread with thread_ts. The user sees the channel and the text and approves first. Mentions: <@U0123> for a user, <!here> for the channel."
}

func (t *SendMessage) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"channel":{"type":"string","description":"Channel name (#general) or id."},` +
		`"text":{"type":"string","description":"The message (Slack mrkdwn)."},` +
		`"thread_ts":{"type":"string","description":"To reply in a thread: the ts of its first message (optional)."}` +
		`},"required":["channel","text"],"additionalProperties":false}`)
}

func (t *SendMessage) Class() tools.Class { return tools.SideEffect }

// Check asks, showing where the message goes and what it says. Arguments
// that fail validation are not shown for approval: Run refuses them before
// any network call. The channel is looked up (briefly) so the preview and
// the grant name the channel the message will really reach.
func (t *SendMessage) Check(ctx context.Context, raw json.RawMessage) tools.Check {
	a, err := parseSend(raw)
	if err != nil {
		return tools.Check{Decision: tools.Allow, Reason: "invalid message, nothing reaches Slack: " + err.Error()}
	}
	rctx, cancel := context.WithTimeout(ctx, resolveTimeout)
	defer cancel()
	where := strings.TrimSpace(a.Channel)
	scope := NameSendMessage + ":name:" + strings.ToLower(strings.TrimPrefix(where, "#"))
	scopeLabel := "posts to " + where
	reason := "posts a message that others will see"
	id, name, err := t.w.resolveChannel(rctx, a.Channel)
	if err == nil {
		where = label(id, name)
		scope = NameSendMessage + ":" + id
		scopeLabel = "posts to " + where
	} else {
		reason += " (the channel could not be looked up: " + err.Error() + ")"
	}
	head := where
	to := strings.TrimSpace(a.Channel) + " on Slack"
	if err == nil {
		to = place(id, name) + " on Slack"
	}
	if a.ThreadTS != "" {
		head += ", in thread " + a.ThreadTS
		to += ", in thread " + a.ThreadTS
	}
	return tools.Check{Decision: tools.Ask, Reason: reason, Scope: scope, ScopeLabel: scopeLabel, Preview: head + "\n\n" + a.Text,
		Outbound: &tools.Outbound{To: to, What: a.Text}}
}

func (t *SendMessage) Run(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	a, err := parseSend(raw)
	if err != nil {
		return tools.Result{}, err
	}
	id, name, err := t.w.resolveChannel(ctx, a.Channel)
	if err != nil {
		return tools.Result{}, err
	}
	where := label(id, name)
	opts := []slackapi.MsgOption{slackapi.MsgOptionText(escape(a.Text), false)}
	if a.ThreadTS != "" {
		opts = append(opts, slackapi.MsgOptionTS(a.ThreadTS))
	}
	var ch, ts string
	err = t.w.call(ctx, func() (err error) {
		ch, ts, err = t.w.api.PostMessageContext(ctx, id, opts...)
		return err
	})
	if err != nil {
		return tools.Result{}, t.w.explain("posting to "+where, err)
	}
	if ch == "" {
		ch = id
	}
	t.w.sent(ch, ts)
	// The channel and ts chat.postMessage answers are the message's
	// handle: a member id given as the channel answers the DM's channel
	// id, which chat.delete needs (docs/SOURCES.md#undo-deleting-what-co-sent).
	if _, err := journal.RecordIn(ctx, journal.SlackPost(0, t.Name(), ch, ts, where, a.Text)); err != nil {
		tools.Notify(ctx, "co could not record the Slack post for undo: "+err.Error())
	}
	msg := fmt.Sprintf("Posted to %s (ts %s).", where, ts)
	if a.ThreadTS != "" {
		msg = fmt.Sprintf("Replied in thread %s of %s (ts %s).", a.ThreadTS, where, ts)
	}
	return tools.Result{Display: msg, Meta: map[string]any{"channel": ch, "ts": ts}}, nil
}
