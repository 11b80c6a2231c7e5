package main

import (
	"context"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/tools"
)

// buildTools makes the session's tools. It returns the registry, the
// families left out because their service is not configured, and a
// sentence for the system prompt saying where shell commands run.
func (ss *session) buildTools(ctx context.Context, approvals *agent.Approvals) (*tools.Registry, []tools.Unconfigured, string, error) {
	reg, err := tools.NewRegistry()
	return reg, nil, "", err
}
