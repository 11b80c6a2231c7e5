//go:build !linux

package tui

// typedAhead is 0 where co does not read the terminal's input queue.
func typedAhead(any) int { return 0 }
