package google

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	gmail "google.golang.org/api/gmail/v1"

	"github.com/co-cli/co/tools"
)

// ReadEmailAttachment is read_email_attachment: one file attached to a
// mail, as text: a PDF's text (lib/pdftext), a text file as it is, an
// image as a line describing it. It is the mail's content, so it carries
// the mail's origin (untrusted: "mail from SENDER"). What Gmail sends:
// docs/SOURCES.md#gmail-attachments.
type ReadEmailAttachment struct{ a *Account }

// NewReadEmailAttachment makes read_email_attachment over a.
func NewReadEmailAttachment(a *Account) *ReadEmailAttachment { return &ReadEmailAttachment{a: a} }

func (t *ReadEmailAttachment) Name() string { return NameReadEmailAttachment }

func (t *ReadEmailAttachment) Description() string {
	return fmt.Sprintf("Read a file attached to a Gmail message (list_emails and search_emails list each message's attachments and its id): "+
		"a PDF as its text page by page, a text file as it is, an image as a line giving its type, size and dimensions; at most %d K characters.", MaxReadBytes>>10)
}

func (t *ReadEmailAttachment) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"message_id":{"type":"string","description":"The message's id, as list_emails or search_emails show it."},` +
		`"filename":{"type":"string","description":"The attachment's file name, as listed."}` +
		`},"required":["message_id","filename"],"additionalProperties":false}`)
}

func (t *ReadEmailAttachment) Class() tools.Class { return tools.ReadOnly }

func (t *ReadEmailAttachment) Run(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	var a struct {
		MessageID string `json:"message_id"`
		Filename  string `json:"filename"`
	}
	if err := tools.Decode(t.Name(), raw, &a); err != nil {
		return tools.Result{}, err
	}
	id := strings.TrimSpace(a.MessageID)
	if id == "" || strings.ContainsAny(id, "/?# ") {
		return tools.Result{}, tools.Retryf("message_id %q is not a Gmail message id: use the id list_emails or search_emails shows", a.MessageID)
	}
	srv, err := t.a.Gmail(ctx)
	if err != nil {
		return tools.Result{}, t.a.explain(svcGmail, "the message", err)
	}
	what := "message " + id
	m, err := getMessage(ctx, srv, id)
	if err != nil {
		return tools.Result{}, t.a.explain(svcGmail, what, err)
	}
	origins := mailOrigins([]*gmail.Message{m})
	atts := attachments(m.Payload)
	var part *gmail.MessagePart
	for _, p := range atts {
		if p.Filename == a.Filename {
			part = p
			break
		}
	}
	if part == nil {
		names := make([]string, len(atts))
		for i, p := range atts {
			names[i] = fmt.Sprintf("%q", p.Filename)
		}
		if len(names) == 0 {
			return tools.Result{Origins: origins}, tools.Retryf("%s has no attachments", what)
		}
		return tools.Result{Origins: origins}, tools.Retryf("%s has no attachment named %q; its attachments are %s", what, a.Filename, strings.Join(names, ", "))
	}
	name := fmt.Sprintf("attachment %q of the mail from %s", part.Filename, strings.Join(senders(header(m, "From")), ", "))
	size := partSize(part)
	if size > tools.MaxMediaBytes {
		return tools.Result{Display: fmt.Sprintf("(%s: %s, %s, larger than the %s co reads)", name, part.MimeType, tools.Size(size), tools.Size(tools.MaxMediaBytes)), Origins: origins}, nil
	}
	data, err := attachmentData(ctx, srv, id, part)
	if err != nil {
		return tools.Result{Origins: origins}, t.a.explain(svcGmail, name, err)
	}
	mt := tools.MediaType(part.MimeType, data)
	res := tools.Result{Origins: origins, Meta: map[string]any{"content_type": mt, "truncated": false}}
	switch {
	case tools.IsPDF(mt, data):
		text, truncated := tools.PDFText(data, int64(len(data)), name, MaxReadBytes)
		res.Display, res.Meta["truncated"] = text, truncated
	case strings.HasPrefix(mt, "image/"):
		res.Display = tools.DescribeImage(data, mt, int64(len(data)), name)
	case strings.HasPrefix(mt, "text/") && !looksBinary(data):
		cut := len(data) > MaxReadBytes
		if cut {
			data = trimPartialRune(data[:MaxReadBytes])
		}
		res.Display = fmt.Sprintf("[%s (%s, %s), its text follows]\n\n%s", name, mt, tools.Size(size), strings.ToValidUTF8(string(data), "\uFFFD"))
		if cut {
			res.Display += fmt.Sprintf("\n\n[cut: this shows the first %d KB]", MaxReadBytes>>10)
			res.Meta["truncated"] = true
		}
	default:
		res.Display = fmt.Sprintf("(%s: %s, %s: not a PDF, image or text file, so co cannot show its contents)", name, mt, tools.Size(int64(len(data))))
	}
	return res, nil
}

// attachmentData is a part's body: inline, or by its attachment id.
func attachmentData(ctx context.Context, srv *gmail.Service, msg string, p *gmail.MessagePart) ([]byte, error) {
	enc := ""
	if p.Body != nil {
		enc = p.Body.Data
		if p.Body.AttachmentId != "" {
			body, err := srv.Users.Messages.Attachments.Get("me", msg, p.Body.AttachmentId).Context(ctx).Do()
			if err != nil {
				return nil, err
			}
			enc = body.Data
		}
	}
	data, err := base64.URLEncoding.DecodeString(enc)
	if err != nil {
		data, err = base64.RawURLEncoding.DecodeString(enc)
	}
	if err != nil {
		return nil, fmt.Errorf("gmail sent the attachment in an encoding co cannot read: %w", err)
	}
	return data, nil
}
