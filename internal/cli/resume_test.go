package cli

import (
	"strings"
	"testing"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/sessions"
)

// A resumed --plain transcript shows a summary as the notice it was, not as
// something the user typed.
func TestTranscriptShowsASummaryAsANotice(t *testing.T) {
	s := transcriptText([]sessions.Entry{
		{Message: agent.Message{Role: agent.RoleUser, Content: agent.SummaryIntro + "the user greeted"}},
		{Message: agent.Message{Role: agent.RoleAssistant, Content: "Understood."}},
	})
	if strings.Contains(s, "the user greeted") || !strings.Contains(s, "Summarised older messages") {
		t.Fatalf("transcript:\n%s", s)
	}
}
