package tui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	xansi "github.com/charmbracelet/x/ansi"

	"github.com/co-cli/co/lib/safe"
	"github.com/co-cli/co/ui/present"
)

// StatusInfo is what the status bar shows; the root model fills it from
// the agent in Update.
type StatusInfo struct {
	Provider, Model string
	// Reported is the model the server said answered, when it differs
	// from Model (an alias such as gemini-flash-latest).
	Reported    string
	Resolving   bool // the provider is still being worked out
	NoProvider  bool // no provider is usable
	Isolation   string
	Unsandboxed bool
	// Untrusted is the first untrusted source in the conversation and
	// UntrustedN how many there are: outbound calls ask while it shows.
	Untrusted     string
	UntrustedN    int
	Yolo          bool
	YoloUses      int           // calls yolo may still approve
	YoloLeft      time.Duration // until yolo turns itself off
	Grants        int
	TurnTokens    int
	SessionTokens int
	// SessionCost is what the session has cost so far ("$0.0123", with
	// "+" when some calls had no price); "" shows none (nothing priced
	// spent yet, or a local model).
	SessionCost string
	Queued      int
	MouseOff    bool
	// Waiting is set while the approval modal waits for the user: the
	// turn is not thinking then, it is waiting on them.
	Waiting bool
	// Form is set while an MCP server's form waits for the user.
	Form bool
	// Activity, when set, is what the turn waits on instead of the model
	// ("starting the sandbox…").
	Activity string
}

// StatusBar is the bottom line: provider and model, sandbox isolation (an
// UNSANDBOXED badge that never goes away when commands run without
// isolation), yolo and grants, tokens, and a spinner with elapsed time
// while a turn runs.
type StatusBar struct {
	th     *Theme
	info   StatusInfo
	frame  int       // the spinner's frame
	framed time.Time // when the spinner last moved
	// streamed is when streamed text was last framed (Frame).
	streamed time.Time
	tickID   int
	busy     bool
	started  time.Time
	now      time.Time
	flash    string
	width    int
	view     string
}

// spinFrames and spinInterval are the spinner: eight frames a second,
// enough to show that something is alive; every frame is a repaint.
var spinFrames = [...]string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

const spinInterval = 125 * time.Millisecond

// spinTickMsg moves the spinner of the status bar whose tick is ID.
type spinTickMsg struct{ ID int }

// NewStatusBar makes the status bar.
func NewStatusBar(th *Theme) *StatusBar { return &StatusBar{th: th} }

// SetWidth sets the bar's width.
func (s *StatusBar) SetWidth(w int) { s.width = w; s.refresh() }

// SetInfo replaces what the bar shows.
func (s *StatusBar) SetInfo(i StatusInfo) {
	if i != s.info {
		s.info = i
		s.refresh()
	}
}

// Info is what the bar shows.
func (s *StatusBar) Info() StatusInfo { return s.info }

// Flash shows a message in place of the hints ("" clears it).
func (s *StatusBar) Flash(msg string) { s.flash = msg; s.refresh() }

// Start shows the spinner from now; it returns the spinner's first tick.
func (s *StatusBar) Start(now time.Time) tea.Cmd {
	s.busy, s.started, s.now, s.framed = true, now, now, now
	s.tickID++
	s.refresh()
	return s.tick()
}

func (s *StatusBar) tick() tea.Cmd {
	id := s.tickID
	return tea.Tick(spinInterval, func(time.Time) tea.Msg { return spinTickMsg{ID: id} })
}

// Stop hides the spinner.
func (s *StatusBar) Stop() { s.busy = false; s.refresh() }

// Busy reports whether the spinner runs.
func (s *StatusBar) Busy() bool { return s.busy }

// Update advances the spinner on its tick; ticks stop when the turn ends.
// moved reports whether the spinner moved (Frame).
func (s *StatusBar) Update(msg spinTickMsg, now time.Time) (cmd tea.Cmd, moved bool) {
	if !s.busy || msg.ID != s.tickID {
		return nil, false
	}
	if now.Sub(s.streamed) < frameInterval+pollInterval {
		// Text is streaming: its next frame, due within this, moves the
		// spinner (Frame), so the tick does not repaint between them.
		return s.tick(), false
	}
	return s.tick(), s.move(now, spinInterval-5*time.Millisecond)
}

// Frame moves the spinner and the elapsed time if their interval has
// passed, and reports whether it did. The root calls it on every frame it
// draws anyway (streamed text), so while a reply streams the spinner
// moves with the text and its own ticks repaint nothing; the other
// running clocks on screen (the side panel's spans, running tools) move
// when the spinner does (App.clocks), so they too repaint with the text.
//
// While text streams, ticks leave the spinner to the text's frames; it
// moves on the first frame at least streamSpin after its last move: two
// frames of 66 ms apart, about as often as its own ticks would move it.
func (s *StatusBar) Frame(now time.Time) bool {
	s.streamed = now
	return s.move(now, streamSpin)
}

// streamSpin is the least time between two moves of the spinner on
// streamed frames (Frame).
const streamSpin = spinInterval - frameInterval/2

// move moves the spinner if at least least has passed since it last did.
func (s *StatusBar) move(now time.Time, least time.Duration) bool {
	if !s.busy || now.Sub(s.framed) < least {
		return false
	}
	s.frame = (s.frame + 1) % len(spinFrames)
	s.framed, s.now = now, now
	s.refresh()
	return true
}

// View draws the bar.
func (s *StatusBar) View() string { return s.view }

func (s *StatusBar) refresh() {
	if s.width <= 0 {
		s.view = ""
		return
	}
	th, in := s.th, s.info
	base := th.Status
	seg := func(t string) string { return base.Render(" " + t + " ") }
	var provider, badge, yolo, grants, risk string
	switch {
	case in.Resolving:
		provider = seg("provider: checking…")
	case in.NoProvider:
		provider = th.Badge.Render(" NO PROVIDER ")
	default:
		m := safe.Text(in.Model)
		if in.Reported != "" {
			m += " → " + safe.Text(in.Reported)
		}
		provider = seg(safe.Text(in.Provider) + " · " + m)
	}
	if in.Unsandboxed {
		badge = th.Badge.Render(" UNSANDBOXED ")
	} else if in.Isolation != "" {
		badge = th.BadgeOK.Render(" sandbox: " + safe.Text(in.Isolation) + " ")
	}
	if in.UntrustedN > 0 {
		r := " UNTRUSTED: " + safe.Text(truncate(in.Untrusted, 32))
		if in.UntrustedN > 1 {
			r += fmt.Sprintf(" +%d", in.UntrustedN-1)
		}
		risk = th.Badge.Render(r + " ")
	}
	if in.Yolo {
		y := " YOLO "
		if in.YoloUses > 0 { // what is left before it turns itself off
			y = fmt.Sprintf(" YOLO %d · %dm ", in.YoloUses, int((in.YoloLeft+time.Minute-1)/time.Minute))
		}
		yolo = th.Yolo.Render(y)
	}
	if in.Grants > 0 {
		g := "grant"
		if in.Grants > 1 {
			g = "grants"
		}
		grants = seg(fmt.Sprintf("%d %s", in.Grants, g))
	}
	tokens := fmt.Sprintf("tokens %s turn · %s session", present.Tokens(in.TurnTokens), present.Tokens(in.SessionTokens))
	if in.SessionCost != "" {
		tokens += " · " + in.SessionCost
	}
	tokens = seg(tokens)

	var rightText string
	rightStyle := base
	hint := false
	switch {
	case s.flash != "":
		rightText, rightStyle = s.flash, th.Warn.Inherit(base)
	case s.busy && in.Form:
		rightText, rightStyle = "? waiting for your answer to a form", th.Warn.Inherit(base)
	case s.busy && in.Waiting:
		rightText, rightStyle = "? waiting for your approval", th.Warn.Inherit(base)
	case s.busy && in.Activity != "":
		rightText = spinFrames[s.frame] + " " + in.Activity + " " + present.Duration(s.now.Sub(s.started))
	case s.busy:
		rightText = spinFrames[s.frame] + " Co is thinking… " + present.Duration(s.now.Sub(s.started))
	case in.MouseOff:
		rightText = "mouse released · f2 to capture"
	case s.width < sidePanelNarrowMin: // no room for the panel: Ctrl+T opens nothing
		rightText, hint = "/help", true
	default:
		rightText, hint = "/help · ctrl+t spans", true
	}
	queued := ""
	if in.Queued > 0 {
		queued = seg(fmt.Sprintf("%d queued", in.Queued))
	}
	right := queued + rightStyle.Render(" "+rightText+" ")

	// Drop the least important segments until the bar fits; the
	// UNSANDBOXED and UNTRUSTED badges and YOLO stay.
	l := provider + badge + risk + yolo + grants + tokens
	if hint && xansi.StringWidth(l)+xansi.StringWidth(right) > s.width {
		right = "" // the hint goes first
	}
	for _, shorter := range []string{provider + badge + risk + yolo + grants, provider + badge + risk + yolo, badge + risk + yolo} {
		if xansi.StringWidth(l)+xansi.StringWidth(right) <= s.width {
			break
		}
		l = shorter
	}
	if room := s.width - xansi.StringWidth(l) - xansi.StringWidth(queued); right != "" && xansi.StringWidth(right) > room && room > 8 {
		// What is going on now loses its padding, then its end (…): the
		// badges stay, and a plain cut hid the end of "waiting for your
		// approval" in a 40-column terminal.
		right = queued + rightStyle.Render(truncate(rightText, room))
	}
	gap := s.width - xansi.StringWidth(l) - xansi.StringWidth(right)
	if gap < 0 {
		s.view = xansi.Truncate(l+right, s.width, "")
		return
	}
	s.view = l + base.Render(strings.Repeat(" ", gap)) + right
}
