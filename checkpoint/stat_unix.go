//go:build unix

package checkpoint

import (
	"io/fs"
	"syscall"
)

// entryOf is fi as an Entry with its stat, nil for what is not recorded.
func entryOf(fi fs.FileInfo) *Entry {
	e := &Entry{Mode: fi.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)}
	switch {
	case fi.Mode().IsRegular():
		e.Type, e.Size = TypeFile, fi.Size()
	case fi.IsDir():
		e.Type = TypeDir
	case fi.Mode()&fs.ModeSymlink != 0:
		e.Type = TypeSymlink
	default:
		return nil
	}
	e.Mtime = fi.ModTime().UnixNano()
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		e.UID, e.GID, e.Ino = int(st.Uid), int(st.Gid), uint64(st.Ino)
		e.Ctime = ctime(st)
	}
	if e.Type == TypeDir {
		e.Mtime, e.Ctime = 0, 0 // a folder's times change with its contents: not compared
	}
	return e
}

// diskSize is the room fi takes on disk (its blocks), at least its size.
func diskSize(fi fs.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Blocks*512 > fi.Size() {
		return int64(st.Blocks) * 512
	}
	return fi.Size()
}
