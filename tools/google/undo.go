package google

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"

	"google.golang.org/api/googleapi"
)

// DeleteDraft takes back a Gmail draft co saved, with users.drafts.delete
// (https://developers.google.com/workspace/gmail/api/reference/rest/v1/users.drafts/delete:
// "Immediately and permanently deletes the specified draft"; gmail.compose
// is enough). A draft that is gone (sent, or deleted in Gmail: 404) wraps
// fs.ErrNotExist; a refusal for want of permission wraps fs.ErrPermission.
func (a *Account) DeleteDraft(ctx context.Context, id string) error {
	if id == "" {
		return errors.New("cannot delete the Gmail draft: no draft id was recorded")
	}
	what := "the Gmail draft " + id
	srv, err := a.Gmail(ctx)
	if err != nil {
		return a.explain(svcGmail, what, err)
	}
	err = srv.Users.Drafts.Delete("me", id).Context(ctx).Do()
	return a.deleteError(svcGmail, what, "it was sent or deleted in Gmail", err)
}

// DeleteEvent takes back a calendar event co created, with events.delete
// (https://developers.google.com/workspace/calendar/api/v3/reference/events/delete).
// notify sets sendUpdates=all, so the guests are told it is cancelled;
// else sendUpdates=none. An event deleted already answers 410 "Resource
// has been deleted" (googleapis/google-api-python-client#210,
// derekantrican/GAS-ICS-Sync#472), an unknown one 404: both wrap
// fs.ErrNotExist. Without the calendar.events scope Google answers 403
// insufficientPermissions, which wraps fs.ErrPermission
// (docs/SOURCES.md#undo-deleting-what-co-sent).
func (a *Account) DeleteEvent(ctx context.Context, calendarID, eventID string, notify bool) error {
	if eventID == "" {
		return errors.New("cannot delete the calendar event: no event id was recorded")
	}
	if calendarID == "" {
		calendarID = "primary"
	}
	what := "the calendar event " + eventID
	srv, err := a.Calendar(ctx)
	if err != nil {
		return a.explain(svcCalendar, what, err)
	}
	send := "none"
	if notify {
		send = "all"
	}
	err = srv.Events.Delete(calendarID, eventID).SendUpdates(send).Context(ctx).Do()
	return a.deleteError(svcCalendar, what, "it was deleted in Calendar", err)
}

// deleteError classifies the error of a delete for undo.
func (a *Account) deleteError(s service, what, goneWhy string, err error) error {
	if err == nil {
		return nil
	}
	var ge *googleapi.Error
	if errors.As(err, &ge) {
		switch {
		case ge.Code == http.StatusNotFound || ge.Code == http.StatusGone:
			return undoError(fs.ErrNotExist, "%s is already gone (Google %s answered %d: %s; %s)", what, s, ge.Code, ge.Message, goneWhy)
		case ge.Code == http.StatusForbidden && hasReason(errorReasons(ge), "insufficientPermissions", "ACCESS_TOKEN_SCOPE_INSUFFICIENT", "insufficientScopes"):
			need := "Gmail compose"
			if s == svcCalendar {
				need = "Calendar events (" + ScopeCalendarEvents + ")"
			}
			return undoError(fs.ErrPermission, "the Google sign-in does not let co delete %s: it needs the %s scope (403: %s); %s granting it, or delete it yourself in Google %s", what, need, ge.Message, a.signInAgain(), s)
		case ge.Code == http.StatusForbidden:
			return undoError(fs.ErrPermission, "Google %s refuses to delete %s (403: %s); delete it yourself in Google %s", s, what, ge.Message, s)
		}
	}
	return a.explain(s, what, err)
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
