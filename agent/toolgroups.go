package agent

import (
	"fmt"
	"slices"
	"strings"

	"github.com/co-cli/co/agent/provider"
)

// Tool groups: the families of tools, so that fewer can be sent to a model
// with a small context window (llm_tool_groups, or co's own choice when the
// tools would take too much of the window).

// ToolGroups are the groups a tool can belong to, in the order /tools and
// the settings name them.
var ToolGroups = []string{"shell", "files", "todo", "memory", "web", "notes", "skills", "google", "slack", "mcp", "other"}

// CoreToolGroups are what co keeps when it must send less on its own.
var CoreToolGroups = []string{"shell", "files"}

// ToolGroup is the group of the tool named name.
func ToolGroup(name string) string {
	switch {
	case name == "run_shell_command":
		return "shell"
	case slices.Contains([]string{"list_directory", "read_file", "write_file", "edit_file", "search_files"}, name):
		return "files"
	case strings.HasPrefix(name, "todo_"):
		return "todo"
	case strings.HasSuffix(name, "_memory"):
		return "memory"
	case strings.HasPrefix(name, "web_"):
		return "web"
	case strings.HasSuffix(name, "_notes") || name == "read_note" || name == "write_note":
		return "notes"
	case name == "read_skill":
		return "skills"
	case strings.HasPrefix(name, "mcp__"):
		return "mcp"
	case strings.Contains(name, "slack"):
		return "slack"
	case strings.Contains(name, "drive") || strings.Contains(name, "email") || strings.Contains(name, "calendar"):
		return "google"
	}
	return "other"
}

// ToolSent reports whether the tool named name is sent to the model now:
// its group is among llm_tool_groups (all when the setting is empty), and,
// when co had to send less for a small window, among CoreToolGroups; in a
// scheduled run whose tools setting narrows them, it is offered.
func (a *Agent) ToolSent(name string) bool {
	a.mu.Lock()
	reduced := a.budget.reduced
	a.mu.Unlock()
	return a.toolSent(name, reduced)
}

// toolSent is ToolSent with reduced saying whether co sends only
// CoreToolGroups.
func (a *Agent) toolSent(name string, reduced bool) bool {
	if t, ok := a.cfg.Tools.Get(name); ok && !a.offered(t) {
		return false // a scheduled run's tools setting (unattended.go)
	}
	g := ToolGroup(name)
	if groups := a.cfg.ToolGroups; len(groups) > 0 && !slices.Contains(groups, g) {
		return false
	}
	return !reduced || slices.Contains(CoreToolGroups, g)
}

// SendingLess says what co leaves out of its requests for a small window
// ("" when nothing): for /tools and /status.
func (a *Agent) SendingLess() string {
	a.mu.Lock()
	reduced, compact := a.budget.reduced, a.budget.compact
	a.mu.Unlock()
	return lessText(reduced, compact)
}

// lessText words what co leaves out for a small window, as SendingLess.
func lessText(reduced, compact bool) string {
	var parts []string
	if reduced {
		parts = append(parts, fmt.Sprintf("only the %s tools", strings.Join(CoreToolGroups, " and ")))
	}
	if compact {
		parts = append(parts, "a compact system prompt (no project instructions or skills)")
	}
	return strings.Join(parts, "; ")
}

// compactPrompt is the system prompt co sends when its own would take too
// much of a small window.
const compactPrompt = `You are Co, a personal assistant in the user's terminal. Be terse. Use tools when needed; show their output verbatim. A result with "status": "denied" did not run: do not repeat it unchanged.`

// sendLess decides, before a request, whether co's fixed part (system
// prompt and tool schemas) leaves room for the conversation in window
// (lessFor), and keeps the decision; the user is told once.
func (a *Agent) sendLess(p provider.Provider, full string, window int, e *emitter) {
	a.mu.Lock()
	wasReduced, wasCompact := a.budget.reduced, a.budget.compact
	a.mu.Unlock()
	reduced, compact := a.lessFor(p, full, window)
	if reduced == wasReduced && compact == wasCompact {
		return
	}
	a.mu.Lock()
	a.budget.reduced, a.budget.compact = reduced, compact
	a.mu.Unlock()
	var told []string
	if reduced && !wasReduced && len(a.toolsWith(p, true)) < len(a.toolsWith(p, false)) {
		told = append(told, fmt.Sprintf("only the %s tools", strings.Join(CoreToolGroups, " and ")))
	}
	if compact && !wasCompact {
		told = append(told, "a compact system prompt without the project instructions and skills")
	}
	if len(told) > 0 {
		e.send(Notice{Text: fmt.Sprintf("The model's context window is small (%d tokens): co sends %s, so the conversation has room (/tools shows what is sent; llm_tool_groups chooses).", window, strings.Join(told, " and "))})
	}
}

// sendCoreTools makes co send only CoreToolGroups to p, as sendLess does
// for a small window; false when that sends no fewer tools than before.
func (a *Agent) sendCoreTools(p provider.Provider) bool {
	a.mu.Lock()
	reduced := a.budget.reduced
	a.mu.Unlock()
	if reduced {
		return false
	}
	before := len(a.toolsFor(p))
	a.mu.Lock()
	a.budget.reduced = true
	a.mu.Unlock()
	if len(a.toolsFor(p)) < before {
		return true
	}
	a.mu.Lock()
	a.budget.reduced = false // no tool outside the core groups
	a.mu.Unlock()
	return false
}

// sendCompactPrompt makes co send compactPrompt; false when it already
// does.
func (a *Agent) sendCompactPrompt() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.budget.compact {
		return false
	}
	a.budget.compact = true
	return true
}
