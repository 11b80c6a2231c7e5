package journal

import (
	"context"
	"time"
)

// The agent puts the session's journal and the running turn into the
// context of each tool call (WithTurn); a tool that sends or changes
// something outside the workspace records it with RecordIn, and needs to know
// nothing else. A context without a journal (co run without a saved
// session, tests) records nothing.

type scopeKey struct{}

type scope struct {
	j     *Journal
	turn  int
	start time.Time
}

// WithTurn returns ctx carrying j and the turn (its key: the saved seq of
// the turn's user message) that began at start.
func WithTurn(ctx context.Context, j *Journal, turn int, start time.Time) context.Context {
	if j == nil {
		return ctx
	}
	return context.WithValue(ctx, scopeKey{}, scope{j, turn, start})
}

// TurnOf is the turn ctx carries and when it began; ok is false when ctx
// carries no journal.
func TurnOf(ctx context.Context) (turn int, start time.Time, ok bool) {
	s, ok := ctx.Value(scopeKey{}).(scope)
	return s.turn, s.start, ok
}

// RecordIn records e in the journal ctx carries, its Turn set to the
// context's turn. Without a journal it records nothing and returns e.
func RecordIn(ctx context.Context, e Entry) (Entry, error) {
	s, ok := ctx.Value(scopeKey{}).(scope)
	if !ok {
		return e, nil
	}
	e.Turn = s.turn
	return s.j.Record(e)
}
