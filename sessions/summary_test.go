package sessions_test

import (
	"testing"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/sessions"
)

// A summary SummariseFrom saves has the shape of the agent's (its intro),
// so the agent's compaction sees it as a summary.
func TestSummaryShapeIsTheAgents(t *testing.T) {
	if sessions.SummaryIntro != agent.SummaryIntro {
		t.Fatalf("SummaryIntro %q, agent's %q", sessions.SummaryIntro, agent.SummaryIntro)
	}
}
