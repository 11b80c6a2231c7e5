package cli

import (
	"strings"
	"testing"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/sessions"
)

// A resumed --plain transcript shows a summary as the notice it was, not as
// something the user typed.
func TestTranscriptShowsASummaryAsANotice(t *testing.T) {
	s := transcriptText([]sessions.Entry{
		{Message: message.Message{Role: message.RoleUser, Content: agent.SummaryIntro + "the user greeted"}},
		{Message: message.Message{Role: message.RoleAssistant, Content: "Understood."}},
	})
	if strings.Contains(s, "the user greeted") || !strings.Contains(s, "Summarised older messages") {
		t.Fatalf("transcript:\n%s", s)
	}
}

// A resumed --plain transcript says what each message attached, in the
// line the live chat printed.
func TestTranscriptShowsAttachedImages(t *testing.T) {
	s := transcriptText([]sessions.Entry{
		{Message: message.Message{Role: message.RoleUser, Content: "look", Attachments: []message.Attachment{
			{Kind: message.AttachImage, Name: "a.png", Size: 2048, Width: 3, Height: 4}}}},
		{Message: message.Message{Role: message.RoleAssistant, Content: "Seen."}},
	})
	if !strings.Contains(s, "co> look\nattached: a.png (image, 2 KB, 3×4)\n") {
		t.Fatalf("transcript:\n%s", s)
	}
}
