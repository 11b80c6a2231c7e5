package tui

import (
	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/ui/present"
)

// Calls of a batch are answered one by one in the modal, and the agent
// hears the answers only when the last is given; it runs the batch's calls
// in order after that. Each line shows its own answer as it is given, so
// a denied call never looks as if it waits for approval or runs.

// markAnswered shows the answer given to the call at i of the open
// modal's request: denied at once, or approved until the batch's answers
// go and it runs.
func (a *App) markAnswered(i int) {
	req := a.modal.Request()
	verdicts := a.modal.Verdicts()
	if i < 0 || i >= len(req.Calls) || i >= len(verdicts) {
		return
	}
	if t := a.tools[req.Calls[i].CallID]; t != nil {
		t.answer(verdicts[i])
		a.chat.Changed()
	}
}

// answer marks a call waiting for approval as answered with v.
func (e *toolEntry) answer(v message.Verdict) {
	if e.state != toolWaiting {
		return
	}
	switch v {
	case message.ApproveOnce, message.ApproveSession:
		e.state = toolApproved
	default:
		e.state = toolDenied
		e.outcome = present.Outcome(agent.ToolCallFinished{Status: message.CallDenied, Decision: message.ByUserDenied})
	}
	e.invalidate()
}
