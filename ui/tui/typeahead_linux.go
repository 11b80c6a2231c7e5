package tui

import (
	"os"

	"golang.org/x/sys/unix"
)

// typedAhead is how many bytes of whole lines wait in in's input queue
// (TIOCINQ counts complete lines in canonical mode: man 2 ioctl_tty); 0
// when in is not a terminal.
func typedAhead(in any) int {
	f, ok := in.(*os.File)
	if !ok {
		return 0
	}
	n, err := unix.IoctlGetInt(int(f.Fd()), unix.TIOCINQ)
	if err != nil || n < 0 {
		return 0
	}
	return n
}
