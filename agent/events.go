package agent

import (
	"time"

	"github.com/co-cli/co/tools"
)

// Event is something that happened during a turn. The set is sealed: only
// the types in this file implement it.
type Event interface{ event() }

// TextDelta is a piece of the assistant's reply, in order. Consecutive deltas
// may be coalesced when the front end reads slower than the model writes.
type TextDelta struct{ Text string }

// ReasoningDelta is a piece of the model's reasoning ("thinking"), which
// providers stream before the answer and before tool calls. Consecutive
// deltas may be coalesced like TextDelta's.
type ReasoningDelta struct{ Text string }

// Recalled is one memory a turn recalled (Config.Recall).
type Recalled struct {
	ID   string
	Text string
}

// MemoryRecalled says which memories the turn's requests carry, before the
// first request; not sent when there are none.
type MemoryRecalled struct{ Memories []Recalled }

// Notice is an informational line for the user (a retry after a rate limit,
// a provider fallback). It never carries model output. CallID, when set,
// is the tool call whose tool said it while running (tools.Notify: the
// "starting the sandbox…" of the first command), so a front end can show
// it with that call, before its output.
type Notice struct {
	Text   string
	CallID string
}

// ToolCallStarted says the model called a tool. It comes before any approval
// request for the call and before the call runs.
type ToolCallStarted struct {
	CallID string
	Name   string
	// Args is the JSON arguments text as the model sent it.
	Args string
	// Bang is true for a command the user typed as !cmd.
	Bang bool
}

// CallStatus is how a tool call ended.
type CallStatus int

const (
	CallDone        CallStatus = iota // ran and returned a result
	CallFailed                        // ran and failed (infrastructure error or a non-zero exit)
	CallRetry                         // the model called it wrongly; the message went back to it
	CallDenied                        // denied by the user or by policy; it did not run
	CallInterrupted                   // cancelled by the user
)

func (s CallStatus) String() string {
	return [...]string{"done", "failed", "retry", "denied", "interrupted"}[s]
}

// Source says who decided that a call runs (or does not).
type Source string

const (
	ByPolicy       Source = "policy allow"
	ByUser         Source = "user approved"
	ByUserDenied   Source = "user denied"
	BySessionGrant Source = "session grant"
	ByYolo         Source = "yolo"
	ByPolicyDeny   Source = "policy deny"
	// ByYes is `co run --yes`: approved as /yolo would have been.
	ByYes Source = "--yes"
	// ByHeadless is a call that needed approval with nobody there to give
	// it (co run): it did not run, and no one denied it.
	ByHeadless Source = "needs approval"
)

// ToolCallFinished says a tool call ended, whichever way.
type ToolCallFinished struct {
	CallID   string
	Name     string
	Status   CallStatus
	Result   tools.Result // what the tool returned (Display is shown verbatim)
	Err      string       // why it failed, was denied or must be retried
	Decision Source       // who let it run, or who stopped it
	Duration time.Duration
	Bang     bool
}

// Verdict is the user's answer for one call awaiting approval.
type Verdict int

const (
	Deny           Verdict = iota // do not run it
	ApproveOnce                   // run it this time
	ApproveSession                // run it and grant its scope for the session
	// Unattended: nobody was there to ask (co run); it does not run, and
	// it is recorded as needing approval, not as denied by the user.
	Unattended
)

// PendingCall is one call in an approval request.
type PendingCall struct {
	CallID string
	Tool   string
	Args   string // JSON as the model sent it
	Check  tools.Check
}

// ApprovalRequested asks the front end to answer every call in Calls. The
// agent blocks until Reply is called or the turn's context is cancelled
// (which denies them all as interrupted).
type ApprovalRequested struct {
	Calls []PendingCall
	reply chan []Verdict
}

// Reply answers the request: one Verdict per call, in order; missing ones
// are Deny. Only the first Reply counts; it never blocks.
func (r ApprovalRequested) Reply(v []Verdict) {
	select {
	case r.reply <- v:
	default:
	}
}

// Usage counts tokens as the provider reported them.
type Usage struct {
	InputTokens  int
	OutputTokens int
}

// Add returns u + o.
func (u Usage) Add(o Usage) Usage {
	return Usage{InputTokens: u.InputTokens + o.InputTokens, OutputTokens: u.OutputTokens + o.OutputTokens}
}

// Total is input + output.
func (u Usage) Total() int { return u.InputTokens + u.OutputTokens }

// TurnFinished ends a successful turn.
type TurnFinished struct {
	Text     string // the final assistant text of the turn
	Usage    Usage  // this turn
	Session  Usage  // the session so far
	Requests int    // LLM round-trips in this turn
}

// TurnFailed ends a turn that could not finish. Message is for the user and
// says what to do; partial text already delivered stays valid.
type TurnFailed struct {
	Message     string
	Err         error
	Interrupted bool // the user cancelled the turn
	Usage       Usage
	Session     Usage
	Requests    int
}

func (TextDelta) event()         {}
func (ReasoningDelta) event()    {}
func (Notice) event()            {}
func (MemoryRecalled) event()    {}
func (ToolCallStarted) event()   {}
func (ToolCallFinished) event()  {}
func (ApprovalRequested) event() {}
func (TurnFinished) event()      {}
func (TurnFailed) event()        {}
func (RiskRaised) event()        {}
