//go:build !race

package notes

const raceEnabled = false
