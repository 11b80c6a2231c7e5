package agent

import "github.com/co-cli/co/message"

// Compactions saved, and a resumed conversation shown whole.
//
// When the history is compacted (summarising, /compact) the recorder is
// given the history as compacted, so that a resumed conversation starts
// from it: without it, resuming sent every saved message and the first
// turn summarised them all in one request. A front end shows a resumed
// conversation as it was saved (Shown), every message included, while
// History holds what the model is sent.

// CompactionRecorder is a Recorder that also saves compactions
// (sessions.Session is one).
type CompactionRecorder interface {
	// Compacted saves history, the history as just compacted: every
	// message in it was in the history before (and saved with Append)
	// but the summary and its acknowledgement.
	Compacted(history []message.Message) error
}

// saveCompaction saves the history as just compacted, then x, the notice
// that says so, in its place; it returns the recorder's error.
func (a *Agent) saveCompaction(e *emitter, x message.Aside) error {
	a.mu.Lock()
	h := append([]message.Message(nil), a.history...)
	rec := a.rec
	a.shown = nil // the saved view no longer matches the history
	a.mu.Unlock()
	if rec == nil {
		return nil
	}
	var err error
	a.record(e, func() error {
		if c, ok := rec.(CompactionRecorder); ok {
			if err = c.Compacted(h); err != nil {
				return err
			}
		}
		err = rec.Aside(x)
		return err
	})
	return err
}

// shownState is a restored conversation as saved: every message and aside
// (asides placed in msgs), and the length of History and Asides when it
// was restored, after which what the conversation adds follows.
type shownState struct {
	msgs       []message.Message
	asides     []message.Aside
	from, xsAt int
}

// RestoreShown gives a restored conversation (Restore, RestoreAsides) what
// it showed when it was saved: all its messages and asides, asides placed
// in msgs. A front end shows them (Shown) while History is what a saved
// compaction left.
func (a *Agent) RestoreShown(msgs []message.Message, asides []message.Aside) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.shown = &shownState{msgs: msgs, asides: asides, from: len(a.history), xsAt: len(a.asides)}
}

// Shown is the conversation as a front end shows it, asides placed in its
// messages: History and Asides, or, for a conversation given RestoreShown,
// every message it saved and what it added since, until the history is
// compacted or replaced.
func (a *Agent) Shown() ([]message.Message, []message.Aside) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.shown
	if s == nil || len(a.history) < s.from || len(a.asides) < s.xsAt {
		return append([]message.Message(nil), a.history...), append([]message.Aside(nil), a.asides...)
	}
	msgs := append(append([]message.Message(nil), s.msgs...), a.history[s.from:]...)
	xs := append([]message.Aside(nil), s.asides...)
	for _, x := range a.asides[s.xsAt:] {
		x.After += len(s.msgs) - s.from
		xs = append(xs, x)
	}
	return msgs, xs
}
