package slack

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	slackapi "github.com/slack-go/slack"

	"github.com/co-cli/co/lib/count"
	"github.com/co-cli/co/tools"
)

// pageMeta is the metadata of a page of results.
func pageMeta(count int, next string) map[string]any {
	m := map[string]any{"count": count, "has_more": next != ""}
	if next != "" {
		m["next_cursor"] = next
	}
	return m
}

// moreLine tells the model how to get the next page.
func moreLine(next, what string) string {
	if next == "" {
		return ""
	}
	return fmt.Sprintf("\nMore %s: call again with cursor %q.", what, next)
}

const cursorSchema = `"cursor":{"type":"string","description":"next_cursor from the previous page, to continue a list."}`

// ListChannels is list_slack_channels.
type ListChannels struct{ w *Workspace }

func (t *ListChannels) Name() string { return NameListChannels }

func (t *ListChannels) Description() string {
	return "List Slack channels the bot can see, with id, member count and topic. When has_more is true, pass next_cursor as cursor for the next page."
}

func (t *ListChannels) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"limit":{"type":"integer","minimum":1,"maximum":200,"description":"Channels per page (default 20)."},` +
		`"types":{"type":"string","description":"Comma-separated: public_channel (default), private_channel, mpim, im."},` +
		cursorSchema + `},"additionalProperties":false}`)
}

func (t *ListChannels) Class() tools.Class { return tools.ReadOnly }

func (t *ListChannels) Run(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	var a struct {
		Limit  int    `json:"limit"`
		Types  string `json:"types"`
		Cursor string `json:"cursor"`
	}
	if err := tools.Decode(t.Name(), raw, &a); err != nil {
		return tools.Result{}, err
	}
	types := []string{"public_channel"}
	if strings.TrimSpace(a.Types) != "" {
		types = nil
		for _, ty := range strings.Split(a.Types, ",") {
			ty = strings.TrimSpace(ty)
			switch ty {
			case "public_channel", "private_channel", "mpim", "im":
				types = append(types, ty)
			case "":
			default:
				return tools.Result{}, tools.Retryf("types %q: each type must be public_channel, private_channel, mpim or im", a.Types)
			}
		}
	}
	var chans []slackapi.Channel
	var next string
	err := t.w.call(ctx, func() (err error) {
		chans, next, err = t.w.api.GetConversationsContext(ctx, &slackapi.GetConversationsParameters{
			Cursor: a.Cursor, Limit: tools.Clamp(a.Limit, 20, 200), ExcludeArchived: true, Types: types,
		})
		return err
	})
	if err != nil {
		return tools.Result{}, t.w.explain("listing channels", err)
	}
	t.w.learnChannels(chans)
	if len(chans) == 0 {
		return tools.Result{Display: "No channels of type " + strings.Join(types, ", ") + " that the bot can see." + moreLine(next, "channels"), Meta: pageMeta(0, next)}, nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Slack channels (%s):\n", strings.Join(types, ", "))
	for i, c := range chans {
		var name string
		switch {
		case c.IsIM:
			name = "DM with " + t.w.userName(ctx, c.User) + " (" + c.ID + ")"
		case c.IsMpIM:
			name = "group DM " + c.Name + " (" + c.ID + ")"
		default:
			name = "#" + c.Name + " (" + c.ID + ")"
		}
		fmt.Fprintf(&b, "%d. %s", i+1, name)
		if c.IsPrivate && !c.IsIM && !c.IsMpIM {
			b.WriteString(" — private")
		}
		if c.NumMembers > 0 {
			b.WriteString(" — " + count.Of(c.NumMembers, "member"))
		}
		if about := firstNonEmpty(c.Topic.Value, c.Purpose.Value); about != "" {
			b.WriteString(" — " + oneLine(about, 100))
		}
		b.WriteString("\n")
	}
	return tools.Result{Display: strings.TrimRight(b.String(), "\n") + moreLine(next, "channels"), Meta: pageMeta(len(chans), next),
		Origins: []tools.Origin{channelsOrigin()}}, nil
}

// ListMessages is list_slack_messages.
type ListMessages struct{ w *Workspace }

func (t *ListMessages) Name() string { return NameListMessages }

func (t *ListMessages) Description() string {
	return "List the latest messages of a Slack channel (by name such as #general, or id), oldest first, with who wrote them and when; threads show their thread_ts for list_slack_replies. When has_more is true, pass next_cursor as cursor for older messages."
}

func (t *ListMessages) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"channel":{"type":"string","description":"Channel name (#general) or id (C0123ABCD)."},` +
		`"limit":{"type":"integer","minimum":1,"maximum":100,"description":"Messages per page (default 15)."},` +
		cursorSchema + `},"required":["channel"],"additionalProperties":false}`)
}

func (t *ListMessages) Class() tools.Class { return tools.ReadOnly }

func (t *ListMessages) Run(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	var a struct {
		Channel string `json:"channel"`
		Limit   int    `json:"limit"`
		Cursor  string `json:"cursor"`
	}
	if err := tools.Decode(t.Name(), raw, &a); err != nil {
		return tools.Result{}, err
	}
	id, name, err := t.w.resolveChannel(ctx, a.Channel)
	if err != nil {
		return tools.Result{}, err
	}
	where := label(id, name)
	var resp *slackapi.GetConversationHistoryResponse
	err = t.w.call(ctx, func() (err error) {
		resp, err = t.w.api.GetConversationHistoryContext(ctx, &slackapi.GetConversationHistoryParameters{
			ChannelID: id, Cursor: a.Cursor, Limit: tools.Clamp(a.Limit, 15, 100),
		})
		return err
	})
	if err != nil {
		return tools.Result{}, t.w.explain("reading "+where, err)
	}
	next := ""
	if resp.HasMore {
		next = resp.ResponseMetaData.NextCursor
	}
	meta := pageMeta(len(resp.Messages), next)
	meta["channel"] = id
	if len(resp.Messages) == 0 {
		return tools.Result{Display: "No messages in " + where + ".", Meta: meta}, nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Messages in %s, oldest first:\n", where)
	for i := len(resp.Messages) - 1; i >= 0; i-- {
		m := resp.Messages[i]
		b.WriteString(t.w.messageLine(ctx, m, ""))
		if m.ReplyCount > 0 {
			fmt.Fprintf(&b, "    thread: %s — thread_ts %s\n", count.Of(m.ReplyCount, "reply", "replies"), m.Timestamp)
		}
	}
	return tools.Result{Display: strings.TrimRight(b.String(), "\n") + moreLine(next, "(older) messages"), Meta: meta,
		Origins: t.w.messageOrigins(ctx, id, name, slices.Backward(resp.Messages))}, nil
}

// messageLine is one message: [time] name: text.
func (w *Workspace) messageLine(ctx context.Context, m slackapi.Message, indent string) string {
	when := m.Timestamp
	if t, ok := tsTime(m.Timestamp); ok {
		when = t.In(w.cfg.Location).Format("2006-01-02 15:04")
	}
	who := w.author(ctx, m)
	text := w.render(ctx, m.Text)
	for _, f := range m.Files {
		text += " [file: " + f.Name + "]"
	}
	text = strings.ReplaceAll(text, "\n", "\n"+indent+"  ")
	return fmt.Sprintf("%s[%s] %s: %s\n", indent, when, who, text)
}

// ListReplies is list_slack_replies.
type ListReplies struct{ w *Workspace }

func (t *ListReplies) Name() string { return NameListReplies }

func (t *ListReplies) Description() string {
	return "List a Slack thread: its first message and the replies, oldest first. thread_ts is the ts list_slack_messages shows for the thread. When has_more is true, pass next_cursor as cursor for later replies."
}

func (t *ListReplies) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"channel":{"type":"string","description":"Channel name (#general) or id."},` +
		`"thread_ts":{"type":"string","description":"Timestamp of the thread's first message, e.g. 1715000000.123456."},` +
		`"limit":{"type":"integer","minimum":1,"maximum":200,"description":"Messages per page (default 20)."},` +
		cursorSchema + `},"required":["channel","thread_ts"],"additionalProperties":false}`)
}

func (t *ListReplies) Class() tools.Class { return tools.ReadOnly }

func (t *ListReplies) Run(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	var a struct {
		Channel  string `json:"channel"`
		ThreadTS string `json:"thread_ts"`
		Limit    int    `json:"limit"`
		Cursor   string `json:"cursor"`
	}
	if err := tools.Decode(t.Name(), raw, &a); err != nil {
		return tools.Result{}, err
	}
	ts := strings.TrimSpace(a.ThreadTS)
	if !validTS().MatchString(ts) {
		return tools.Result{}, tools.Retryf("thread_ts %q is not a Slack message timestamp such as 1715000000.123456: use the thread_ts list_slack_messages shows", a.ThreadTS)
	}
	id, name, err := t.w.resolveChannel(ctx, a.Channel)
	if err != nil {
		return tools.Result{}, err
	}
	where := label(id, name)
	var msgs []slackapi.Message
	var hasMore bool
	var next string
	err = t.w.call(ctx, func() (err error) {
		msgs, hasMore, next, err = t.w.api.GetConversationRepliesContext(ctx, &slackapi.GetConversationRepliesParameters{
			ChannelID: id, Timestamp: ts, Cursor: a.Cursor, Limit: tools.Clamp(a.Limit, 20, 200),
		})
		return err
	})
	if err != nil {
		return tools.Result{}, t.w.explain("reading thread "+ts+" in "+where, err)
	}
	if !hasMore {
		next = ""
	}
	meta := pageMeta(len(msgs), next)
	meta["channel"] = id
	if len(msgs) == 0 {
		return tools.Result{Display: "No messages in thread " + ts + " of " + where + ".", Meta: meta}, nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Thread %s in %s:\n", ts, where)
	for _, m := range msgs {
		indent := "  ↳ "
		if m.Timestamp == ts {
			indent = ""
		}
		b.WriteString(t.w.messageLine(ctx, m, indent))
	}
	return tools.Result{Display: strings.TrimRight(b.String(), "\n") + moreLine(next, "replies"), Meta: meta,
		Origins: t.w.messageOrigins(ctx, id, name, slices.All(msgs))}, nil
}

// ListUsers is list_slack_users.
type ListUsers struct{ w *Workspace }

func (t *ListUsers) Name() string { return NameListUsers }

func (t *ListUsers) Description() string {
	return "List the active members of the Slack workspace: name, handle, id, title and time zone. When has_more is true, pass next_cursor as cursor for the next page."
}

func (t *ListUsers) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"limit":{"type":"integer","minimum":1,"maximum":200,"description":"Users per page (default 30)."},` +
		cursorSchema + `},"additionalProperties":false}`)
}

func (t *ListUsers) Class() tools.Class { return tools.ReadOnly }

func (t *ListUsers) Run(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	var a struct {
		Limit  int    `json:"limit"`
		Cursor string `json:"cursor"`
	}
	if err := tools.Decode(t.Name(), raw, &a); err != nil {
		return tools.Result{}, err
	}
	p := t.w.api.GetUsersPaginated(slackapi.GetUsersOptionLimit(tools.Clamp(a.Limit, 30, 200)), slackapi.GetUsersOptionCursor(a.Cursor))
	err := t.w.call(ctx, func() (err error) {
		var np slackapi.UserPagination
		np, err = p.Next(ctx)
		if err == nil {
			p = np
		}
		return err
	})
	if err != nil && !p.Done(err) {
		return tools.Result{}, t.w.explain("listing users", err)
	}
	t.w.learnUsers(p.Users)
	var b strings.Builder
	n := 0
	for _, u := range p.Users {
		if u.Deleted {
			continue
		}
		n++
		fmt.Fprintf(&b, "%d. %s (@%s, %s)", n, displayName(&u), u.Name, u.ID)
		if u.IsBot {
			b.WriteString(" — bot")
		}
		if u.Profile.Title != "" {
			b.WriteString(" — " + u.Profile.Title)
		}
		if u.TZ != "" {
			b.WriteString(" — " + u.TZ)
		}
		b.WriteString("\n")
	}
	next := p.Cursor
	if n == 0 {
		return tools.Result{Display: "No active users on this page." + moreLine(next, "users"), Meta: pageMeta(0, next)}, nil
	}
	return tools.Result{Display: "Slack users:\n" + strings.TrimRight(b.String(), "\n") + moreLine(next, "users"), Meta: pageMeta(n, next),
		Origins: []tools.Origin{usersOrigin()}}, nil
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}

func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return s
}
