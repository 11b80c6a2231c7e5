package google

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"strings"
	"sync"
	"time"

	gmail "google.golang.org/api/gmail/v1"
	"google.golang.org/api/googleapi"

	"github.com/co-cli/co/lib/count"
	"github.com/co-cli/co/tools"
)

// Bounds of max_results for the Gmail tools.
const (
	defaultEmails = 5
	maxEmails     = 25
)

// ListEmails is list_emails: the newest messages in the inbox.
type ListEmails struct{ a *Account }

// NewListEmails makes list_emails over a.
func NewListEmails(a *Account) *ListEmails { return &ListEmails{a: a} }

func (t *ListEmails) Name() string { return NameListEmails }

func (t *ListEmails) Description() string {
	return "List the newest emails in the user's Gmail inbox: sender, subject, date, snippet and a link to each."
}

func (t *ListEmails) Schema() json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{`+
		`"max_results":{"type":"integer","minimum":1,"maximum":%d,"description":"How many emails (default %d)."}`+
		`},"additionalProperties":false}`, maxEmails, defaultEmails))
}

func (t *ListEmails) Class() tools.Class { return tools.ReadOnly }

func (t *ListEmails) Run(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	var a struct {
		MaxResults int `json:"max_results"`
	}
	if err := tools.Decode(t.Name(), raw, &a); err != nil {
		return tools.Result{}, err
	}
	return listMessages(ctx, t.a, "", tools.Clamp(a.MaxResults, defaultEmails, maxEmails))
}

// SearchEmails is search_emails: Gmail's search, with its query syntax.
type SearchEmails struct{ a *Account }

// NewSearchEmails makes search_emails over a.
func NewSearchEmails(a *Account) *SearchEmails { return &SearchEmails{a: a} }

func (t *SearchEmails) Name() string { return NameSearchEmails }

func (t *SearchEmails) Description() string {
	return "Search the user's Gmail with Gmail's query syntax (e.g. `from:ada@example.com newer_than:7d`, `subject:invoice is:unread`, `has:attachment report`). Returns sender, subject, date, snippet and a link to each message, newest first."
}

func (t *SearchEmails) Schema() json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{`+
		`"query":{"type":"string","description":"A Gmail search query."},`+
		`"max_results":{"type":"integer","minimum":1,"maximum":%d,"description":"How many emails (default %d)."}`+
		`},"required":["query"],"additionalProperties":false}`, maxEmails, defaultEmails))
}

func (t *SearchEmails) Class() tools.Class { return tools.ReadOnly }

func (t *SearchEmails) Run(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	var a struct {
		Query      string `json:"query"`
		MaxResults int    `json:"max_results"`
	}
	if err := tools.Decode(t.Name(), raw, &a); err != nil {
		return tools.Result{}, err
	}
	q := strings.TrimSpace(a.Query)
	if q == "" {
		return tools.Result{}, tools.Retryf("query is empty: give a Gmail search query, e.g. from:someone@example.com")
	}
	return listMessages(ctx, t.a, q, tools.Clamp(a.MaxResults, defaultEmails, maxEmails))
}

// listMessages lists the inbox (query "") or searches all mail.
func listMessages(ctx context.Context, acct *Account, query string, n int) (tools.Result, error) {
	what := "the inbox"
	if query != "" {
		what = fmt.Sprintf("the search %q", query)
	}
	srv, err := acct.Gmail(ctx)
	if err != nil {
		return tools.Result{}, acct.explain(svcGmail, what, err)
	}
	call := srv.Users.Messages.List("me").MaxResults(int64(n)).Context(ctx)
	if query == "" {
		call = call.LabelIds("INBOX")
	} else {
		call = call.Q(query)
	}
	list, err := call.Do()
	if err != nil {
		return tools.Result{}, acct.explain(svcGmail, what, err)
	}
	if len(list.Messages) == 0 {
		msg := "The inbox is empty."
		if query != "" {
			msg = fmt.Sprintf("No emails match %q.", query)
		}
		return tools.Result{Display: msg, Meta: map[string]any{"count": 0}}, nil
	}
	acct.learnEmail(ctx, srv)
	msgs, err := fetchMetadata(ctx, srv, list.Messages)
	if err != nil {
		return tools.Result{}, acct.explain(svcGmail, "a message of "+what, err)
	}
	var b strings.Builder
	if query == "" {
		fmt.Fprintf(&b, "The %s in the inbox:\n", count.Of(len(msgs), "newest email"))
	} else {
		fmt.Fprintf(&b, "%s matching %q:\n", count.Of(len(msgs), "email"), query)
	}
	loc := acct.cfg.location()
	for i, m := range msgs {
		subject := header(m, "Subject")
		if subject == "" {
			subject = "(no subject)"
		}
		fmt.Fprintf(&b, "%d. %s\n", i+1, subject)
		fmt.Fprintf(&b, "   From: %s · %s\n", header(m, "From"), mailDate(m, loc))
		if s := strings.TrimSpace(html.UnescapeString(m.Snippet)); s != "" {
			fmt.Fprintf(&b, "   %s\n", s)
		}
		if atts := attachments(m.Payload); len(atts) > 0 {
			names := make([]string, len(atts))
			for i, a := range atts {
				names[i] = fmt.Sprintf("%s (%s, %s)", a.Filename, a.MimeType, tools.Size(partSize(a)))
			}
			fmt.Fprintf(&b, "   Attachments (message id %s): %s\n", m.Id, strings.Join(names, "; "))
		}
		fmt.Fprintf(&b, "   %s\n", acct.mailLink("all/"+m.Id))
	}
	return tools.Result{Display: strings.TrimRight(b.String(), "\n"), Meta: map[string]any{"count": len(msgs)},
		Origins: mailOrigins(msgs)}, nil
}

// partFields are the fields of a message part read: never a body's data
// (an attachment is fetched by read_email_attachment only), three levels
// of nested parts (a forwarded message's attachments are two down).
const partFields = "partId,mimeType,filename,body(size,attachmentId)"

var messageFields = googleapi.Field("id,threadId,snippet,internalDate,labelIds,payload(headers," + partFields +
	",parts(" + partFields + ",parts(" + partFields + ",parts(" + partFields + "))))")

// getMessage gets a message's headers and the outline of its parts
// (format=full, masked to leave the bodies out).
// https://developers.google.com/gmail/api/reference/rest/v1/users.messages/get
func getMessage(ctx context.Context, srv *gmail.Service, id string) (*gmail.Message, error) {
	return srv.Users.Messages.Get("me", id).Format("full").Fields(messageFields).Context(ctx).Do()
}

// attachments are the parts of p that carry a file name, in order.
func attachments(p *gmail.MessagePart) []*gmail.MessagePart {
	if p == nil {
		return nil
	}
	var out []*gmail.MessagePart
	if p.Filename != "" {
		out = append(out, p)
	}
	for _, c := range p.Parts {
		out = append(out, attachments(c)...)
	}
	return out
}

func partSize(p *gmail.MessagePart) int64 {
	if p.Body == nil {
		return 0
	}
	return p.Body.Size
}

// fetchMetadata gets the headers of each message, four at a time, in the
// order given.
func fetchMetadata(ctx context.Context, srv *gmail.Service, refs []*gmail.Message) ([]*gmail.Message, error) {
	out := make([]*gmail.Message, len(refs))
	errs := make([]error, len(refs))
	sem := make(chan struct{}, 4)
	var wg sync.WaitGroup
	for i, r := range refs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			out[i], errs[i] = getMessage(ctx, srv, r.Id)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func header(m *gmail.Message, name string) string {
	if m.Payload == nil {
		return ""
	}
	for _, h := range m.Payload.Headers {
		if strings.EqualFold(h.Name, name) {
			return h.Value
		}
	}
	return ""
}

// mailDate is when the message arrived, in loc.
func mailDate(m *gmail.Message, loc *time.Location) string {
	if m.InternalDate > 0 {
		return time.UnixMilli(m.InternalDate).In(loc).Format("Mon 2 Jan 2006 15:04")
	}
	return header(m, "Date")
}
