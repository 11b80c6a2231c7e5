package tui

import (
	"runtime/debug"
	"sync/atomic"
)

// turnGC is the collector's percent while a turn runs (TurnGC); 0 leaves
// the collector alone.
var turnGC atomic.Int32

// TurnGC has the chat collect at percent (debug.SetGCPercent) while a
// turn runs and at the percent it found between turns; 0 (the default,
// and what tests see) leaves the collector alone. A streamed reply
// allocates fast, rendering its markdown frame after frame, while the
// chat keeps little live memory between turns: a collector tuned for the
// idle footprint (internal/cli/fullscreen.go) collects several times a
// second while text streams, and each collection scans the program's
// roots whatever the heap's size. Set before the chat starts.
func TurnGC(percent int) { turnGC.Store(int32(percent)) }

// turnGCState is what the App knows of the collector's setting.
type turnGCState struct {
	raised bool
	before int // the percent to restore when the turn ends
}

// gcForTurn raises the collector's percent as a turn starts (TurnGC).
func (a *App) gcForTurn() {
	if p := int(turnGC.Load()); p > 0 && !a.gc.raised {
		a.gc.before, a.gc.raised = debug.SetGCPercent(p), true
	}
}

// gcAfterTurn restores the collector's percent once the turn is over.
func (a *App) gcAfterTurn() {
	if a.gc.raised {
		debug.SetGCPercent(a.gc.before)
		a.gc.raised = false
	}
}
