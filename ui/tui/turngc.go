package tui

import (
	"runtime"
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
// roots (globals, goroutine stacks) whatever the heap's size. Set before
// the chat starts.
func TurnGC(percent int) { turnGC.Store(int32(percent)) }

// turnProcs is GOMAXPROCS while a turn runs (TurnProcs); 0 leaves it.
var turnProcs atomic.Int32

// TurnProcs runs the chat's Go code on at most n threads at once
// (runtime.GOMAXPROCS) while a turn runs, and on the runtime's default
// between turns; 0 (the default, and what tests see) leaves it alone.
// While a reply streams, the chat's goroutines (the stream's reader, the
// pump, the model, the renderer and Bubble Tea's commands) wake each
// other hundreds of times a second, each for microseconds: with more
// threads than that work needs, each wake-up also wakes an idle thread to
// look for work that is not there. Set before the chat starts.
func TurnProcs(n int) { turnProcs.Store(int32(n)) }

// turnGCState is what the App knows of the runtime's settings.
type turnGCState struct {
	raised bool
	before int // the percent to restore when the turn ends
	procs  bool
}

// gcForTurn raises the collector's percent as a turn starts (TurnGC)
// and lowers GOMAXPROCS (TurnProcs).
func (a *App) gcForTurn() {
	if p := int(turnGC.Load()); p > 0 && !a.gc.raised {
		a.gc.before, a.gc.raised = debug.SetGCPercent(p), true
	}
	if n := int(turnProcs.Load()); n > 0 && !a.gc.procs && runtime.GOMAXPROCS(0) > n {
		runtime.GOMAXPROCS(n)
		a.gc.procs = true
	}
}

// gcAfterTurn restores both once the turn is over.
func (a *App) gcAfterTurn() {
	if a.gc.raised {
		debug.SetGCPercent(a.gc.before)
		a.gc.raised = false
	}
	if a.gc.procs {
		runtime.SetDefaultGOMAXPROCS()
		a.gc.procs = false
	}
}
