package tui

import (
	"runtime"
	"runtime/debug"
	"testing"
)

// TurnGC raises the collector's percent for a turn and restores it after.
func TestTurnGCRaisesThePercentForATurn(t *testing.T) {
	old := debug.SetGCPercent(35)
	defer debug.SetGCPercent(old)
	TurnGC(100)
	defer TurnGC(0)
	percent := func() int { p := debug.SetGCPercent(-1); debug.SetGCPercent(p); return p }
	a := &App{}
	a.gcForTurn()
	if p := percent(); p != 100 {
		t.Fatalf("during the turn: %d", p)
	}
	a.gcForTurn() // a second start before the end keeps what to restore
	a.gcAfterTurn()
	if p := percent(); p != 35 {
		t.Fatalf("after the turn: %d", p)
	}
	TurnGC(0)
	a.gcForTurn()
	if p := percent(); p != 35 {
		t.Fatalf("with TurnGC(0): %d", p)
	}
}

// TurnProcs runs a turn on n threads and the runtime's default after.
func TestTurnProcsForATurn(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0)) // as go test -cpu set it
	runtime.SetDefaultGOMAXPROCS()                  // what the chat starts with
	before := runtime.GOMAXPROCS(0)
	if before < 2 {
		t.Skip("one thread already")
	}
	TurnProcs(1)
	defer TurnProcs(0)
	a := &App{}
	a.gcForTurn()
	if n := runtime.GOMAXPROCS(0); n != 1 {
		t.Fatalf("during the turn: %d", n)
	}
	a.gcAfterTurn()
	if n := runtime.GOMAXPROCS(0); n != before {
		t.Fatalf("after the turn: %d, before it %d", n, before)
	}
}
