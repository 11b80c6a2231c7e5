package agent

import (
	"github.com/co-cli/co/message"
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
	// Protected, when set, are the changes to protected paths the Notice warns of
	// (ProtectedWatch): no approved call made them.
	Protected []ProtectedChange
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

// ToolCallFinished says a tool call ended, whichever way (the event; the
// outcome a conversation keeps is message.ToolCallFinished).
type ToolCallFinished message.ToolCallFinished

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
	reply chan []message.Verdict
}

// Reply answers the request: one Verdict per call, in order; missing ones
// are Deny. Only the first Reply counts; it never blocks.
func (r ApprovalRequested) Reply(v []message.Verdict) {
	select {
	case r.reply <- v:
	default:
	}
}

// FormRequested asks the front end to show the user a form a running tool
// asks to have filled in (an MCP server's elicitation), for call CallID.
// The tool waits until Reply is called, the server withdraws the form or
// the turn ends. Form's text is the server's, for lib/safe.
type FormRequested struct {
	CallID string
	Form   tools.Form
	// Withdrawn is closed when the form no longer needs an answer (the
	// server cancelled it, the call or the turn ended).
	Withdrawn <-chan struct{}
	reply     chan tools.FormAnswer
}

// Reply answers the form; only the first Reply counts; it never blocks.
func (r FormRequested) Reply(a tools.FormAnswer) {
	select {
	case r.reply <- a:
	default:
	}
}

// TurnFinished ends a successful turn.
type TurnFinished struct {
	Text     string        // the final assistant text of the turn
	Usage    message.Usage // this turn
	Session  message.Usage // the session so far
	Requests int           // LLM round-trips in this turn
}

// TurnFailed ends a turn that could not finish. Message is for the user and
// says what to do; partial text already delivered stays valid.
type TurnFailed struct {
	Message     string
	Err         error
	Interrupted bool // the user cancelled the turn
	// NotSent: an attachment stopped the message before it went; it is not
	// in the conversation (a chat gives it back to the user to fix).
	NotSent  bool
	Usage    message.Usage
	Session  message.Usage
	Requests int
}

func (TextDelta) event()         {}
func (ReasoningDelta) event()    {}
func (Notice) event()            {}
func (MemoryRecalled) event()    {}
func (ToolCallStarted) event()   {}
func (ToolCallFinished) event()  {}
func (ApprovalRequested) event() {}
func (FormRequested) event()     {}
func (TurnFinished) event()      {}
func (TurnFailed) event()        {}
func (RiskRaised) event()        {}
