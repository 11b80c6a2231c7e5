package agent

import (
	"strings"
	"sync"
)

// emitter delivers a turn's events. Text and reasoning deltas that cannot
// be delivered at once are coalesced into the next delivery of their kind;
// any other event (or a delta of the other kind) first delivers the pending
// text, blocking, so that order is kept. A tool's form (FormRequested)
// is sent from another goroutine than the turn's: mu orders them.
type emitter struct {
	mu          sync.Mutex
	ch          chan Event
	pending     strings.Builder
	pendingKind int // kindText or kindReasoning, when pending is not empty
	// beforeEnd, when set, runs once before the turn's final event (TurnFinished or
	// TurnFailed), on the turn's goroutine: the last check of the protected paths.
	beforeEnd func()
}

const (
	kindText = iota
	kindReasoning
)

func newEmitter() *emitter { return &emitter{ch: make(chan Event, 64)} }

func makeDelta(kind int, s string) Event {
	if kind == kindReasoning {
		return ReasoningDelta{Text: s}
	}
	return TextDelta{Text: s}
}

func (e *emitter) delta(s string)     { e.piece(kindText, s) }
func (e *emitter) reasoning(s string) { e.piece(kindReasoning, s) }

func (e *emitter) piece(kind int, s string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.pending.Len() > 0 && e.pendingKind != kind {
		e.flush()
	}
	if e.pending.Len() > 0 {
		e.pending.WriteString(s)
		select {
		case e.ch <- makeDelta(kind, e.pending.String()):
			e.pending.Reset()
		default:
		}
		return
	}
	select {
	case e.ch <- makeDelta(kind, s):
	default:
		e.pending.WriteString(s)
		e.pendingKind = kind
	}
}

// flush delivers the pending text, blocking; e.mu held.
func (e *emitter) flush() {
	if e.pending.Len() > 0 {
		e.ch <- makeDelta(e.pendingKind, e.pending.String())
		e.pending.Reset()
	}
}

func (e *emitter) send(ev Event) {
	if final(ev) && e.beforeEnd != nil {
		f := e.beforeEnd
		e.beforeEnd = nil
		f()
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.flush()
	e.ch <- ev
}

func (e *emitter) close() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.flush()
	close(e.ch)
}

func final(ev Event) bool {
	switch ev.(type) {
	case TurnFinished, TurnFailed:
		return true
	}
	return false
}
