//go:build linux || darwin || freebsd || netbsd || openbsd

package plain

import "golang.org/x/sys/unix"

// echoOff clears ECHO on the terminal fd (canonical line editing stays on,
// so the reader goroutine still gets one line); restore sets it back.
func echoOff(fd int) (restore func()) {
	t, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	if err != nil {
		return func() {}
	}
	old := *t
	t.Lflag &^= unix.ECHO
	if unix.IoctlSetTermios(fd, ioctlSetTermios, t) != nil {
		return func() {}
	}
	return func() { _ = unix.IoctlSetTermios(fd, ioctlSetTermios, &old) }
}
