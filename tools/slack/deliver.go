package slack

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	slackapi "github.com/slack-go/slack"

	"github.com/co-cli/co/tools"
)

// memberID matches a Slack member ID (U…, or W… on Enterprise Grid).
var memberID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[UW][A-Z0-9]{6,}$`) })

// Deliver posts text, as plain text, to "to": a member ID (U0123ABC), a
// channel ID or a #channel name. It is how a scheduled run's answer goes to
// where the user's settings say (never a tool: the model does not choose
// it). A member ID is given to chat.postMessage as the channel, which posts
// a direct message from the app's bot to that member ("Posting to a DM":
// https://docs.slack.dev/reference/methods/chat.postMessage, channel: "an
// encoded ID … that represents a channel, private group, or IM channel";
// https://api.slack.com/scopes/conversations.app_home:create: "start a DM
// with a user by calling the chat.postMessage method and passing the
// user's ID as the channel parameter"). Everything in text is escaped, so
// an answer cannot mention @channel or anyone, and no link in it unfurls. It returns where the
// message went, for the log.
func (w *Workspace) Deliver(ctx context.Context, to, text string) (where string, err error) {
	if len(text) > maxText {
		cut := maxText
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = text[:cut] + "…"
	}
	// The fix is in the user's settings, not a retry: say so.
	fix := "check slack:" + to + " in the schedule's notify (co config shows it; co schedule add NAME --replace --notify … changes it)"
	id, where := to, "a direct message to "+to
	if !memberID().MatchString(to) {
		var name string
		if id, name, err = w.resolveChannel(ctx, to); err != nil {
			if tools.IsRetry(err) {
				return "", fmt.Errorf("the bot sees no channel %s: %s; for a private channel, invite the bot there (/invite @the-bot)", to, fix)
			}
			return "", err
		}
		where = label(id, name)
	}
	err = w.call(ctx, func() error {
		// No previews: Slack would fetch the links of an answer (media
		// unfurls by default; chat.postMessage's unfurl_links and
		// unfurl_media, https://docs.slack.dev/reference/methods/chat.postMessage),
		// links a page the run read may have put there.
		_, _, err := w.api.PostMessageContext(ctx, id, slackapi.MsgOptionText(escapePlain(text), false),
			slackapi.MsgOptionDisableLinkUnfurl(), slackapi.MsgOptionDisableMediaUnfurl())
		return err
	})
	var se slackapi.SlackErrorResponse
	if errors.As(err, &se) && (se.Err == "channel_not_found" || se.Err == "user_not_found") {
		return "", fmt.Errorf("Slack has no member or channel %s the bot can post to (%s): %s", to, se.Err, fix)
	}
	if err != nil {
		return "", w.explain("posting to "+where, err)
	}
	return where, nil
}

// OnlyYou says whether a post to "to" (as Deliver takes it) reaches the
// user alone: their own member ID (Config.Self), which Deliver posts to as
// the bot's direct message with them, or a direct-message channel (D…)
// whose other member is the user. Slack says who is in a DM channel:
// conversations.info answers is_im and user, and "each direct message
// channel is between two users. One of these users is always the calling
// user [the bot], the other's ID is indicated by the user property" (the
// IM object, https://docs.slack.dev/reference/objects/im-object). A
// channel, a #name, another member or no Self is not the user alone. The
// token cannot say who the user is: auth.test "tells you who you are,
// even if you might be a bot"
// (https://docs.slack.dev/reference/methods/auth.test), and for a bot
// token that is the bot.
func (w *Workspace) OnlyYou(ctx context.Context, to string) (bool, error) {
	self := strings.TrimSpace(w.cfg.Self)
	switch {
	case self == "":
		return false, nil
	case memberID().MatchString(to):
		return to == self, nil
	case !dmID().MatchString(to):
		return false, nil
	}
	var ch *slackapi.Channel
	err := w.call(ctx, func() error {
		var err error
		ch, err = w.api.GetConversationInfoContext(ctx, &slackapi.GetConversationInfoInput{ChannelID: to})
		return err
	})
	if err != nil {
		return false, w.explain("looking up "+to, err)
	}
	return ch.IsIM && ch.User == self, nil
}

// dmID matches a direct-message channel's ID.
var dmID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^D[A-Z0-9]{6,}$`) })
