package tui

import (
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
