//go:build unix

package pathsafe

import (
	"io/fs"
	"syscall"
)

const openNonblock = syscall.O_NONBLOCK

// links is the file's hard-link count (1 when unknown).
func links(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
