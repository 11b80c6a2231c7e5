package agent

import (
	"context"
	"fmt"
	"strings"
)

// PromptInfo is what the system prompt says about the running session, so
// that the prompt matches what the tools really do.
type PromptInfo struct {
	// Shell describes where shell commands run, e.g. "in a Docker sandbox
	// with the workspace mounted at /workspace" or "directly on the user's
	// machine, in the workspace directory (no sandbox)". Empty: no shell.
	Shell string
	// Workspace is the working directory.
	Workspace string
	// Today is the date, YYYY-MM-DD.
	Today string
}

// SystemPrompt builds co's system prompt.
func SystemPrompt(info PromptInfo) string {
	var b strings.Builder
	b.WriteString(`You are Co, a personal assistant running in the user's terminal.

### Response Style
- Be terse: users want results, not explanations
- On success: show the output, then a brief note if needed
- On error: show the error, suggest a fix

### Tool Output
- Tool results carry a "display" field (or are plain text): show the display value verbatim
- Never reformat, summarize, or drop URLs from tool output
- If a result has "has_more": true, tell the user more results are available

### Tool Usage
- Use tools proactively to complete tasks
- Chain operations: read before modifying, test after changing
- Some tools ask the user for approval first; if the user denies a call, do not repeat it unchanged: propose another way or ask
- A result with "status": "denied" means the call did not run
`)
	if info.Shell != "" {
		fmt.Fprintf(&b, "- Shell commands run %s\n", info.Shell)
	}
	b.WriteString(`
### Pagination
- When a tool result has has_more=true, more results are available
- If the user asks for "more", "next", or "next 10", call the same tool again the way its description says to get the next results (each tool pages its own way)
- Do NOT say "no more results" unless you called the tool and has_more was false
`)
	if info.Workspace != "" || info.Today != "" {
		b.WriteString("\n### Session\n")
		if info.Workspace != "" {
			fmt.Fprintf(&b, "- Workspace: %s\n", info.Workspace)
		}
		if info.Today != "" {
			fmt.Fprintf(&b, "- Today: %s\n", info.Today)
		}
	}
	return b.String()
}

// systemPrompt returns the system prompt as sent: fullPrompt, or
// compactPrompt when the context window is too small for it (budget.go).
func (a *Agent) systemPrompt(ctx context.Context) (string, error) {
	s, err := a.fullPrompt(ctx)
	a.mu.Lock()
	compact := a.budget.compact
	a.mu.Unlock()
	if err == nil && compact {
		return compactPrompt, nil
	}
	return s, err
}

// fullPrompt returns co's own system prompt: Config.SystemPrompt followed
// by what Config.MorePrompt gives, waited for on the first request.
func (a *Agent) fullPrompt(ctx context.Context) (string, error) {
	a.mu.Lock()
	if a.systemOK {
		defer a.mu.Unlock()
		return a.system, nil
	}
	a.mu.Unlock()
	s := a.cfg.SystemPrompt
	if a.cfg.MorePrompt != nil {
		more, err := a.cfg.MorePrompt(ctx)
		if err != nil {
			return "", err
		}
		if more != "" {
			s = strings.TrimRight(s, "\n") + "\n" + more
		}
	}
	a.mu.Lock()
	a.system, a.systemOK = s, true
	a.mu.Unlock()
	return s, nil
}

// SystemPromptText is the system prompt as sent (after waiting for
// Config.MorePrompt), for tests and diagnostics.
func (a *Agent) SystemPromptText(ctx context.Context) (string, error) { return a.systemPrompt(ctx) }
