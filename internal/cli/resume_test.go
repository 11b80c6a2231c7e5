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
