package slack

import (
	"context"
	"fmt"
	"iter"
	"strings"

	slackapi "github.com/slack-go/slack"

	"github.com/co-cli/co/tools"
)

// Where the Slack tools' results come from (tools.Origin). Everything in a
// workspace is the user's private data, and all of it but the bot's own
// posts was written by someone else: messages and replies (one origin per
// channel, naming the authors), channel names, topics and purposes, user
// names and titles. A listing whose every message the bot posted in this
// session (send_slack_message, each shown to and approved by its user once
// untrusted content was in the conversation) carries no origin. The bot's
// other posts (an earlier session's, a scheduled run's summary, which may
// quote a stranger's mail word for word, another integration's with the same
// token) are someone else's text like any other.

// identity is the token's own user and bot, from auth.test.
type identity struct{ user, bot string }

// self is the token's own user and bot id, asked with auth.test on first
// use and kept for the session; a failed test is asked again next time,
// and meanwhile every message counts as someone else's. auth.test allows
// hundreds of calls a minute and needs no scope:
// https://docs.slack.dev/reference/methods/auth.test
func (w *Workspace) self(ctx context.Context) identity {
	w.mu.Lock()
	me := w.me
	w.mu.Unlock()
	if me != nil {
		return *me
	}
	var r *slackapi.AuthTestResponse
	err := w.call(ctx, func() (err error) {
		r, err = w.api.AuthTestContext(ctx)
		return err
	})
	if err != nil || r == nil {
		return identity{}
	}
	id := identity{user: r.UserID, bot: r.BotID}
	w.mu.Lock()
	w.me = &id
	w.mu.Unlock()
	return id
}

// own reports whether m was posted with this token: Slack puts the bot's
// user in "user" and its bot id in "bot_id" of a message posted by
// chat.postMessage (https://docs.slack.dev/reference/methods/chat.postMessage).
func (me identity) own(m slackapi.Message) bool {
	return (m.User != "" && m.User == me.user) || (m.User == "" && m.BotID != "" && m.BotID == me.bot)
}

// sent records a post of this session's (channel id, ts).
func (w *Workspace) sent(channel, ts string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.posted == nil {
		w.posted = map[string]bool{}
	}
	w.posted[channel+"/"+ts] = true
}

// postedHere says whether this session posted the message ts in channel.
func (w *Workspace) postedHere(channel, ts string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.posted[channel+"/"+ts]
}

// author names who wrote m, as messageLine shows it.
func (w *Workspace) author(ctx context.Context, m slackapi.Message) string {
	switch {
	case m.User != "":
		return w.userName(ctx, m.User)
	case m.Username != "":
		return m.Username + " (bot)"
	case m.BotID != "":
		return "bot " + m.BotID
	}
	return "(unknown)"
}

// messageOrigins is the origin of msgs (in the order shown), read in
// channel id (name): one, naming up to three authors, or none when the bot
// wrote them all.
func (w *Workspace) messageOrigins(ctx context.Context, id, name string, msgs iter.Seq2[int, slackapi.Message]) []tools.Origin {
	var me *identity
	var authors []string
	seen := map[string]bool{}
	for _, m := range msgs {
		if me == nil {
			who := w.self(ctx)
			me = &who
		}
		if me.own(m) && w.postedHere(id, m.Timestamp) {
			continue
		}
		a := w.author(ctx, m)
		if !seen[a] {
			seen[a] = true
			authors = append(authors, a)
		}
	}
	if len(authors) == 0 {
		return nil
	}
	return []tools.Origin{tools.UntrustedPrivate("slack", "slack "+place(id, name)+" from "+someOf(authors, 3))}
}

// place names a conversation for a label: #name, "DM with X", or its id.
func place(id, name string) string {
	switch {
	case name == "":
		return id
	case strings.HasPrefix(name, "DM with "):
		return name
	}
	return "#" + name
}

// someOf lists up to n names, then how many more.
func someOf(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:n], ", ") + fmt.Sprintf(" +%d more", len(names)-n)
}

// The origins of the listings of channels and of users: their names,
// topics, purposes and titles were written by the workspace's members.
func channelsOrigin() tools.Origin {
	return tools.UntrustedPrivate("slack", "slack channel names and topics")
}

func usersOrigin() tools.Origin {
	return tools.UntrustedPrivate("slack", "slack user names and titles")
}
