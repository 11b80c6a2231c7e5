// Package slackfake is a Slack workspace for tests, served by slack-go's
// own slacktest server: it binds the Web API methods co uses
// (conversations.list/info/history/replies, users.list/info,
// chat.postMessage, chat.delete, auth.test) onto a slacktest.Server, keeps channels,
// users and messages in memory, and makes posted messages visible to the
// history and replies methods, as on Slack.
//
// Lists page with cursors as Slack does (limit, next_cursor). Rate limits
// and errors are injected with RateLimit and Fail. Every method checks the
// bot token.
//
// Concurrency: the methods may be called from any goroutine while the
// server serves.
package slackfake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	slackapi "github.com/slack-go/slack"
	"github.com/slack-go/slack/slacktest"
)

// Token is the bot token the workspace accepts.
const Token = "xoxb-test-token"

// Channel is a conversation of the workspace.
type Channel struct {
	ID, Name    string
	Private, IM bool
	User        string // for an IM: the other member
	Topic       string
	Members     int
	NotMember   bool // the bot is not in it: reading and posting fail
	Archived    bool
}

// User is a member of the workspace.
type User struct {
	ID, Name, RealName, DisplayName, Title, TZ string
	Bot, Deleted                               bool
}

// Message is a message in a channel; ThreadTS set and not equal to TS
// makes it a reply. BotID (and Username, its display name) mark a bot's
// post; the workspace's own bot posts as user BotUser with bot id BotID.
type Message struct {
	Channel, User, Text, TS, ThreadTS string
	BotID, Username                   string
}

// The token's own bot, as auth.test names it: the user and bot id that
// chat.postMessage puts on the messages it posts
// (https://docs.slack.dev/reference/methods/auth.test,
// https://docs.slack.dev/reference/methods/chat.postMessage).
const (
	BotUser = "U0BOT"
	BotID   = "B0BOT"
)

// Call is one Web API call the server received.
type Call struct {
	Method string
	Args   map[string]string
}

// Workspace is the fake. Make it with New; Close it.
type Workspace struct {
	// URL is the Web API base URL (with a trailing slash), for
	// slack.OptionAPIURL or SLACK_API_URL.
	URL string
	srv *slacktest.Server

	mu       sync.Mutex
	channels []Channel
	users    []User
	messages []Message
	calls    []Call
	limits   map[string][]string // method → Retry-After values to answer with
	fails    map[string][]string // method → Slack error codes to answer with
	clock    int64
}

// New starts a workspace with no channels, users or messages.
func New() *Workspace {
	w := &Workspace{limits: map[string][]string{}, fails: map[string][]string{}, clock: 1715000000}
	w.srv = slacktest.NewTestServer(w.bind)
	w.srv.Start()
	w.URL = w.srv.GetAPIURL()
	return w
}

// Close stops the server.
func (w *Workspace) Close() { w.srv.Stop() }

// AddChannels adds channels.
func (w *Workspace) AddChannels(cs ...Channel) {
	w.mu.Lock()
	w.channels = append(w.channels, cs...)
	w.mu.Unlock()
}

// AddUsers adds users.
func (w *Workspace) AddUsers(us ...User) {
	w.mu.Lock()
	w.users = append(w.users, us...)
	w.mu.Unlock()
}

// Post adds a message (as a person would) and returns its ts.
func (w *Workspace) Post(m Message) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if m.TS == "" {
		m.TS = w.nextTS()
	}
	w.messages = append(w.messages, m)
	return m.TS
}

func (w *Workspace) nextTS() string {
	w.clock += 60
	return fmt.Sprintf("%d.%06d", w.clock, len(w.messages)+1)
}

// Messages returns the messages of a channel, in the order posted.
func (w *Workspace) Messages(channel string) []Message {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []Message
	for _, m := range w.messages {
		if m.Channel == channel {
			out = append(out, m)
		}
	}
	return out
}

// Calls returns the API calls received so far.
func (w *Workspace) Calls() []Call { w.mu.Lock(); defer w.mu.Unlock(); return slices.Clone(w.calls) }

// CallsTo counts the calls of one method.
func (w *Workspace) CallsTo(method string) int {
	n := 0
	for _, c := range w.Calls() {
		if c.Method == method {
			n++
		}
	}
	return n
}

// RateLimit makes the next len(retryAfter) calls of method answer HTTP 429
// with these Retry-After values (seconds).
func (w *Workspace) RateLimit(method string, retryAfter ...string) {
	w.mu.Lock()
	w.limits[method] = append(w.limits[method], retryAfter...)
	w.mu.Unlock()
}

// Fail makes the next calls of method answer {"ok":false,"error":code},
// one per code given.
func (w *Workspace) Fail(method string, codes ...string) {
	w.mu.Lock()
	w.fails[method] = append(w.fails[method], codes...)
	w.mu.Unlock()
}

func (w *Workspace) bind(c slacktest.Customize) {
	for method, h := range map[string]func(map[string]string) any{
		"conversations.list":    w.conversationsList,
		"conversations.info":    w.conversationsInfo,
		"conversations.history": w.conversationsHistory,
		"conversations.replies": w.conversationsReplies,
		"users.list":            w.usersList,
		"users.info":            w.usersInfo,
		"chat.postMessage":      w.postMessage,
		"chat.delete":           w.deleteMessage,
		"auth.test": func(map[string]string) any {
			return map[string]any{"ok": true, "url": "https://co-test.slack.com/", "team": "co test", "user": "co-bot", "team_id": "T0001", "user_id": BotUser, "bot_id": BotID}
		},
	} {
		c.Handle("/"+method, w.handler(method, h))
	}
}

func (w *Workspace) handler(method string, h func(map[string]string) any) http.HandlerFunc {
	return func(rw http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil {
			http.Error(rw, err.Error(), http.StatusBadRequest)
			return
		}
		args := map[string]string{}
		for k, v := range r.Form {
			if k != "token" {
				args[k] = v[0]
			}
		}
		token := r.Form.Get("token")
		if b, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
			token = b
		}
		w.mu.Lock()
		w.calls = append(w.calls, Call{Method: method, Args: args})
		var retryAfter, fail string
		if l := w.limits[method]; len(l) > 0 {
			retryAfter, w.limits[method] = l[0], l[1:]
		} else if f := w.fails[method]; len(f) > 0 {
			fail, w.fails[method] = f[0], f[1:]
		}
		w.mu.Unlock()
		var out any
		switch {
		case retryAfter != "":
			rw.Header().Set("Retry-After", retryAfter)
			rw.WriteHeader(http.StatusTooManyRequests)
			out = map[string]any{"ok": false, "error": "ratelimited"}
		case token != Token:
			out = slackError("invalid_auth")
		case fail != "":
			out = slackError(fail)
			if fail == "missing_scope" {
				out = map[string]any{"ok": false, "error": fail, "needed": "channels:history", "provided": "chat:write"}
				if method == "chat.delete" {
					// chat.delete needs chat:write (bot token)
					// (https://docs.slack.dev/reference/methods/chat.delete).
					out = map[string]any{"ok": false, "error": fail, "needed": "chat:write", "provided": "channels:read"}
				}
			}
		default:
			out = h(args)
		}
		rw.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(rw).Encode(out)
	}
}

func slackError(code string) map[string]any { return map[string]any{"ok": false, "error": code} }

// page cuts a list by cursor ("offset:N") and limit.
func page(n int, args map[string]string, def int) (from, to int, next string) {
	limit, _ := strconv.Atoi(args["limit"])
	if limit <= 0 {
		limit = def
	}
	if c, ok := strings.CutPrefix(args["cursor"], "offset:"); ok {
		from, _ = strconv.Atoi(c)
	}
	from = min(from, n)
	to = min(from+limit, n)
	if to < n {
		next = fmt.Sprintf("offset:%d", to)
	}
	return from, to, next
}

func (w *Workspace) apiChannel(c Channel) slackapi.Channel {
	var out slackapi.Channel
	out.ID, out.Name, out.IsPrivate, out.IsIM, out.User = c.ID, c.Name, c.Private, c.IM, c.User
	out.IsChannel = !c.IM && !c.Private
	out.IsMember = !c.NotMember
	out.IsArchived = c.Archived
	out.NumMembers = c.Members
	out.Topic.Value = c.Topic
	return out
}

func (w *Workspace) findChannel(id string) (Channel, bool) {
	for _, c := range w.channels {
		if c.ID == id {
			return c, true
		}
	}
	return Channel{}, false
}

func (w *Workspace) conversationsList(args map[string]string) any {
	types := strings.Split(args["types"], ",")
	if args["types"] == "" {
		types = []string{"public_channel"}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	var match []slackapi.Channel
	for _, c := range w.channels {
		kind := "public_channel"
		switch {
		case c.IM:
			kind = "im"
		case c.Private:
			kind = "private_channel"
		}
		if slices.Contains(types, kind) && !(c.Archived && args["exclude_archived"] == "true") {
			match = append(match, w.apiChannel(c))
		}
	}
	from, to, next := page(len(match), args, 100)
	return map[string]any{"ok": true, "channels": match[from:to], "response_metadata": map[string]string{"next_cursor": next}}
}

func (w *Workspace) conversationsInfo(args map[string]string) any {
	w.mu.Lock()
	defer w.mu.Unlock()
	c, ok := w.findChannel(args["channel"])
	if !ok {
		return slackError("channel_not_found")
	}
	return map[string]any{"ok": true, "channel": w.apiChannel(c)}
}

func (w *Workspace) apiMessage(m Message) slackapi.Message {
	var out slackapi.Message
	out.Type, out.User, out.Text, out.Timestamp = "message", m.User, m.Text, m.TS
	out.BotID, out.Username = m.BotID, m.Username
	if m.BotID != "" && m.User == "" {
		out.SubType = "bot_message"
	}
	if m.ThreadTS != "" {
		out.ThreadTimestamp = m.ThreadTS
	}
	for _, r := range w.messages {
		if r.Channel == m.Channel && r.ThreadTS == m.TS && r.TS != m.TS {
			out.ThreadTimestamp = m.TS
			out.ReplyCount++
		}
	}
	return out
}

// readable reports why a channel cannot be read, or "".
func (w *Workspace) readable(id string) string {
	c, ok := w.findChannel(id)
	switch {
	case !ok:
		return "channel_not_found"
	case c.NotMember:
		return "not_in_channel"
	}
	return ""
}

func (w *Workspace) conversationsHistory(args map[string]string) any {
	w.mu.Lock()
	defer w.mu.Unlock()
	if e := w.readable(args["channel"]); e != "" {
		return slackError(e)
	}
	// Newest first; replies stay in their threads.
	var top []slackapi.Message
	for i := len(w.messages) - 1; i >= 0; i-- {
		m := w.messages[i]
		if m.Channel == args["channel"] && (m.ThreadTS == "" || m.ThreadTS == m.TS) {
			top = append(top, w.apiMessage(m))
		}
	}
	from, to, next := page(len(top), args, 100)
	return map[string]any{"ok": true, "messages": top[from:to], "has_more": next != "", "response_metadata": map[string]string{"next_cursor": next}}
}

func (w *Workspace) conversationsReplies(args map[string]string) any {
	w.mu.Lock()
	defer w.mu.Unlock()
	if e := w.readable(args["channel"]); e != "" {
		return slackError(e)
	}
	var thread []slackapi.Message
	for _, m := range w.messages {
		if m.Channel == args["channel"] && (m.TS == args["ts"] || m.ThreadTS == args["ts"]) {
			thread = append(thread, w.apiMessage(m))
		}
	}
	if len(thread) == 0 {
		return slackError("thread_not_found")
	}
	from, to, next := page(len(thread), args, 1000)
	return map[string]any{"ok": true, "messages": thread[from:to], "has_more": next != "", "response_metadata": map[string]string{"next_cursor": next}}
}

func apiUser(u User) slackapi.User {
	var out slackapi.User
	out.ID, out.Name, out.RealName, out.IsBot, out.Deleted, out.TZ = u.ID, u.Name, u.RealName, u.Bot, u.Deleted, u.TZ
	out.Profile.DisplayName, out.Profile.RealName, out.Profile.Title = u.DisplayName, u.RealName, u.Title
	return out
}

func (w *Workspace) usersList(args map[string]string) any {
	w.mu.Lock()
	defer w.mu.Unlock()
	from, to, next := page(len(w.users), args, 100)
	var members []slackapi.User
	for _, u := range w.users[from:to] {
		members = append(members, apiUser(u))
	}
	return map[string]any{"ok": true, "members": members, "response_metadata": map[string]string{"next_cursor": next}}
}

func (w *Workspace) usersInfo(args map[string]string) any {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, u := range w.users {
		if u.ID == args["user"] {
			return map[string]any{"ok": true, "user": apiUser(u)}
		}
	}
	return slackError("user_not_found")
}

func (w *Workspace) postMessage(args map[string]string) any {
	w.mu.Lock()
	defer w.mu.Unlock()
	c, ok := w.findChannel(args["channel"])
	if !ok && strings.HasPrefix(args["channel"], "U") {
		// A member ID as the channel: a direct message from the bot, in
		// the bot's DM with that member, opened on the first post
		// (https://api.slack.com/scopes/conversations.app_home:create:
		// "passing the user's ID as the channel parameter").
		if !slices.ContainsFunc(w.users, func(u User) bool { return u.ID == args["channel"] && !u.Deleted }) {
			return slackError("channel_not_found")
		}
		c, ok = Channel{ID: DMOf(args["channel"]), Name: "DM with " + args["channel"], IM: true, User: args["channel"]}, true
		if _, open := w.findChannel(c.ID); !open {
			w.channels = append(w.channels, c)
		}
	}
	switch {
	case !ok:
		return slackError("channel_not_found")
	case c.NotMember:
		return slackError("not_in_channel")
	case c.Archived:
		return slackError("is_archived")
	case args["text"] == "":
		return slackError("no_text")
	}
	if ts := args["thread_ts"]; ts != "" && !slices.ContainsFunc(w.messages, func(m Message) bool { return m.Channel == c.ID && m.TS == ts }) {
		return slackError("thread_not_found")
	}
	m := Message{Channel: c.ID, User: BotUser, BotID: BotID, Text: args["text"], TS: w.nextTS(), ThreadTS: args["thread_ts"]}
	w.messages = append(w.messages, m)
	return map[string]any{"ok": true, "channel": c.ID, "ts": m.TS, "message": w.apiMessage(m)}
}

// deleteMessage is chat.delete
// (https://docs.slack.dev/reference/methods/chat.delete): "When used with a
// bot token, this method may delete only messages posted by that bot", so
// another's message answers cant_delete_message; an unknown channel
// channel_not_found; a ts not in the channel (never posted, or deleted
// already) message_not_found. Success answers the channel and ts
// (docs/SOURCES.md#undo-deleting-what-co-sent).
func (w *Workspace) deleteMessage(args map[string]string) any {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, ok := w.findChannel(args["channel"]); !ok {
		return slackError("channel_not_found")
	}
	i := slices.IndexFunc(w.messages, func(m Message) bool { return m.Channel == args["channel"] && m.TS == args["ts"] })
	switch {
	case i < 0:
		return slackError("message_not_found")
	case w.messages[i].BotID != BotID:
		return slackError("cant_delete_message")
	}
	w.messages = slices.Delete(w.messages, i, i+1)
	return map[string]any{"ok": true, "channel": args["channel"], "ts": args["ts"]}
}

// DMOf is the ID of the bot's direct-message channel with the member id.
func DMOf(id string) string { return "D" + id }

// Now is the time of the workspace clock (for tests of message times).
func (w *Workspace) Now() time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	return time.Unix(w.clock, 0)
}
