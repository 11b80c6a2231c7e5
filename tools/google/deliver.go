package google

import (
	"context"
	"encoding/base64"
	"errors"
	"net/mail"
	"strings"

	gmail "google.golang.org/api/gmail/v1"
)

// Email is the account's own address, from Gmail's users.getProfile
// (https://developers.google.com/workspace/gmail/api/reference/rest/v1/users/getProfile),
// asked once and kept.
func (a *Account) Email(ctx context.Context) (string, error) {
	srv, err := a.Gmail(ctx)
	if err != nil {
		return "", a.explain(svcGmail, "the account's address", err)
	}
	a.mu.Lock()
	email := a.email
	a.mu.Unlock()
	if email != "" {
		return email, nil
	}
	p, err := srv.Users.GetProfile("me").Context(ctx).Do()
	if err != nil {
		return "", a.explain(svcGmail, "the account's address", err)
	}
	if p.EmailAddress == "" {
		return "", errors.New("Gmail gave no address for the account (users.getProfile)")
	}
	a.mu.Lock()
	a.email = p.EmailAddress
	a.mu.Unlock()
	return p.EmailAddress, nil
}

// DraftToSelf saves a Gmail draft (not sent) of subject and body addressed
// to the account's own address, and returns a link that opens it. It is
// how a scheduled run's answer goes to the user's mail when their settings
// say so: never a tool, so the model does not choose the address.
func (a *Account) DraftToSelf(ctx context.Context, subject, body string) (link string, err error) {
	email, err := a.Email(ctx)
	if err != nil {
		return "", err
	}
	if len(body) > maxBody {
		body = strings.ToValidUTF8(body[:maxBody], "")
	}
	subject = strings.Join(strings.Fields(subject), " ")
	d := &Draft{To: []*mail.Address{{Address: email}}, Subject: subject,
		Body: strings.ReplaceAll(strings.ReplaceAll(body, "\r\n", "\n"), "\r", "\n")}
	srv, err := a.Gmail(ctx)
	if err != nil {
		return "", a.explain(svcGmail, "the draft", err)
	}
	msg := base64.URLEncoding.EncodeToString(d.RFC5322(a.cfg.now().In(a.cfg.location())))
	draft, err := srv.Users.Drafts.Create("me", &gmail.Draft{Message: &gmail.Message{Raw: msg}}).Context(ctx).Do()
	if err != nil {
		return "", a.explain(svcGmail, "the draft", err)
	}
	if draft.Message != nil && draft.Message.Id != "" {
		return a.mailLink("drafts?compose=" + draft.Message.Id), nil
	}
	return a.mailLink("drafts"), nil
}
