package google

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"mime"
	"mime/quotedprintable"
	"net/mail"
	"sort"
	"strings"
	"time"

	gmail "google.golang.org/api/gmail/v1"

	"github.com/co-cli/co/journal"
	"github.com/co-cli/co/tools"
)

// Limits of a draft.
const (
	maxRecipients = 100
	maxSubject    = 500
	maxBody       = 500 << 10
)

// Draft is an email draft, validated: what create_email_draft saves.
type Draft struct {
	To, Cc, Bcc []*mail.Address
	Subject     string
	Body        string
}

type draftArgs struct {
	To      string `json:"to"`
	Subject string `json:"subject"`
	Body    string `json:"body"`
	Cc      string `json:"cc"`
	Bcc     string `json:"bcc"`
}

// ParseDraft validates the arguments of create_email_draft. Its errors are
// *tools.Retry errors that say what to fix. Check and Run both use it, so a
// draft that Run would refuse is never shown as approvable, and one shown is
// exactly the one saved.
func ParseDraft(raw json.RawMessage) (*Draft, error) {
	var a draftArgs
	if err := tools.Decode(NameCreateEmailDraft, raw, &a); err != nil {
		return nil, err
	}
	// One kind of line break, so the preview and the saved body agree.
	body := strings.ReplaceAll(strings.ReplaceAll(a.Body, "\r\n", "\n"), "\r", "\n")
	d := &Draft{Subject: a.Subject, Body: body}
	var err error
	if strings.TrimSpace(a.To) == "" {
		return nil, tools.Retryf("to is empty: give at least one recipient address")
	}
	if d.To, err = parseAddresses("to", a.To); err != nil {
		return nil, err
	}
	if d.Cc, err = parseAddresses("cc", a.Cc); err != nil {
		return nil, err
	}
	if d.Bcc, err = parseAddresses("bcc", a.Bcc); err != nil {
		return nil, err
	}
	if n := len(d.To) + len(d.Cc) + len(d.Bcc); n > maxRecipients {
		return nil, tools.Retryf("%d recipients is more than %d", n, maxRecipients)
	}
	if strings.ContainsAny(d.Subject, "\r\n") {
		return nil, tools.Retryf("subject must be one line")
	}
	if len([]rune(d.Subject)) > maxSubject {
		return nil, tools.Retryf("subject is longer than %d characters", maxSubject)
	}
	if len(d.Body) > maxBody {
		return nil, tools.Retryf("body is longer than %d KB", maxBody>>10)
	}
	return d, nil
}

// parseAddresses reads a comma-separated address list ("" is none).
func parseAddresses(field, s string) ([]*mail.Address, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	list, err := mail.ParseAddressList(s)
	if err != nil {
		return nil, tools.Retryf("%s %q is not a list of email addresses (%v): write them as name@example.com or Name <name@example.com>, separated by commas", field, s, err)
	}
	for _, a := range list {
		_, domain, _ := strings.Cut(a.Address, "@")
		if !strings.Contains(domain, ".") || strings.HasSuffix(domain, ".") || strings.HasPrefix(domain, ".") {
			return nil, tools.Retryf("%s address %q has no valid domain (like example.com)", field, a.Address)
		}
	}
	return list, nil
}

// recipients are the addresses, lower-cased, sorted and without repeats.
func (d *Draft) recipients() []string {
	seen := map[string]bool{}
	var out []string
	for _, l := range [][]*mail.Address{d.To, d.Cc, d.Bcc} {
		for _, a := range l {
			k := strings.ToLower(a.Address)
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	sort.Strings(out)
	return out
}

// Preview is the draft as the user reads it: the headers decoded, then the
// body.
func (d *Draft) Preview() string {
	var b strings.Builder
	for _, h := range []struct {
		name string
		list []*mail.Address
	}{{"To", d.To}, {"Cc", d.Cc}, {"Bcc", d.Bcc}} {
		if len(h.list) == 0 {
			continue
		}
		var parts []string
		for _, a := range h.list {
			if a.Name != "" {
				parts = append(parts, a.Name+" <"+a.Address+">")
			} else {
				parts = append(parts, a.Address)
			}
		}
		fmt.Fprintf(&b, "%s: %s\n", h.name, strings.Join(parts, ", "))
	}
	fmt.Fprintf(&b, "Subject: %s\n\n%s", d.Subject, d.Body)
	return b.String()
}

// RFC5322 is the draft as an Internet message: ASCII headers (non-ASCII
// names and subjects as RFC 2047 encoded words), folded at 78 columns, and
// a UTF-8 text body in quoted-printable. From is left to Gmail, which sets
// the account's address.
func (d *Draft) RFC5322(date time.Time) []byte {
	var b bytes.Buffer
	addresses := func(name string, list []*mail.Address) {
		if len(list) == 0 {
			return
		}
		parts := make([]string, len(list))
		for i, a := range list {
			parts[i] = a.String()
		}
		b.WriteString(fold(name, strings.Join(parts, ", ")))
	}
	b.WriteString(fold("Date", date.Format(time.RFC1123Z)))
	addresses("To", d.To)
	addresses("Cc", d.Cc)
	addresses("Bcc", d.Bcc)
	b.WriteString(fold("Subject", encodeText(d.Subject)))
	b.WriteString("MIME-Version: 1.0\r\n")
	b.WriteString("Content-Type: text/plain; charset=\"UTF-8\"\r\n")
	b.WriteString("Content-Transfer-Encoding: quoted-printable\r\n\r\n")
	w := quotedprintable.NewWriter(&b)
	_, _ = w.Write([]byte(d.Body))
	_ = w.Close()
	return b.Bytes()
}

// encodeText encodes an unstructured header value: RFC 2047 encoded words
// when it is not plain ASCII, or when it would itself read as one.
func encodeText(s string) string {
	enc := mime.QEncoding.Encode("utf-8", s)
	if enc != s || !strings.Contains(s, "=?") {
		return enc
	}
	// Plain ASCII that contains "=?": base64 words of 45 bytes each.
	var words []string
	for len(s) > 0 {
		n := min(45, len(s))
		words = append(words, "=?utf-8?b?"+base64.StdEncoding.EncodeToString([]byte(s[:n]))+"?=")
		s = s[n:]
	}
	return strings.Join(words, " ")
}

// fold writes one header field, folding its value at spaces so that lines
// stay within 78 characters where it can.
func fold(name, value string) string {
	const limit = 78
	var b strings.Builder
	line := name + ":"
	for i, word := range strings.Split(value, " ") {
		sep := " "
		if i > 0 && word != "" && len(line)+1+len(word) > limit {
			b.WriteString(line + "\r\n")
			line = ""
		}
		line += sep + word
	}
	b.WriteString(line + "\r\n")
	return b.String()
}

// CreateEmailDraft is create_email_draft. It asks the user, showing the
// draft; grants are per set of recipients.
type CreateEmailDraft struct{ a *Account }

// NewCreateEmailDraft makes create_email_draft over a.
func NewCreateEmailDraft(a *Account) *CreateEmailDraft { return &CreateEmailDraft{a: a} }

func (t *CreateEmailDraft) Name() string { return NameCreateEmailDraft }

func (t *CreateEmailDraft) Description() string {
	return "Save an email draft in the user's Gmail (it is not sent; the user sends it from Gmail). The user sees the draft and approves it first. Addresses are comma-separated, as name@example.com or Name <name@example.com>."
}

func (t *CreateEmailDraft) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"to":{"type":"string","description":"Recipients, comma-separated."},` +
		`"subject":{"type":"string","description":"One line."},` +
		`"body":{"type":"string","description":"Plain text."},` +
		`"cc":{"type":"string","description":"Cc recipients, comma-separated (optional)."},` +
		`"bcc":{"type":"string","description":"Bcc recipients, comma-separated (optional)."}` +
		`},"required":["to","subject","body"],"additionalProperties":false}`)
}

func (t *CreateEmailDraft) Class() tools.Class { return tools.SideEffect }

// Drafts makes create_email_draft a tools.Drafter: a scheduled run may
// save a draft unattended (it is not sent).
func (t *CreateEmailDraft) Drafts() string { return "a Gmail draft (not sent)" }

// Check asks, with the draft as preview. A draft that fails validation is
// not shown for approval: Run refuses it before any network call, so
// letting it through only sends the error back to the model.
func (t *CreateEmailDraft) Check(_ context.Context, raw json.RawMessage) tools.Check {
	d, err := ParseDraft(raw)
	if err != nil {
		return tools.Check{Decision: tools.Allow, Reason: "invalid draft, nothing reaches Google: " + err.Error()}
	}
	rcpt := d.recipients()
	return tools.Check{
		Decision:   tools.Ask,
		Reason:     "saves a draft in your Gmail (it is not sent)",
		Scope:      NameCreateEmailDraft + ":" + strings.Join(rcpt, ","),
		ScopeLabel: "Gmail drafts to " + strings.Join(rcpt, ", "),
		Preview:    d.Preview(),
		// A draft is the model's words in the user's mailbox, one click
		// from being sent under their name.
		Outbound: draftOutbound(d),
	}
}

func (t *CreateEmailDraft) Run(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	d, err := ParseDraft(raw)
	if err != nil {
		return tools.Result{}, err
	}
	srv, err := t.a.Gmail(ctx)
	if err != nil {
		return tools.Result{}, t.a.explain(svcGmail, "the draft", err)
	}
	msg := base64.URLEncoding.EncodeToString(d.RFC5322(t.a.cfg.now().In(t.a.cfg.location())))
	draft, err := srv.Users.Drafts.Create("me", &gmail.Draft{Message: &gmail.Message{Raw: msg}}).Context(ctx).Do()
	if err != nil {
		return tools.Result{}, t.a.explain(svcGmail, "the draft", err)
	}
	t.a.learnEmail(ctx, srv)
	link := t.a.mailLink("drafts")
	if draft.Message != nil && draft.Message.Id != "" {
		link = t.a.mailLink("drafts?compose=" + draft.Message.Id)
	}
	subject := d.Subject
	if subject == "" {
		subject = "(no subject)"
	}
	// The draft's id (drafts.create's id, not its message's) is what
	// drafts.delete takes: undo deletes the draft by it
	// (docs/SOURCES.md#undo-deleting-what-co-sent).
	if _, err := journal.RecordIn(ctx, journal.DraftSaved(0, t.Name(), draft.Id, fewOf(d.recipients()), subject)); err != nil {
		tools.Notify(ctx, "co could not record the Gmail draft for undo: "+err.Error())
	}
	return tools.Result{Display: fmt.Sprintf("Draft saved in Gmail (not sent): %q to %s. Open it to send: %s",
		subject, strings.Join(d.recipients(), ", "), link), Meta: map[string]any{"draft_id": draft.Id}}, nil
}

// fewOf names up to three addresses, and how many more.
func fewOf(addrs []string) string {
	if len(addrs) <= 3 {
		return strings.Join(addrs, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(addrs[:3], ", "), len(addrs)-3)
}
