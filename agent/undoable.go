package agent

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/co-cli/co/checkpoint"
	"github.com/co-cli/co/journal"
	"github.com/co-cli/co/message"
)

// Checkpointer keeps a checkpoint of the workspace per turn, so that undo
// can take a turn's file changes back (*checkpoint.Store).
type Checkpointer interface {
	Begin(id string) error
	End(id string) (checkpoint.Summary, error)
	Abandon(id string)
}

// seqer is the optional side of a Recorder that makes turns undoable: the
// saved seq of the message it appended last (sessions.Session). A turn's
// key is the seq of its user message.
type seqer interface{ Seq() int64 }

// undoTurn is the running turn's checkpoint and journal. A turn of a saved
// session gets one right after its user message is saved: Begin runs in
// its own goroutine, overlapping the first request, and every tool call
// waits for it (ready), so no tool runs before the workspace's state before
// the turn is known. End runs after the turn, whatever its outcome, off the
// turn's path; the next Begin, a rewind (Hold) and WaitCheckpoint wait for
// it.
//
// Which turns get one: a prompt's turn, and a call approved from the inbox
// (its "[From co's inbox]" message is the turn's user message, so /undo
// takes the call back as any turn). A !cmd (RunBang) gets none: it is no
// turn of the conversation (no message is saved), so no undo could name it;
// its changes become part of the next turn's starting state.
type undoTurn struct {
	id    string // the checkpoint's turn id, SESSION-SEQ
	seq   int64
	start time.Time
	cp    Checkpointer
	// begun is closed when Begin returned (beginErr) and the journal was
	// opened (j, nil when none).
	begun    chan struct{}
	beginErr error
	j        *journal.Journal
	told     bool // the turn said why its files cannot be undone
}

// beginUndo starts the checkpoint and opens the journal of a turn whose
// user message was just saved (savedBefore: the recorder's seq before it;
// an unchanged seq means the save failed and the turn gets no key).
func (a *Agent) beginUndo(e *emitter, savedBefore int64, start time.Time) *undoTurn {
	a.mu.Lock()
	rec := a.rec
	a.mu.Unlock()
	sr, ok := rec.(seqer)
	if !ok {
		return nil
	}
	seq := sr.Seq()
	if seq <= savedBefore || (a.cfg.Checkpoints == nil && a.cfg.Journal == nil) {
		return nil
	}
	sid := a.SessionID()
	u := &undoTurn{id: sid + "-" + strconv.FormatInt(seq, 10), seq: seq, start: start, cp: a.cfg.Checkpoints, begun: make(chan struct{})}
	a.mu.Lock()
	prev := a.ckptPending
	a.mu.Unlock()
	go func() {
		defer close(u.begun)
		defer func() {
			if r := recover(); r != nil {
				u.beginErr = fmt.Errorf("checkpoint: %v", r)
			}
		}()
		if a.cfg.Journal != nil {
			// A journal that cannot be opened: the turn goes on, and what
			// it sends is not listed by undo.
			u.j, _ = a.cfg.Journal(sid)
		}
		if u.cp == nil {
			u.beginErr = errNoCheckpoints
			return
		}
		if prev != nil {
			<-prev // the last turn's End: its scan is this one's baseline
		}
		u.beginErr = u.cp.Begin(u.id)
	}()
	return u
}

var errNoCheckpoints = errors.New("no checkpoint store")

// ready waits for the turn's Begin and returns ctx carrying the journal
// and the turn, for a tool call; false when ctx ended first. A Begin that
// failed is said once per session, and the turn goes on.
func (u *undoTurn) ready(ctx context.Context, a *Agent, e *emitter) (context.Context, bool) {
	select {
	case <-u.begun:
	case <-ctx.Done():
		return ctx, false
	}
	if u.beginErr != nil && u.beginErr != errNoCheckpoints && !u.told {
		u.told = true
		a.tellNoCheckpoint(e, u.beginErr)
	}
	return journal.WithTurn(ctx, u.j, int(u.seq), u.start), true
}

// tellNoCheckpoint says, once per session, that the files this session's
// turns change cannot be undone, and why.
func (a *Agent) tellNoCheckpoint(e *emitter, err error) {
	sid := a.SessionID()
	a.mu.Lock()
	told := a.ckptTold == sid
	a.ckptTold = sid
	a.mu.Unlock()
	if told {
		return
	}
	var tl *checkpoint.TooLargeError
	why := err.Error()
	if errors.As(err, &tl) {
		why = fmt.Sprintf("the workspace %s holds more than %d files and folders", tl.Workspace, tl.Max)
	}
	e.send(Notice{Text: "Files changed in this session cannot be undone here: " + why + ". /undo still takes turns out of the conversation."})
}

// endUndo ends the turn's checkpoint in the background; the next Begin,
// Hold and WaitCheckpoint wait for it.
func (a *Agent) endUndo(u *undoTurn) {
	if u == nil {
		return
	}
	done := make(chan struct{})
	a.mu.Lock()
	a.ckptPending = done
	a.mu.Unlock()
	go func() {
		defer close(done)
		defer func() { _ = recover() }()
		<-u.begun
		if u.beginErr != nil {
			return
		}
		if _, err := u.cp.End(u.id); err != nil {
			a.mu.Lock()
			a.ckptEndErr = err
			a.mu.Unlock()
		}
	}()
}

// endFailure is said at the start of the next turn: the last turn's
// checkpoint could not be recorded, so undo cannot restore its files.
func (a *Agent) endFailure() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	err := a.ckptEndErr
	a.ckptEndErr = nil
	if err == nil {
		return ""
	}
	return "The last turn's files could not be checkpointed (" + err.Error() + "): undo cannot restore them."
}

// WaitCheckpoint waits until the last turn's checkpoint is recorded (its
// End runs after the turn, in the background): a rewind, and the exit of
// co, so that co undo sees the last turn.
func (a *Agent) WaitCheckpoint() {
	a.mu.Lock()
	p := a.ckptPending
	a.mu.Unlock()
	if p != nil {
		<-p
	}
}

// ErrBusy is Hold's answer while a turn runs.
var ErrBusy = errors.New("a turn is running: wait for it to finish or interrupt it (Esc or Ctrl+C), then try again")

// Hold keeps turns from starting (a rewind changes the workspace and the
// saved conversation) until release is called. It fails with ErrBusy while
// a turn runs, and waits for the last turn's checkpoint.
func (a *Agent) Hold() (release func(), err error) {
	a.mu.Lock()
	if a.busy {
		a.mu.Unlock()
		return nil, ErrBusy
	}
	a.busy = true
	a.mu.Unlock()
	a.WaitCheckpoint()
	return func() {
		a.mu.Lock()
		a.busy = false
		a.mu.Unlock()
	}, nil
}

// Summarise asks the model (the summarization model when set) for a
// summary of msgs, with no tools: undo's "summarise from here".
func (a *Agent) Summarise(ctx context.Context, msgs []message.Message) (string, error) {
	p, _, err := a.WaitProvider(ctx)
	if err != nil {
		return "", err
	}
	return a.summarize(ctx, a.current(p), msgs)
}

// recorderSeq is the recorder's seq now (0 without one that has seqs).
func (a *Agent) recorderSeq() int64 {
	a.mu.Lock()
	rec := a.rec
	a.mu.Unlock()
	if sr, ok := rec.(seqer); ok {
		return sr.Seq()
	}
	return 0
}
