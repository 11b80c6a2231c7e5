package tui

import (
	"fmt"
	"runtime/debug"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/provider"
	"github.com/co-cli/co/telemetry"
	"github.com/co-cli/co/tools"
	"github.com/co-cli/co/ui/present"
)

// frameInterval is how often streamed text reaches the model at most
// (15 times a second): deltas arriving in between are joined. Each frame
// costs a markdown render of the reply's tail, a repaint and several
// wake-ups, so fewer frames is less CPU for the same text on screen; 15
// a second still reads as smooth streaming (a frame carries about a line
// of text at typical model speeds).
const frameInterval = 66 * time.Millisecond

// pollInterval is how long the pump sleeps between looks at the agent's
// channel while text waits for its frame.
const pollInterval = 20 * time.Millisecond

// bulkBytes of text between two polls mean a reply is arriving faster
// than it streams (its end is near): the next poll comes after
// bulkPollInterval and frames go out every bulkFrameInterval, so the
// reply's blocks are rendered while the rest arrives, not all at its end.
const (
	bulkBytes         = 512
	bulkPollInterval  = 4 * time.Millisecond
	bulkFrameInterval = 16 * time.Millisecond
)

// agentEventMsg is one event of turn Turn.
type agentEventMsg struct {
	Turn  int
	Event agent.Event
}

// turnClosedMsg says turn Turn's event channel is closed: the agent is
// idle again.
type turnClosedMsg struct{ Turn int }

// spanMsg is a span from the telemetry feed.
type spanMsg struct{ Span telemetry.SpanEvent }

// providerMsg says provider resolution finished.
type providerMsg struct {
	Provider provider.Provider
	Note     string
	Err      error
}

// notesMsg carries the start-up notes (Options.Notes).
type notesMsg struct{ Notes []string }

// backgroundMsg carries one note from outside any turn (Options.Background).
type backgroundMsg struct{ Note present.Note }

// readBackground is the command that waits for the next background note.
func readBackground(ch <-chan present.Note) tea.Cmd {
	return func() tea.Msg {
		n, ok := <-ch
		if !ok {
			return nil
		}
		return backgroundMsg{Note: n}
	}
}

// panicMsg reports a panic recovered in a command.
type panicMsg struct{ Err string }

// pump reads one turn's events in its own goroutine and hands them to the
// program one message at a time: text deltas (and reasoning deltas, apart
// from them) are joined so at most about
// 15 reach the model per second; every other event passes alone and in
// order. The program pulls with next, a command re-issued after each
// message (the Bubble Tea pattern for reading a channel).
type pump struct {
	turn int
	out  chan tea.Msg
	done <-chan struct{} // the program ended: stop handing out messages
	// save, when set, saves the streamed text handed out so far as the
	// session's draft (agent.SyncDraft): it runs before each frame of
	// text goes out, so what is shown is on disk first.
	save func()
}

func newPump(turn int, in <-chan agent.Event, done <-chan struct{}, save func()) *pump {
	p := &pump{turn: turn, out: make(chan tea.Msg), done: done, save: save}
	go p.run(in)
	return p
}

// send hands msg to the program, or gives up when it has ended.
func (p *pump) send(msg tea.Msg) bool {
	select {
	case p.out <- msg:
		return true
	case <-p.done:
		return false
	}
}

func (p *pump) run(in <-chan agent.Event) {
	defer func() {
		if r := recover(); r != nil {
			p.send(panicMsg{Err: fmt.Sprintf("reading the agent's events panicked: %v\n%s", r, debug.Stack())})
		}
		close(p.out)
	}()
	var (
		text   strings.Builder
		think  bool      // text holds reasoning, not reply text
		last   time.Time // when text last went out
		polled int       // text.Len() at the last poll
		every  = frameInterval
	)
	flush := func() bool {
		if text.Len() == 0 {
			return true
		}
		if p.save != nil {
			p.save()
		}
		var ev agent.Event = agent.TextDelta{Text: text.String()}
		if think {
			ev = agent.ReasoningDelta{Text: text.String()}
		}
		ok := p.send(agentEventMsg{Turn: p.turn, Event: ev})
		text.Reset()
		polled = 0
		last = time.Now()
		return ok
	}
	for {
		var ev agent.Event
		var ok bool
		select {
		case ev, ok = <-in:
		default:
			since := time.Since(last)
			if text.Len() == 0 && since >= every {
				every = frameInterval
				ev, ok = <-in // not streaming: wait for the agent
				break
			}
			// Streaming: sleep rather than wake up for each delta. A fast
			// stream then wakes this goroutine a few times per frame, and
			// what arrives meanwhile sits in the agent's channel (which
			// coalesces deltas when it fills). Other events wait at most
			// pollInterval.
			if since >= every {
				if !flush() {
					drain(in)
					return
				}
				continue
			}
			// Text arriving in bulk (a reply sent faster than it streams)
			// means the turn is about to end: look again sooner and show
			// it in smaller frames, so its end reaches the screen without
			// waiting out a poll or rendering the whole reply at once.
			poll := pollInterval
			every = frameInterval
			if text.Len()-polled >= bulkBytes {
				poll, every = bulkPollInterval, bulkFrameInterval
			}
			polled = text.Len()
			time.Sleep(max(0, min(every-since, poll)))
			continue
		}
		if !ok {
			flush()
			p.send(turnClosedMsg{Turn: p.turn})
			return
		}
		var piece string
		isText, isThink := false, false
		switch d := ev.(type) {
		case agent.TextDelta:
			piece, isText = d.Text, true
		case agent.ReasoningDelta:
			piece, isText, isThink = d.Text, true, true
		}
		if isText {
			// Reasoning and reply text are joined apart: a change of kind
			// sends what is pending first.
			if isThink != think && text.Len() > 0 && !flush() {
				drain(in)
				return
			}
			think = isThink
			text.WriteString(piece)
			if time.Since(last) >= every && !flush() {
				drain(in)
				return
			}
			continue
		}
		if !flush() || !p.send(agentEventMsg{Turn: p.turn, Event: ev}) {
			drain(in)
			return
		}
	}
}

// drain reads in to its end so the agent never blocks on a reader that
// has gone (it was cancelled with the program's context).
func drain(in <-chan agent.Event) {
	for ev := range in {
		switch r := ev.(type) {
		case agent.ApprovalRequested:
			r.Reply(nil)
		case agent.FormRequested:
			r.Reply(tools.FormAnswer{Action: tools.FormCancel})
		}
	}
}

// next is the command that waits for the turn's next message.
func (p *pump) next() tea.Msg {
	msg, ok := <-p.out
	if !ok {
		return nil
	}
	return msg
}

// readFeed is the command that waits for the next span.
func readFeed(ch <-chan telemetry.SpanEvent) tea.Cmd {
	return func() tea.Msg {
		ev, ok := <-ch
		if !ok {
			return nil
		}
		return spanMsg{Span: ev}
	}
}

// safeCmd runs cmd, turning a panic into a panicMsg shown in the chat.
func safeCmd(cmd tea.Cmd) tea.Cmd {
	if cmd == nil {
		return nil
	}
	return func() (msg tea.Msg) {
		defer func() {
			if r := recover(); r != nil {
				msg = panicMsg{Err: fmt.Sprintf("%v\n%s", r, debug.Stack())}
			}
		}()
		return cmd()
	}
}
