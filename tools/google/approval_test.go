package google_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime"
	"mime/quotedprintable"
	"net/mail"
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/agent/provider"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/tools"
	"github.com/co-cli/co/tools/google"
)

// turn runs one agent turn with the fixture's tools against a scripted
// model that calls tool with args, answering the approval with verdict
// (nil: the test fails if co asks).
func (f *fixture) turn(t *testing.T, tool, args string, verdict *message.Verdict) (asked []agent.PendingCall, fin agent.ToolCallFinished) {
	t.Helper()
	llm := llmtest.NewServer()
	defer llm.Close()
	llm.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: tool, Args: args}}},
		llmtest.Reply{Text: "Done."},
	)
	reg, err := tools.NewRegistry(google.Tools(f.acct)...)
	if err != nil {
		t.Fatal(err)
	}
	ag := agent.New(agent.Config{
		Provider:     provider.Provider{Name: "openai", BaseURL: llm.URL, APIKey: "k", Model: "m", KeyEnv: "OPENAI_API_KEY"},
		SystemPrompt: "test",
		Tools:        reg,
		Approvals:    agent.NewApprovals(agent.ApprovalOptions{Isolated: true}),
		ToolRetries:  3,
		StallTimeout: 10 * time.Second,
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for ev := range ag.Submit(ctx, "please") {
		switch e := ev.(type) {
		case agent.ApprovalRequested:
			asked = append(asked, e.Calls...)
			if verdict == nil {
				t.Errorf("co asked about %+v", e.Calls)
				e.Reply(nil)
				continue
			}
			e.Reply([]message.Verdict{*verdict})
		case agent.ToolCallFinished:
			fin = e
		case agent.TurnFailed:
			t.Fatalf("turn failed: %+v", e)
		}
	}
	return asked, fin
}

func verdict(v message.Verdict) *message.Verdict { return &v }

func TestDraftIsSavedOnlyAfterApprovalWithTheApprovedContent(t *testing.T) {
	f := newFixture(t, nil)
	args, _ := json.Marshal(map[string]string{
		"to":      "Zoë Ångström <zoe@example.org>, bob@example.com",
		"cc":      "Renée <renee@example.fr>",
		"subject": "Café ☕ on Friday — ça marche?",
		"body":    "Hi Zoë,\n\nFriday at 10 works. Line with trailing spaces   \n=3D is not an escape.\n\n— Ada",
	})

	asked, fin := f.turn(t, google.NameCreateEmailDraft, string(args), verdict(message.Deny))
	if len(asked) != 1 || fin.Status != message.CallDenied {
		t.Fatalf("deny: asked %d, status %v", len(asked), fin.Status)
	}
	if d := f.srv.Drafts(); len(d) != 0 {
		t.Fatalf("a denied draft reached Gmail: %s", d[0].Raw)
	}
	for _, r := range f.srv.Requests() {
		if strings.Contains(r.Path, "drafts") {
			t.Fatalf("a denied draft made a request: %+v", r)
		}
	}

	asked, fin = f.turn(t, google.NameCreateEmailDraft, string(args), verdict(message.ApproveOnce))
	if fin.Status != message.CallDone || !strings.Contains(fin.Result.Display, "Draft saved in Gmail (not sent)") ||
		!strings.Contains(fin.Result.Display, "https://mail.google.com/mail/?authuser=ada%40example.com#drafts?compose=m") {
		t.Fatalf("approve: %+v", fin)
	}
	preview := asked[0].Check.Preview
	wantPreview := "To: Zoë Ångström <zoe@example.org>, bob@example.com\nCc: Renée <renee@example.fr>\n" +
		"Subject: Café ☕ on Friday — ça marche?\n\nHi Zoë,\n\nFriday at 10 works. Line with trailing spaces   \n=3D is not an escape.\n\n— Ada"
	if preview != wantPreview {
		t.Errorf("preview:\n%s\nwant:\n%s", preview, wantPreview)
	}

	drafts := f.srv.Drafts()
	if len(drafts) != 1 {
		t.Fatalf("%d drafts on the server", len(drafts))
	}
	msg, err := mail.ReadMessage(bytes.NewReader(drafts[0].Raw))
	if err != nil {
		t.Fatalf("the saved draft is not an RFC 5322 message: %v", err)
	}
	dec := new(mime.WordDecoder)
	subject, err := dec.DecodeHeader(msg.Header.Get("Subject"))
	if err != nil {
		t.Fatal(err)
	}
	to, _ := msg.Header.AddressList("To")
	cc, _ := msg.Header.AddressList("Cc")
	body, _ := io.ReadAll(quotedprintable.NewReader(msg.Body))
	// What the server holds, read back, is the preview the user approved.
	var got strings.Builder
	for _, h := range []struct {
		name string
		l    []*mail.Address
	}{{"To", to}, {"Cc", cc}} {
		var parts []string
		for _, a := range h.l {
			if a.Name != "" {
				parts = append(parts, a.Name+" <"+a.Address+">")
			} else {
				parts = append(parts, a.Address)
			}
		}
		got.WriteString(h.name + ": " + strings.Join(parts, ", ") + "\n")
	}
	got.WriteString("Subject: " + subject + "\n\n" + strings.ReplaceAll(string(body), "\r\n", "\n"))
	if got.String() != preview {
		t.Errorf("saved draft reads:\n%s\napproved preview:\n%s", got.String(), preview)
	}
	if msg.Header.Get("MIME-Version") != "1.0" || !strings.Contains(msg.Header.Get("Content-Type"), "charset=\"UTF-8\"") {
		t.Errorf("headers: %v", msg.Header)
	}
}

func TestInvalidDraftNeverAsksNorReachesGoogle(t *testing.T) {
	f := newFixture(t, nil)
	asked, fin := f.turn(t, google.NameCreateEmailDraft, `{"to":"bob at example","subject":"s","body":"b"}`, nil)
	if len(asked) != 0 || fin.Status != message.CallRetry || !strings.Contains(fin.Err, "not a list of email addresses") {
		t.Fatalf("asked %d, finished %+v", len(asked), fin)
	}
	if n := len(f.srv.Requests()) + len(f.srv.TokenRequests()); n != 0 {
		t.Errorf("%d requests reached Google", n)
	}
}
