package agent

import (
	"strings"
	"sync"
)

// saved reports a failure to save, once per session, without stopping the
// conversation.
func (a *Agent) saved(e *emitter, err error) {
	if err == nil {
		return
	}
	a.mu.Lock()
	first := !a.recFailed
	a.recFailed = true
	a.mu.Unlock()
	if first && e != nil {
		e.send(Notice{Text: "Saving this session failed (" + err.Error() + "); the conversation goes on but may not be resumable."})
	}
}

// draftBuffer orders the agent's calls into its Recorder and, when a front
// end asked for it, holds streamed text until that front end is about to
// show it. Normally each chunk is saved as a draft as it arrives. The
// full-screen chat shows text only 15 times a second, so it calls
// DeferDrafts once and SyncDraft right before each frame: what it shows is
// still on disk first, in one append instead of one per chunk (a write
// per chunk was a twentieth of the chat's CPU for a streamed reply).
type draftBuffer struct {
	mu       sync.Mutex // held around every Recorder call
	deferred bool
	rec      Recorder // where pending goes
	pending  strings.Builder
	err      error // a deferred save failed; the turn reports it
}

// DeferDrafts makes the agent hold streamed text until SyncDraft, for a
// front end that shows text in frames and calls SyncDraft before each.
func (a *Agent) DeferDrafts() {
	a.drafts.mu.Lock()
	a.drafts.deferred = true
	a.drafts.mu.Unlock()
}

// SyncDraft saves the streamed text handed out so far (the events already
// sent), so that a front end which shows it next never shows unsaved text.
// It is safe to call from any goroutine, at any time.
func (a *Agent) SyncDraft() {
	a.drafts.mu.Lock()
	a.drafts.flush()
	a.drafts.mu.Unlock()
}

// flush writes the pending text; d.mu is held.
func (d *draftBuffer) flush() {
	if d.pending.Len() == 0 || d.rec == nil {
		return
	}
	if err := d.rec.Draft(d.pending.String()); err != nil && d.err == nil {
		d.err = err
	}
	d.pending.Reset()
}

// draft saves one streamed chunk, or holds it for SyncDraft. It runs on
// the turn goroutine before the chunk is sent as an event.
func (a *Agent) draft(e *emitter, rec Recorder, s string) {
	d := &a.drafts
	d.mu.Lock()
	var err error
	if d.deferred {
		if d.rec != rec {
			d.flush()
			d.rec = rec
		}
		d.pending.WriteString(s)
		err, d.err = d.err, nil
	} else {
		err = rec.Draft(s)
	}
	d.mu.Unlock()
	a.saved(e, err)
}

// endDrafts saves held text when a stream ends, in one append: the reply
// is saved as a message next, which replaces the draft, but its last
// chunks were handed out already and a frame may show them before then
// (dropping them broke "the draft holds what was handed out" in that
// window, TestDeferredDraftsHoldWhatWasHandedOut under load).
func (a *Agent) endDrafts(e *emitter) {
	d := &a.drafts
	d.mu.Lock()
	d.flush()
	d.rec = nil
	err := d.err
	d.err = nil
	d.mu.Unlock()
	a.saved(e, err)
}

// record makes one Recorder call, in order with deferred drafts (which
// may be saved from the front end's goroutine).
func (a *Agent) record(e *emitter, f func() error) {
	a.drafts.mu.Lock()
	err := f()
	a.drafts.mu.Unlock()
	a.saved(e, err)
}
