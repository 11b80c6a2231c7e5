package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/co-cli/co/tools"
	"github.com/co-cli/co/tools/mcp"
	"github.com/co-cli/co/ui/present"
)

// mcpBackground has the chat hear of its MCP servers as they fail, exit or
// connect (at start, right after /mcp trust), not at the next turn: nil
// when no server is configured. The channel is read by the front end;
// a note waits for it until ctx ends.
func mcpBackground(ctx context.Context, m *mcp.Manager) <-chan present.Note {
	if m == nil {
		return nil
	}
	ch := make(chan present.Note)
	m.Listen(func(text string, problem bool) {
		select {
		case ch <- present.Note{Text: text, Problem: problem}:
		case <-ctx.Done():
		}
	})
	return ch
}

// toolsCount is how many tools the model is offered, with what the MCP
// servers add or will add: "27 (13 from MCP)", "14 (MCP: 1 server
// starting)", "14 (MCP: 2 failed: junk, gone)", "14 (MCP needs login:
// tracker)". reg holds the connected
// servers' tools already; m may be nil. cheap uses Manager.States (no
// consent check, which reads files: the chat's every frame).
func toolsCount(reg *tools.Registry, m *mcp.Manager, cheap bool) string {
	n := fmt.Sprint(reg.Len())
	if m == nil {
		return n
	}
	sts := m.States()
	if !cheap {
		sts = m.Statuses()
	}
	var fromMCP int
	var starting, failed, consent, login []string
	for _, st := range sts {
		switch st.State {
		case mcp.Connected:
			fromMCP += len(st.Tools)
		case mcp.NotStarted, mcp.Starting:
			starting = append(starting, st.Name)
		case mcp.Failed:
			failed = append(failed, st.Name)
		case mcp.AwaitingConsent:
			consent = append(consent, st.Name)
		case mcp.NeedsLogin:
			login = append(login, st.Name)
		}
	}
	var parts []string
	if fromMCP > 0 {
		parts = append(parts, fmt.Sprintf("%d from MCP", fromMCP))
	}
	if len(starting) > 0 {
		parts = append(parts, "MCP: "+plural(len(starting), "server")+" starting")
	}
	if len(failed) > 0 {
		parts = append(parts, fmt.Sprintf("MCP: %d failed: %s", len(failed), strings.Join(failed, ", ")))
	}
	if len(consent) > 0 {
		parts = append(parts, "MCP awaiting consent: "+strings.Join(consent, ", "))
	}
	if len(login) > 0 {
		parts = append(parts, "MCP needs login: "+strings.Join(login, ", "))
	}
	if len(parts) == 0 {
		return n
	}
	return n + " (" + strings.Join(parts, "; ") + ")"
}
