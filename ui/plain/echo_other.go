//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package plain

// echoOff cannot turn the echo off here; the key is read as typed.
func echoOff(int) (restore func()) { return func() {} }
