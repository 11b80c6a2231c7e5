//go:build race

package redact

// raceEnabled: the race detector slows everything; throughput floors are
// checked only without it.
const raceEnabled = true
