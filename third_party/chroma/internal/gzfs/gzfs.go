// Package gzfs serves gzip-compressed embedded files under their plain
// names (co patch): "x.xml" is read from "x.xml.gz", decompressed as it is
// read. chroma's ~260 lexer and ~70 style definitions take 2.4 MB as XML
// and 0.45 MB compressed, and a program's read-only data is resident in
// full on some kernels (large page-cache folios), so the difference is
// memory every co process pays.
package gzfs

import (
	"compress/gzip"
	"io/fs"
	"strings"
	"sync"
	"time"
)

// readers are reused: each holds a 32 KB window and tables, and loading
// the lexers opens some 250 files in a row.
var readers sync.Pool

// FS wraps an fs.FS whose regular files are all gzip-compressed with a
// ".gz" suffix.
type FS struct{ Base fs.FS }

// Open opens name, decompressing name+".gz".
func (f FS) Open(name string) (fs.File, error) {
	raw, err := f.Base.Open(name + ".gz")
	if err != nil {
		// Directories (and anything not compressed) pass through.
		return f.Base.Open(name)
	}
	zr, _ := readers.Get().(*gzip.Reader)
	if zr == nil {
		zr, err = gzip.NewReader(raw)
	} else {
		err = zr.Reset(raw)
	}
	if err != nil {
		raw.Close()
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return &file{raw: raw, zr: zr, name: name}, nil
}

// ReadDir lists a directory with the ".gz" suffixes removed.
func (f FS) ReadDir(name string) ([]fs.DirEntry, error) {
	ents, err := fs.ReadDir(f.Base, name)
	if err != nil {
		return nil, err
	}
	out := make([]fs.DirEntry, len(ents))
	for i, e := range ents {
		out[i] = entry{e}
	}
	return out, nil
}

type file struct {
	raw  fs.File
	zr   *gzip.Reader
	name string
}

func (f *file) Read(p []byte) (int, error) {
	if f.zr == nil {
		return 0, fs.ErrClosed
	}
	return f.zr.Read(p)
}
func (f *file) Close() error {
	if f.zr != nil {
		f.zr.Close()
		readers.Put(f.zr)
		f.zr = nil
	}
	return f.raw.Close()
}

// Stat describes the file by its plain name; its size is unknown until
// read, so it is reported as 0 (fs.ReadFile only uses it as a hint).
func (f *file) Stat() (fs.FileInfo, error) { return info{name: f.name}, nil }

type info struct{ name string }

func (i info) Name() string {
	if j := strings.LastIndexByte(i.name, '/'); j >= 0 {
		return i.name[j+1:]
	}
	return i.name
}
func (i info) Size() int64        { return 0 }
func (i info) Mode() fs.FileMode  { return 0o444 }
func (i info) ModTime() time.Time { return time.Time{} }
func (i info) IsDir() bool        { return false }
func (i info) Sys() any           { return nil }

type entry struct{ fs.DirEntry }

func (e entry) Name() string { return strings.TrimSuffix(e.DirEntry.Name(), ".gz") }
func (e entry) Info() (fs.FileInfo, error) {
	if e.IsDir() {
		return e.DirEntry.Info()
	}
	return info{name: e.Name()}, nil
}
