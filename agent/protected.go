package agent

import (
	"context"
	"fmt"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/co-cli/co/message"
)

// ProtectedWatch checks the workspace's protected paths again, beside the sandbox's check
// around each command (sandbox.Watch, given by internal/app): the baseline at the start of a
// turn, a check before every model request and at the end of the turn, and calls that may
// change protected paths with the user's approval marked as such.
type ProtectedWatch interface {
	// TurnStarted takes the turn's baseline and returns what changed since the last turn
	// ended, left as it is (maybe the user's own edit).
	TurnStarted() []ProtectedChange
	// Check undoes and returns what changed since the baseline that no approved call made.
	Check() []ProtectedChange
	// TurnEnded is Check for the end of the turn.
	TurnEnded() []ProtectedChange
	// BeginApproved and EndApproved enclose a call the user approved that may change
	// protected paths: what it changes is its own.
	BeginApproved()
	EndApproved()
}

// ProtectedChange is one change to a protected path that no approved call made.
type ProtectedChange struct {
	Path   string // relative to the workspace; a folder ends in "/"
	Change string // created, changed, deleted, replaced, …
	Reason string // why the path is protected
	Files  int    // entries of a folder created or deleted whole
	// Failed says why co did not undo it ("" when it did).
	Failed string
}

// When a check ran, for its notice and span.
const (
	CheckTurnStart = "turn start"
	CheckTurnEnd   = "turn end"
	CheckExit      = "exit"
)

// ProtectedNotice is the warning that names the protected paths cs changed, found at when
// ("before request 2", CheckTurnEnd, …): what co undid and what it left.
func ProtectedNotice(when string, cs []ProtectedChange) string {
	var undone, left, blind []ProtectedChange
	for _, c := range cs {
		switch {
		case c.Change == "unreadable":
			blind = append(blind, c)
		case c.Failed == "":
			undone = append(undone, c)
		default:
			left = append(left, c)
		}
	}
	const maxItems = 12
	var b strings.Builder
	list := func(cs []ProtectedChange, withFailed bool) {
		for i, c := range cs {
			if i == maxItems {
				fmt.Fprintf(&b, "\n  - … and %d more", len(cs)-maxItems)
				break
			}
			b.WriteString("\n  - " + c.Path + " (" + c.Change)
			if c.Files > 0 {
				fmt.Fprintf(&b, ", with %d entries in it", c.Files)
			}
			b.WriteString(")")
			if c.Reason != "" {
				b.WriteString(": " + c.Reason)
			}
			if withFailed {
				b.WriteString(" — not undone: " + c.Failed)
			}
		}
	}
	if len(undone) > 0 {
		fmt.Fprintf(&b, "warning: protected files were changed by something co ran, not by a call you approved (found at %s); co undid it:", when)
		list(undone, false)
	}
	if len(left) > 0 {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "warning: protected files changed (found at %s):", when)
		list(left, true)
	}
	if len(blind) > 0 {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString("warning: co cannot read these folders, so it cannot see protected files made in them:")
		for _, c := range blind {
			b.WriteString(" " + c.Path)
		}
	}
	return b.String()
}

// TraceProtected records a check that found changes as a protected_check span: the paths,
// how each changed, which were left.
func TraceProtected(ctx context.Context, tracer trace.Tracer, sessionID, when string, cs []ProtectedChange) {
	if len(cs) == 0 {
		return
	}
	var paths, changes, left []string
	for _, c := range cs {
		paths = append(paths, c.Path)
		changes = append(changes, c.Path+": "+c.Change)
		if c.Failed != "" {
			left = append(left, c.Path+": "+c.Failed)
		}
	}
	_, span := tracer.Start(ctx, "protected_check", trace.WithAttributes(
		attribute.String("co.session.id", sessionID),
		attribute.String("co.protected.when", when),
		attribute.StringSlice("co.protected.paths", paths),
		attribute.StringSlice("co.protected.changes", changes),
	))
	if len(left) > 0 {
		span.SetAttributes(attribute.StringSlice("co.protected.left", left))
	}
	span.SetStatus(codes.Error, "protected files changed by no approved call")
	span.End()
}

// recheck runs one of the watch's checks and tells what it found: a Notice and a span.
func (a *Agent) recheck(ctx context.Context, e *emitter, when string, check func() []ProtectedChange) {
	cs := check()
	if len(cs) == 0 {
		return
	}
	TraceProtected(ctx, a.tracer, a.SessionID(), when, cs)
	e.send(Notice{Text: ProtectedNotice(when, cs), Protected: cs})
}

// watchTurn starts the watch's turn for the events of e: the baseline now (what changed since
// the last turn is told, left as it is), the last check before the turn's final event. It
// returns what to call when the turn's goroutine ends, to close the watch's turn in any case.
func (a *Agent) watchTurn(ctx context.Context, e *emitter) (done func()) {
	w := a.cfg.Protected
	if w == nil {
		return func() {}
	}
	a.recheck(ctx, e, CheckTurnStart, w.TurnStarted)
	ended := false
	e.beforeEnd = func() {
		ended = true
		a.recheck(ctx, e, CheckTurnEnd, w.TurnEnded)
	}
	return func() {
		if !ended {
			w.TurnEnded()
		}
	}
}

// mayChangeProtected says whether a call's changes to protected paths are its own: the user
// answered it, and it always asks (a write to a protected path does; so does an MCP call
// whose arguments name one).
func mayChangeProtected(it *callItem) bool {
	return it.by == message.ByUser && it.check.AlwaysAsk
}
