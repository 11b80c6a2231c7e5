// Package undo takes back turns of a saved session: their files (from the
// workspace's checkpoints, package checkpoint), their place in the
// conversation (marked undone in the sessions store, so a resume does not
// bring them back), and, one by one, what they sent (package journal). The
// chat's /undo and /rewind and the shell's co undo use it alike.
//
// A turn's key is the saved seq of its user message (sessions): unique in
// its session, never reused, so a checkpoint ("SESSION-SEQ") and journal
// entries (Entry.Turn) find their turn after an undo too.
package undo

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/co-cli/co/checkpoint"
	"github.com/co-cli/co/journal"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/sessions"
)

// Mode is what a rewind takes back.
type Mode int

const (
	Both             Mode = iota // files and conversation
	FilesOnly                    // files; the conversation keeps the turns
	ConversationOnly             // the conversation; files stay as they are
	Summarise                    // the turns become a summary in the conversation; files stay
)

// Turn is one turn of the session.
type Turn struct {
	Seq    int64     // its key: the saved seq of its user message
	N      int       // 1-based among the session's live turns
	Prompt string    // what the user typed (message.Shown when set)
	At     time.Time // when it was sent
	// Checkpoint is the turn's checkpoint record; nil when it has none
	// (nothing changed, the workspace was too large, co was older, pruned).
	Checkpoint *checkpoint.Record
	// Sent is what the turn sent or changed outside the workspace.
	Sent []journal.Entry
}

// Result is what a rewind did.
type Result struct {
	Taken []Turn // the turns taken back, oldest first
	// Prompt is the first taken-back turn's prompt (the full screen puts it
	// back in the input box).
	Prompt string
	Files  checkpoint.Report
	// Sent is what those turns sent: the undoable entries, for the front
	// end to offer one by one (UndoSent), and the rest to list as such.
	Sent []journal.Entry
	// Summary is the summary that replaced the turns (Summarise).
	Summary string
	// Notes say what could not be done and why, for the user.
	Notes []string
}

// Config is what a Service works on.
type Config struct {
	Sessions *sessions.Store
	Session  string
	// Checkpoints is the workspace's checkpoint store; nil: files are not
	// taken back, and Result.Notes says why.
	Checkpoints *checkpoint.Store
	// Journal and Registry: nil, nothing sent is listed or taken back.
	Journal  *journal.Journal
	Registry *journal.Registry
	Tracer   trace.Tracer
	// Summarise makes the summary of Summarise mode; nil: the mode is refused.
	Summarise func(ctx context.Context, msgs []message.Message) (string, error)
	// Hold, when set, runs before a rewind changes anything and release
	// after it: the chat refuses while a turn runs (its error is Rewind's)
	// and keeps turns from starting meanwhile.
	Hold func() (release func(), err error)
	// Changed, when set, runs after a rewind changed the conversation: the
	// chat reloads the agent's history from the store.
	Changed func() error
}

// Service takes back turns of one session.
type Service struct{ cfg Config }

// New returns the service for cfg.
func New(cfg Config) *Service { return &Service{cfg: cfg} }

