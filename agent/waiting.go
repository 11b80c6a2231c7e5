package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/co-cli/co/message"
	"github.com/co-cli/co/tools"
)

// WaitingCall is a call an unattended run (a scheduled run) kept waiting for
// the user, as plain values: the sessions store's pending call, handed
// over by internal/cli (the agent never imports the store). The
// conversation it came from must be the agent's current one (loaded as
// --resume loads a session) before RunWaiting runs it.
type WaitingCall struct {
	// ID is the pending call's number (/inbox approve ID).
	ID int64
	// CallID is the model's id for the call in the saved session.
	CallID string
	Tool   string
	Args   string // JSON as the model sent it
	// Untrusted are the untrusted sources the call followed when it was
	// kept waiting (its check's Untrusted then): the approval shows them
	// as it would have shown them in a chat.
	Untrusted []string
	// Schedule is the schedule whose run kept it waiting ("" if unknown).
	Schedule string
	// Decide records the user's answer (approved or not) where the call
	// waits, before anything runs. An error (another co answered it
	// meanwhile) stops it: the call does not run.
	Decide func(approved bool) error
}

// WaitingCallID is the id the approved call gets in the conversation: a
// new call, not the one the unattended run made (that one has its
// "needs approval" result already).
func WaitingCallID(id int64) string { return "inbox_" + strconv.FormatInt(id, 10) }

// ApprovedFromInbox starts the user message that carries a call approved
// from the inbox into the conversation.
const ApprovedFromInbox = "[From co's inbox]"

// RunWaiting asks the user about w through the one approval path, the
// same question a chat asks: the tool's own Check made again from the
// stored arguments, the conversation's rule on untrusted content with the
// sources the call followed, then ApprovalRequested. Approved, w.Decide
// records it, the call runs as a new call in the conversation (after a
// user message saying it was approved from the inbox) and the turn goes
// on as any turn does: the model gets the result and continues, and its
// further calls ask as usual. Denied (or denied by the policy now), w.Decide
// records it, the conversation gets a note, and no model is called.
// Nothing here grants anything beyond the answer given: "approve for the
// session" grants the call's scope in this chat as the modal says, no
// more; a policy deny still wins.
func (a *Agent) RunWaiting(ctx context.Context, w WaitingCall) <-chan Event {
	return a.start(ctx, func(ctx context.Context, e *emitter) { a.turn(ctx, "", "", &w, e) })
}

// runWaiting asks about w and runs it if approved; false when the turn
// ends there (denied, decided elsewhere, the call cannot be made), its
// last event sent.
func (a *Agent) runWaiting(ctx context.Context, e *emitter, st *turnState, w WaitingCall) bool {
	call := message.ToolCall{ID: WaitingCallID(w.ID), Name: w.Tool, Args: w.Args}
	// stop ends the turn before the call could run.
	stop := func(msg string) bool {
		e.send(ToolCallFinished{CallID: call.ID, Name: call.Name, Status: message.CallFailed, Err: msg})
		e.send(TurnFailed{Message: msg, Session: a.Usage()})
		return false
	}
	e.send(ToolCallStarted{CallID: call.ID, Name: call.Name, Args: call.Args})
	it := &callItem{call: call}
	t, ok := a.cfg.Tools.Get(w.Tool)
	if !ok {
		return stop(fmt.Sprintf("waiting call %d is a call to %s, a tool this co does not have now (is its MCP server or setting off?); it stays waiting: /inbox deny %d drops it", w.ID, w.Tool, w.ID))
	}
	it.tool = t
	if err := a.validator.Validate(t, json.RawMessage(w.Args)); err != nil {
		return stop(fmt.Sprintf("waiting call %d's arguments do not fit %s now: %v; it stays waiting: /inbox deny %d drops it", w.ID, w.Tool, err, w.ID))
	}
	it.check = a.guardWaiting(tools.Decide(ctx, t, json.RawMessage(w.Args)), w.Untrusted)
	if it.check.Retry != "" {
		return stop(fmt.Sprintf("waiting call %d cannot be checked now: %s; it stays waiting: try again", w.ID, it.check.Retry))
	}
	denied := func(by message.Source, why string) bool {
		if w.Decide != nil {
			if err := w.Decide(false); err != nil {
				return stop(err.Error())
			}
		}
		it.by = by
		fin, _ := a.runOne(ctx, e, it, st)
		note := DeniedNote(w.ID, w.Tool, w.Schedule, why)
		a.addAside(e, message.Aside{Notice: note}) // saved: a resumed transcript shows it
		e.send(fin)
		e.send(Notice{Text: note}) // and shown now
		e.send(TurnFinished{Session: a.Usage()})
		return false
	}
	if it.check.Decision == tools.Deny {
		// Deny wins over everything, the user's answer included.
		return denied(message.ByPolicyDeny, ": the policy denies it now ("+DenyReason(it.check.Reason)+")")
	}
	// Always asked: the user came to answer this call, and no grant,
	// yolo or --yes answers it for them.
	req := ApprovalRequested{reply: make(chan []message.Verdict, 1),
		Calls: []PendingCall{{CallID: call.ID, Tool: call.Name, Args: call.Args, Check: it.check}}}
	e.send(req)
	var verdicts []message.Verdict
	select {
	case <-ctx.Done():
		// Not answered: it stays waiting.
		e.send(ToolCallFinished{CallID: call.ID, Name: call.Name, Status: message.CallInterrupted, Err: message.InterruptedResult})
		e.send(TurnFailed{Message: "Interrupted.", Err: ctx.Err(), Interrupted: true, Session: a.Usage()})
		return false
	case verdicts = <-req.reply:
	}
	v := message.Deny
	if len(verdicts) > 0 {
		v = verdicts[0]
	}
	if v != message.ApproveOnce && v != message.ApproveSession {
		return denied(message.ByUserDenied, "")
	}
	if w.Decide != nil {
		if err := w.Decide(true); err != nil {
			return stop(err.Error())
		}
	}
	if v == message.ApproveSession {
		a.cfg.Approvals.Grant(it.check)
	}
	it.run, it.by = true, message.ByUser
	// The model reads what happened: the user's approval (shown in a
	// resumed transcript as the command typed), then the call and its
	// result, as if it had just made it.
	// The approval's message is the turn's user message: its seq is the
	// turn's key, so /undo takes the approved call back as any turn.
	before := a.recorderSeq()
	a.appendHistory(e,
		message.Message{Role: message.RoleUser, Shown: fmt.Sprintf("/inbox approve %d", w.ID), Content: fmt.Sprintf(
			"%s The user approved the call to %s that waited for approval%s (its id was %s). It runs now; its result follows. Continue the task with it.",
			ApprovedFromInbox, w.Tool, fromSchedule(w.Schedule), w.CallID)})
	st.undo = a.beginUndo(e, before, st.started)
	a.appendHistory(e, message.Message{Role: message.RoleAssistant, ToolCalls: []message.ToolCall{call}})
	a.recordDecision(e, it, v)
	fin, content := a.runOne(ctx, e, it, st)
	a.appendHistory(e, message.Message{Role: message.RoleTool, ToolCallID: call.ID, ToolName: call.Name, Content: content, Sources: fin.Result.Origins})
	e.send(fin)
	if ctx.Err() != nil {
		e.send(TurnFailed{Message: "Interrupted.", Err: ctx.Err(), Interrupted: true, Session: a.Usage()})
		return false
	}
	return true
}

// guardWaiting is guard for a call kept waiting: the sources it followed
// when it was kept (untrusted) count as the conversation's, so the
// question names them as the chat would have; with none recorded, the
// loaded conversation's risk decides, as for any call.
func (a *Agent) guardWaiting(c tools.Check, untrusted []string) tools.Check {
	if len(untrusted) == 0 || c.Decision == tools.Deny {
		return a.guard(c)
	}
	labels := slices.Clone(untrusted)
	for _, l := range a.Risk().Labels() {
		if !slices.Contains(labels, l) {
			labels = append(labels, l)
		}
	}
	c.Untrusted = labels
	why := "it follows untrusted content from " + SourceList(labels)
	if c.Reason != "" && c.Decision == tools.Ask {
		why += "; " + c.Reason
	}
	c.Decision, c.AlwaysAsk = tools.Ask, true
	c.Reason = why
	return c
}

func fromSchedule(name string) string {
	if name == "" {
		return " in an unattended run"
	}
	return fmt.Sprintf(" in the scheduled run %q", name)
}

// AddNote puts a notice in the conversation (an aside, saved where it
// is): a waiting call of this conversation denied from the inbox. Not
// while a turn runs.
func (a *Agent) AddNote(text string) {
	a.addAside(nil, message.Aside{Notice: text})
}

// DeniedNote is the note a conversation gets when its waiting call is
// denied from the inbox.
func DeniedNote(id int64, tool, schedule, why string) string {
	return fmt.Sprintf("Waiting call %d (%s%s) was denied from the inbox%s; it did not run.", id, tool, fromSchedule(schedule), why)
}
