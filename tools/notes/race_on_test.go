//go:build race

package notes

const raceEnabled = true
