package slack

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	slackapi "github.com/slack-go/slack"
)

// DeleteMessage takes back a message the bot posted (send_slack_message),
// by its channel id and ts, with chat.delete
// (https://docs.slack.dev/reference/methods/chat.delete). With a bot token
// Slack deletes only the bot's own messages. Its errors say what happened:
// a message that is no longer there wraps fs.ErrNotExist ("already gone"),
// a refusal for want of permission wraps fs.ErrPermission and says what
// to do; undo (package journal) tells them apart with errors.Is
// (docs/SOURCES.md#undo-deleting-what-co-sent).
func (w *Workspace) DeleteMessage(ctx context.Context, channel, ts string) error {
	if !channelID().MatchString(channel) || !validTS().MatchString(ts) {
		return fmt.Errorf("cannot delete Slack message %q in %q: it needs the channel id and the ts the post returned", ts, channel)
	}
	what := "deleting the message " + ts + " in " + label(channel, w.knownName(channel))
	err := w.call(ctx, func() error {
		_, _, err := w.api.DeleteMessageContext(ctx, channel, ts)
		return err
	})
	if err == nil {
		return nil
	}
	var se slackapi.SlackErrorResponse
	if errors.As(err, &se) {
		switch se.Err {
		case "message_not_found":
			return undoError(fs.ErrNotExist, "%s: it is already gone (message_not_found: someone deleted it in Slack)", what)
		case "cant_delete_message":
			return undoError(fs.ErrPermission, "%s: Slack refuses (cant_delete_message): a bot token deletes only messages the bot posted; delete it in Slack yourself", what)
		case "missing_scope":
			return undoError(fs.ErrPermission, "%s: the Slack bot token lacks the chat:write scope (missing_scope); add it under OAuth & Permissions in the Slack app's settings and reinstall the app, or delete the message in Slack", what)
		case "channel_not_found":
			return fmt.Errorf("%s: Slack finds no such channel (channel_not_found): it was deleted, or the bot was removed from it; the message cannot be deleted by co", what)
		}
	}
	return w.explain(what, err)
}

// knownName is the channel's name when the session has learnt it, "" else
// (no network call: an undo names what it can).
func (w *Workspace) knownName(id string) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.channels[id]
}

// undoErr is an undo's error: its message as written, and errors.Is of
// fs.ErrNotExist (already gone) or fs.ErrPermission (refused) for undo to
// tell them apart.
type undoErr struct {
	msg  string
	kind error
}

func (e *undoErr) Error() string { return e.msg }
func (e *undoErr) Unwrap() error { return e.kind }

func undoError(kind error, format string, args ...any) error {
	return &undoErr{msg: fmt.Sprintf(format, args...), kind: kind}
}
