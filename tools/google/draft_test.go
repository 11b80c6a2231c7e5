package google

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"mime/quotedprintable"
	"net/mail"
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/tools"
)

// decoded is a message read back the way RFC 5322 says: header fields
// unfolded by removing CRLF only, encoded words decoded, the body decoded
// from quoted-printable with CRLF back to LF.
type decoded struct {
	header map[string]string
	body   string
}

func decodeMessage(t *testing.T, raw []byte) decoded {
	t.Helper()
	if _, err := mail.ReadMessage(bytes.NewReader(raw)); err != nil {
		t.Fatalf("not an Internet message: %v\n%s", err, raw)
	}
	head, body, ok := bytes.Cut(raw, []byte("\r\n\r\n"))
	if !ok {
		t.Fatalf("no blank line after the header:\n%q", raw)
	}
	for i, line := range strings.Split(string(head), "\r\n") {
		if len(line) > 998 {
			t.Errorf("header line %d is %d octets long", i, len(line))
		}
		for _, r := range line {
			if r > 126 || (r < 32 && r != '\t') {
				t.Fatalf("header line %d has a non-ASCII or control character: %q", i, line)
			}
		}
	}
	unfolded := strings.ReplaceAll(strings.ReplaceAll(string(head), "\r\n ", " "), "\r\n\t", "\t")
	d := decoded{header: map[string]string{}}
	dec := new(mime.WordDecoder)
	for _, line := range strings.Split(unfolded, "\r\n") {
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			t.Fatalf("bad header line %q", line)
		}
		value = strings.TrimPrefix(value, " ")
		if v, err := dec.DecodeHeader(value); err == nil {
			value = v
		} else {
			t.Fatalf("cannot decode %s: %v", name, err)
		}
		d.header[name] = value
	}
	if d.header["Content-Transfer-Encoding"] != "quoted-printable" {
		t.Fatalf("Content-Transfer-Encoding = %q", d.header["Content-Transfer-Encoding"])
	}
	b, err := io.ReadAll(quotedprintable.NewReader(bytes.NewReader(body)))
	if err != nil {
		t.Fatal(err)
	}
	d.body = strings.ReplaceAll(string(b), "\r\n", "\n")
	return d
}

func draftArgsJSON(to, subject, body, cc, bcc string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"to": to, "subject": subject, "body": body, "cc": cc, "bcc": bcc})
	return b
}

func TestDraftIsAValidMessageWithTheSameContent(t *testing.T) {
	long := strings.Repeat("word ", 40)
	cases := []struct {
		name                       string
		to, subject, body, cc, bcc string
		wantTo, wantCc, wantBcc    string
	}{
		{name: "ascii", to: "ada@example.com", subject: "Lunch?", body: "See you at 12.\nAda",
			wantTo: "<ada@example.com>"},
		{name: "non-ascii everywhere", to: "Zoë Ångström <zoe@example.org>, bob@example.com", cc: "Renée <renee@example.fr>",
			bcc: "boss@example.com", subject: "Café ☕ — 日本語の件名", body: "Grüße,\nçà et là 🎉\n",
			wantTo: "Zoë Ångström <zoe@example.org>, <bob@example.com>", wantCc: "Renée <renee@example.fr>", wantBcc: "<boss@example.com>"},
		{name: "long subject folds", to: "a@b.co", subject: long, body: strings.Repeat("x", 300), wantTo: "<a@b.co>"},
		{name: "long non-ascii subject", to: "a@b.co", subject: strings.Repeat("é", 120), body: "", wantTo: "<a@b.co>"},
		{name: "subject that looks encoded", to: "a@b.co", subject: "=?utf-8?q?not_encoded?= really", body: "x", wantTo: "<a@b.co>"},
		{name: "CRLF and trailing spaces in body", to: "a@b.co", subject: "s", body: "line 1  \r\nline 2\rline=3\n\n", wantTo: "<a@b.co>"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, err := ParseDraft(draftArgsJSON(tc.to, tc.subject, tc.body, tc.cc, tc.bcc))
			if err != nil {
				t.Fatal(err)
			}
			raw := d.RFC5322(time.Date(2024, 5, 6, 9, 0, 0, 0, time.UTC))
			got := decodeMessage(t, raw)
			if got.header["Subject"] != tc.subject {
				t.Errorf("Subject = %q, want %q", got.header["Subject"], tc.subject)
			}
			wantBody := strings.ReplaceAll(strings.ReplaceAll(tc.body, "\r\n", "\n"), "\r", "\n")
			if got.body != wantBody {
				t.Errorf("body = %q, want %q", got.body, wantBody)
			}
			for name, want := range map[string]string{"To": tc.wantTo, "Cc": tc.wantCc, "Bcc": tc.wantBcc} {
				if got.header[name] != want {
					t.Errorf("%s = %q, want %q", name, got.header[name], want)
				}
			}
			if got.header["Date"] != "Mon, 06 May 2024 09:00:00 +0000" || got.header["MIME-Version"] != "1.0" ||
				got.header["Content-Type"] != `text/plain; charset="UTF-8"` {
				t.Errorf("headers = %v", got.header)
			}
		})
	}
}

func TestDraftValidation(t *testing.T) {
	cases := []struct {
		name, to, subject, cc, bcc, want string
	}{
		{"no recipient", " ", "s", "", "", "to is empty"},
		{"not an address", "bob", "s", "", "", "not a list of email addresses"},
		{"no domain dot", "bob@localhost", "s", "", "", "no valid domain"},
		{"bad cc", "a@b.co", "s", "x@@y", "", "cc"},
		{"bad bcc", "a@b.co", "s", "", "x@y.", "bcc"},
		{"two-line subject", "a@b.co", "hi\r\nBcc: evil@example.com", "", "", "one line"},
		{"semicolons", "a@b.co; c@d.co", "s", "", "", "separated by commas"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			raw := draftArgsJSON(tc.to, tc.subject, "body", tc.cc, tc.bcc)
			_, err := ParseDraft(raw)
			if err == nil || !tools.IsRetry(err) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want a Retry containing %q", err, tc.want)
			}
			// Check does not offer an invalid draft for approval: Run
			// refuses it before any network call.
			c := (&CreateEmailDraft{}).Check(t.Context(), raw)
			if c.Decision != tools.Allow || c.Preview != "" || !strings.Contains(c.Reason, "nothing reaches Google") {
				t.Errorf("Check = %+v", c)
			}
			if _, err := (&CreateEmailDraft{a: NewAccount(Config{})}).Run(t.Context(), raw); !tools.IsRetry(err) {
				t.Errorf("Run err = %v, want Retry", err)
			}
		})
	}
}

func TestDraftCheckPreviewAndScope(t *testing.T) {
	raw := draftArgsJSON("Zoë <ZOE@example.org>, bob@example.com", "Café", "Hello\nthere", "", "bob@example.com")
	c := (&CreateEmailDraft{}).Check(t.Context(), raw)
	want := "To: Zoë <ZOE@example.org>, bob@example.com\nBcc: bob@example.com\nSubject: Café\n\nHello\nthere"
	if c.Decision != tools.Ask || c.Preview != want {
		t.Fatalf("Check = %+v\npreview %q\nwant    %q", c, c.Preview, want)
	}
	if c.Scope != "create_email_draft:bob@example.com,zoe@example.org" || c.ScopeLabel != "Gmail drafts to bob@example.com, zoe@example.org" {
		t.Errorf("scope = %q / %q", c.Scope, c.ScopeLabel)
	}
}

func FuzzDraftRoundTrip(f *testing.F) {
	f.Add("Café ☕", "body\nline")
	f.Add("=?utf-8?q?x?=", "=3D\r\n.")
	f.Add(strings.Repeat("a ", 60), strings.Repeat("é", 100))
	f.Fuzz(func(t *testing.T, subject, body string) {
		raw := draftArgsJSON("a@b.co", subject, body, "", "")
		d, err := ParseDraft(raw)
		if err != nil {
			return // invalid drafts never reach Google
		}
		got := decodeMessage(t, d.RFC5322(time.Unix(0, 0).UTC()))
		if got.header["Subject"] != d.Subject {
			t.Errorf("Subject = %q, want %q", got.header["Subject"], d.Subject)
		}
		if got.body != d.Body {
			t.Errorf("body = %q, want %q", got.body, d.Body)
		}
	})
}
