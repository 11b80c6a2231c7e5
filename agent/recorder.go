package agent

import "github.com/co-cli/co/message"

// Recorder saves a conversation as it happens, so that a crash or kill -9
// loses nothing that was on screen and the saved history is always valid to
// resume (dangling tool calls are patched on load, as after an interrupt).
// The agent never makes two calls at once; they come from the turn
// goroutine, except that after DeferDrafts a front end's SyncDraft saves
// drafts from its own goroutine.
type Recorder interface {
	// Append saves one completed message, in its own transaction.
	Append(m message.Message) error
	// Draft saves a piece of the assistant text being streamed, before it
	// is shown; the next Append of an assistant message replaces the
	// draft. A draft found on load is a reply cut short: it is resumed as an
	// interrupted assistant message. It is called once per streamed chunk
	// (or per frame, after DeferDrafts), so it must be cheap (an append to
	// a file, not a transaction).
	Draft(chunk string) error
	// Decision saves the user's answer to an approval request.
	Decision(callID, tool string, v message.Verdict) error
	// Usage saves the session's token usage so far.
	Usage(session message.Usage) error
	// Aside saves a !cmd's run or a notice, in its place between the
	// messages saved so far (Aside.After counts the agent's history,
	// which summarising shortens: a store places it by what it saved).
	Aside(x message.Aside) error
}

// SetRecorder switches where the conversation is saved (a new session
// after /clear, or none).
//
// A recorder with an ID (a saved session) gives the conversation its id:
// the spans' co.session.id and gen_ai.conversation.id from then on, so the
// traces of a saved session are found by the id `co sessions` shows.
func (a *Agent) SetRecorder(r Recorder) {
	a.mu.Lock()
	a.rec, a.recFailed = r, false
	if idr, ok := r.(interface{ ID() string }); ok && idr.ID() != "" {
		a.sessionID = idr.ID()
	}
	a.mu.Unlock()
}

// SessionID is the id of the conversation: the saved session's when one
// is recorded, Config.SessionID otherwise.
func (a *Agent) SessionID() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.sessionID != "" {
		return a.sessionID
	}
	return a.cfg.SessionID
}
