package agent

import (
	"encoding/json"
	"slices"

	"github.com/co-cli/co/tools"
)

// Unattended makes the agent a scheduled run's (issue 29): nobody is
// there, so what needs approval is kept waiting for the user instead of
// running, and what the model is offered may be narrowed.
type Unattended struct {
	// Schedule is the schedule's name (the turn span's co.schedule.name).
	Schedule string
	// Approve are the tools that run without asking in this schedule's
	// runs (Approvals.SetUnattended says what never does).
	Approve []string
	// Tools, when not empty, are the only tools offered to the model
	// besides the read-only ones (and the drafts): a narrower run, not a
	// wider one — a tool listed here still waits for approval unless
	// Approve names it too.
	Tools []string
}

// SetUnattended makes this agent's turns unattended (see Unattended) and
// its approvals a scheduled run's (Approvals.SetUnattended). It lasts for
// the life of the agent.
func (a *Agent) SetUnattended(u Unattended) {
	u.Approve, u.Tools = slices.Clone(u.Approve), slices.Clone(u.Tools)
	a.mu.Lock()
	a.unattended = &u
	a.mu.Unlock()
	a.cfg.Approvals.SetUnattended(u.Approve)
}

// Unattended is what SetUnattended set; nil for a run with a person.
func (a *Agent) Unattended() *Unattended {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.unattended == nil {
		return nil
	}
	u := *a.unattended
	return &u
}

// offered says whether an unattended run offers tool t to the model: every
// tool, unless its Tools narrows them to the read-only ones, the drafts and
// those it names.
func (a *Agent) offered(t tools.Tool) bool {
	a.mu.Lock()
	u := a.unattended
	a.mu.Unlock()
	if u == nil || len(u.Tools) == 0 || t == nil {
		return true
	}
	if t.Class() == tools.ReadOnly || isDrafter(t) || slices.Contains(u.Tools, t.Name()) {
		return true
	}
	return false
}

// WaitingResult is what the model is told of a call kept waiting for the
// user's approval.
func waitingJSON(reason string) string {
	b, _ := json.Marshal(map[string]any{"status": "waiting", "reason": reason,
		"message": "This call did not run: this is a scheduled run with nobody present, and the call needs the user's approval, so it is kept waiting for them (they approve it later from co's inbox). Do not retry it. Continue with what you can do without it, and say in your answer that it waits for approval."})
	return string(b)
}

// Waiting is the error of a call kept waiting for the user's approval.
const Waiting = "waiting for your approval (co inbox)"
