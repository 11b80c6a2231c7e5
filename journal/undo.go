package journal

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sync"
)

// Undoer takes back one action from its entry. It returns an error
// wrapping fs.ErrNotExist when there is nothing left to take back
// ("already gone") and one wrapping fs.ErrPermission when the service
// refuses; the message says what happened and what the user can do.
type Undoer func(ctx context.Context, e Entry) error

// Registry holds the Undoer of each kind. The zero value is empty; use
// NewRegistry and the Slack, Gmail, Calendar, Memories, NotesIn and TodoList
// methods (or Register) to fill it.
type Registry struct {
	mu sync.Mutex
	m  map[Kind]Undoer
	// undoing is held through an Undo, so one action is never taken
	// back twice at once.
	undoing sync.Mutex
}

// NewRegistry makes an empty registry.
func NewRegistry() *Registry { return &Registry{m: map[Kind]Undoer{}} }

// Register sets the Undoer of kind k.
func (r *Registry) Register(k Kind, u Undoer) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = map[Kind]Undoer{}
	}
	r.m[k] = u
}

// ErrNotUndoable is wrapped by Undo's error for an entry that cannot be
// taken back (a web request, an MCP call, a sent mail), or whose kind has
// no Undoer in this session.
var ErrNotUndoable = errors.New("cannot be taken back")

// ErrAlreadyUndone is wrapped by Undo's error for an entry undone before.
var ErrAlreadyUndone = errors.New("already undone")

// Result is what an undo did, Message in one line for a person.
type Result struct {
	Outcome Outcome
	Message string
}

// Undo takes back entry seq of j: on success, or when the action is
// already gone, it appends the undo to the journal and returns the
// outcome. Its errors say why not: ErrNotUndoable, ErrAlreadyUndone,
// ErrConflict (changed since by someone else: kept, and named), a
// permission refusal (IsPermission) or another failure; the entry stays
// as it was, so the user may try again.
func (r *Registry) Undo(ctx context.Context, j *Journal, seq int) (Result, error) {
	r.undoing.Lock()
	defer r.undoing.Unlock()
	e, err := j.Get(seq)
	if err != nil {
		return Result{}, err
	}
	switch {
	case e.Undone != "":
		return Result{}, fmt.Errorf("%s: %w (%s)", e.What, ErrAlreadyUndone, e.Undone)
	case !e.Undoable:
		return Result{}, fmt.Errorf("%s: %w: %s", e.What, ErrNotUndoable, e.WhyNot)
	}
	r.mu.Lock()
	u := r.m[e.Kind]
	r.mu.Unlock()
	if u == nil {
		return Result{}, fmt.Errorf("%s: %w in this session (nothing here undoes a %s)", e.What, ErrNotUndoable, e.Kind)
	}
	res := Result{Outcome: Undone, Message: "Taken back: " + e.What}
	if err := u(ctx, e); err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			return Result{}, err
		}
		res = Result{Outcome: AlreadyGone, Message: "Nothing to take back: " + err.Error()}
	}
	if err := j.markUndone(seq, res.Outcome); err != nil {
		return res, fmt.Errorf("%s was taken back, but the journal could not say so: %w", e.What, err)
	}
	return res, nil
}

// IsPermission reports whether an undo was refused for want of
// permission (a scope, a token that may not delete what another posted).
func IsPermission(err error) bool { return errors.Is(err, fs.ErrPermission) }
