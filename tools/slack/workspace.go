// Package slack holds co's Slack tools: list channels, messages, thread
// replies and users, and send a message (which asks the user first).
//
// The tools of one chat session share one *Workspace: the Web API client
// for the bot token, and what the session has learnt of names (user and
// channel ids to names, channel names to ids), so results show names and a
// channel may be given by name or id. Rate limits (HTTP 429 with
// Retry-After) are waited out up to a bound per call, then reported.
// Results name the people whose text they carry (tools.Origin, see
// provenance.go), and a post's check says what leaves (tools.Outbound).
//
// Concurrency: a Workspace and the tools may be used from several
// goroutines; the name caches are guarded by a mutex. Nothing lives in
// package globals.
package slack

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"

	slackapi "github.com/slack-go/slack"

	"github.com/co-cli/co/tools"
)

// DefaultMaxRateWait bounds how long one call waits out Slack's rate limits.
const DefaultMaxRateWait = 30 * time.Second

// Tool names.
const (
	NameSendMessage  = "send_slack_message"
	NameListChannels = "list_slack_channels"
	NameListMessages = "list_slack_messages"
	NameListReplies  = "list_slack_replies"
	NameListUsers    = "list_slack_users"
)

// ToolNames are the names of the Slack tools, in the order Tools returns
// them.
func ToolNames() []string {
	return []string{NameSendMessage, NameListChannels, NameListMessages, NameListReplies, NameListUsers}
}

// Unconfigured is the /tools and co status line for Slack without a token.
func Unconfigured() tools.Unconfigured {
	return tools.Unconfigured{Family: "Slack", Tools: ToolNames(),
		Hint: "set SLACK_BOT_TOKEN (or slack_bot_token in settings.json) to the app's bot token, xoxb-…"}
}

// Config is what the Slack tools of a session are built from.
type Config struct {
	// Token is the bot token (slack_bot_token).
	Token string
	// Self is the user's own member ID (slack_member_id), "" when not
	// set: a bot token cannot tell who its user is (auth.test names the
	// bot), so only the user's settings can (OnlyYou).
	Self string
	// APIURL is the Web API base URL; "" is https://slack.com/api/
	// (SLACK_API_URL: a local test server).
	APIURL string
	// HTTPClient is the client for the API; nil is one with a 30 s timeout.
	HTTPClient *http.Client
	// Location is the user's time zone for message times; nil is time.Local.
	Location *time.Location
	// MaxRateWait bounds how long one call waits out rate limits; zero is
	// DefaultMaxRateWait.
	MaxRateWait time.Duration
	// Sleep waits out one rate limit of d, returning early with ctx's
	// error; nil is a real timer. Tests inject one that records d.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Workspace is the Slack side of one chat session.
type Workspace struct {
	api *slackapi.Client
	cfg Config

	mu       sync.Mutex
	users    map[string]string // user id → name shown
	channels map[string]string // channel id → name
	byName   map[string]string // channel name → id
	listed   bool              // every visible channel is in byName
	// me is the token's own bot user and bot id, from auth.test, asked
	// once the first listing of messages needs them (provenance.go).
	me *identity
	// posted are this session's own posts (send_slack_message), by
	// "channel/ts": only those count as co's own voice (provenance.go).
	posted map[string]bool
}

// NewWorkspace makes the Workspace of a session. It does no I/O.
func NewWorkspace(cfg Config) *Workspace {
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	opts := []slackapi.Option{slackapi.OptionHTTPClient(hc)}
	if cfg.APIURL != "" {
		u := cfg.APIURL
		if !strings.HasSuffix(u, "/") {
			u += "/"
		}
		opts = append(opts, slackapi.OptionAPIURL(u))
	}
	if cfg.Location == nil {
		cfg.Location = time.Local
	}
	if cfg.MaxRateWait <= 0 {
		cfg.MaxRateWait = DefaultMaxRateWait
	}
	if cfg.Sleep == nil {
		cfg.Sleep = sleep
	}
	return &Workspace{api: slackapi.New(cfg.Token, opts...), cfg: cfg,
		users: map[string]string{}, channels: map[string]string{}, byName: map[string]string{}}
}

// Tools makes the Slack tools of one session over w.
func Tools(w *Workspace) []tools.Tool {
	return []tools.Tool{&SendMessage{w: w}, &ListChannels{w: w}, &ListMessages{w: w}, &ListReplies{w: w}, &ListUsers{w: w}}
}

// rateLimitedError is Slack's rate limit, reported after the bounded wait.
type rateLimitedError struct {
	retryAfter, waited time.Duration
}

func (e *rateLimitedError) Error() string {
	if e.retryAfter == 0 {
		return "Slack is rate-limiting co (ratelimited): try again in a minute"
	}
	return fmt.Sprintf("Slack is rate-limiting co (HTTP 429; it asks to wait %s more, after %s of waiting): try again in a minute", e.retryAfter, e.waited.Round(time.Second))
}

// call runs fn, waiting out rate limits while the waits stay within the
// bound.
func (w *Workspace) call(ctx context.Context, fn func() error) error {
	var waited time.Duration
	backoff := time.Second
	for {
		err := fn()
		var wait time.Duration
		var rl *slackapi.RateLimitedError
		var sc slackapi.StatusCodeError
		switch {
		case errors.As(err, &rl):
			wait = max(rl.RetryAfter, 200*time.Millisecond)
		case errors.As(err, &sc) && sc.Code == http.StatusTooManyRequests:
			wait, backoff = backoff, backoff*2
		default:
			return err
		}
		if waited+wait > w.cfg.MaxRateWait {
			return &rateLimitedError{retryAfter: wait, waited: waited}
		}
		if err := w.cfg.Sleep(ctx, wait); err != nil {
			return err
		}
		waited += wait
	}
}

// sleep waits d on a real timer, or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// explain turns a Slack error into a message that says what to do. Mistakes
// of the call are *tools.Retry errors for the model.
func (w *Workspace) explain(what string, err error) error {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || tools.IsRetry(err) {
		return err
	}
	var rl *rateLimitedError
	if errors.As(err, &rl) {
		return err
	}
	var se slackapi.SlackErrorResponse
	if errors.As(err, &se) {
		switch se.Err {
		case "channel_not_found":
			return tools.Retryf("%s: channel not found; use list_slack_channels for its name or id (a private channel must have the bot as a member)", what)
		case "thread_not_found", "message_not_found":
			return tools.Retryf("%s: no such thread; use the ts of a message from list_slack_messages", what)
		case "invalid_cursor":
			return tools.Retryf("%s: the cursor is stale or belongs to another list; call again without it", what)
		case "invalid_ts_latest", "invalid_ts_oldest", "invalid_thread_ts":
			return tools.Retryf("%s: thread_ts is not a Slack message timestamp such as 1715000000.123456", what)
		case "msg_too_long", "no_text":
			return tools.Retryf("%s: Slack refused the text (%s)", what, se.Err)
		case "not_in_channel":
			return fmt.Errorf("%s: the bot is not a member of the channel; invite it there in Slack (/invite @the-bot) and try again", what)
		case "is_archived":
			return fmt.Errorf("%s: the channel is archived, so nothing can be posted there", what)
		case "invalid_auth", "not_authed", "account_inactive", "token_revoked", "token_expired":
			return fmt.Errorf("Slack rejected the bot token (%s): set SLACK_BOT_TOKEN (slack_bot_token) to the app's current bot token, xoxb-…", se.Err)
		case "missing_scope":
			need := se.Needed
			if need == "" {
				need = "a scope it needs"
			}
			return fmt.Errorf("%s: the Slack bot token lacks %s (it has: %s); add it under OAuth & Permissions in the Slack app's settings and reinstall the app", what, need, se.Provided)
		case "ratelimited":
			return &rateLimitedError{}
		}
		return fmt.Errorf("%s: Slack said %s", what, se.Err)
	}
	var sc slackapi.StatusCodeError
	if errors.As(err, &sc) {
		return fmt.Errorf("%s: Slack answered HTTP %d; try again later", what, sc.Code)
	}
	return fmt.Errorf("%s: could not reach Slack: %v", what, err)
}

// channelID matches a Slack conversation id (public, private, DM).
var channelID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[CGD][A-Z0-9]{6,}$`) })

// channelLink matches the <#C123|name> form Slack uses in text.
var channelLink = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^<#([CGD][A-Z0-9]+)(?:\|([^>]*))?>$`) })

// CheckChannel validates a channel argument without the network: a name
// (with or without #), an id, or <#C123|name>.
func CheckChannel(s string) error {
	s = strings.TrimSpace(s)
	switch {
	case s == "" || s == "#":
		return tools.Retryf("channel is empty: give a channel name such as #general, or its id")
	case channelLink().MatchString(s), channelID().MatchString(s):
		return nil
	case strings.ContainsAny(strings.TrimPrefix(s, "#"), " #<>,"):
		return tools.Retryf("channel %q is not a channel name or id", s)
	}
	return nil
}

// resolveChannel turns a channel name or id into its id and name.
func (w *Workspace) resolveChannel(ctx context.Context, given string) (id, name string, err error) {
	s := strings.TrimSpace(given)
	if err := CheckChannel(s); err != nil {
		return "", "", err
	}
	if m := channelLink().FindStringSubmatch(s); m != nil {
		s = m[1]
		if m[2] != "" {
			w.mu.Lock()
			w.channels[m[1]] = m[2]
			w.mu.Unlock()
		}
	}
	if channelID().MatchString(s) {
		return s, w.channelName(ctx, s), nil
	}
	name = strings.ToLower(strings.TrimPrefix(s, "#"))
	w.mu.Lock()
	id, ok := w.byName[name]
	listed := w.listed
	w.mu.Unlock()
	if ok {
		return id, name, nil
	}
	if !listed {
		if err := w.listAllChannels(ctx); err != nil {
			return "", "", w.explain("looking up #"+name, err)
		}
		w.mu.Lock()
		id, ok = w.byName[name]
		w.mu.Unlock()
		if ok {
			return id, name, nil
		}
	}
	return "", "", tools.Retryf("there is no channel #%s that the bot can see: use list_slack_channels (types public_channel,private_channel) for the names", name)
}

// listAllChannels learns the names of the channels the bot can see (at
// most 20 pages of 200).
func (w *Workspace) listAllChannels(ctx context.Context) error {
	cursor := ""
	for range 20 {
		var chans []slackapi.Channel
		var next string
		err := w.call(ctx, func() (err error) {
			chans, next, err = w.api.GetConversationsContext(ctx, &slackapi.GetConversationsParameters{
				Cursor: cursor, Limit: 200, ExcludeArchived: true, Types: []string{"public_channel", "private_channel"},
			})
			return err
		})
		if err != nil {
			return err
		}
		w.learnChannels(chans)
		if next == "" {
			w.mu.Lock()
			w.listed = true
			w.mu.Unlock()
			return nil
		}
		cursor = next
	}
	return nil
}

func (w *Workspace) learnChannels(chans []slackapi.Channel) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, c := range chans {
		if c.Name != "" && !c.IsIM {
			w.channels[c.ID] = c.Name
			w.byName[strings.ToLower(c.Name)] = c.ID
		}
	}
}

// channelName is the name of a channel id, "" when Slack does not say.
func (w *Workspace) channelName(ctx context.Context, id string) string {
	w.mu.Lock()
	name, ok := w.channels[id]
	w.mu.Unlock()
	if ok {
		return name
	}
	var c *slackapi.Channel
	err := w.call(ctx, func() (err error) {
		c, err = w.api.GetConversationInfoContext(ctx, &slackapi.GetConversationInfoInput{ChannelID: id})
		return err
	})
	if err != nil || c == nil {
		return ""
	}
	if c.IsIM {
		name = "DM with " + w.userName(ctx, c.User)
	} else {
		name = c.Name
	}
	w.mu.Lock()
	w.channels[id] = name
	if !c.IsIM && c.Name != "" {
		w.byName[strings.ToLower(c.Name)] = id
	}
	w.mu.Unlock()
	return name
}

// userName is the name shown for a user id (the id when Slack does not
// say).
func (w *Workspace) userName(ctx context.Context, id string) string {
	if id == "" {
		return "(unknown)"
	}
	w.mu.Lock()
	name, ok := w.users[id]
	w.mu.Unlock()
	if ok {
		return name
	}
	var u *slackapi.User
	err := w.call(ctx, func() (err error) {
		u, err = w.api.GetUserInfoContext(ctx, id)
		return err
	})
	name = id
	if err == nil && u != nil {
		name = displayName(u)
		w.mu.Lock()
		w.users[id] = name
		w.mu.Unlock()
	}
	return name
}

func (w *Workspace) learnUsers(us []slackapi.User) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i := range us {
		w.users[us[i].ID] = displayName(&us[i])
	}
}

func displayName(u *slackapi.User) string {
	switch {
	case u.Profile.DisplayName != "":
		return u.Profile.DisplayName
	case u.RealName != "":
		return u.RealName
	case u.Profile.RealName != "":
		return u.Profile.RealName
	case u.Name != "":
		return u.Name
	}
	return u.ID
}

// label is how a channel is shown: #name (C123), or the id alone.
func label(id, name string) string {
	switch {
	case name == "":
		return id
	case strings.HasPrefix(name, "DM with "):
		return name + " (" + id + ")"
	}
	return "#" + name + " (" + id + ")"
}
