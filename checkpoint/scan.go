package checkpoint

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Type is an entry's kind.
type Type uint8

const (
	TypeFile Type = iota + 1
	TypeDir
	TypeSymlink
)

// racyWindow is how close to a scan's start an mtime or ctime must be for
// the entry to be hashed again at the next scan whatever its stat says:
// wider than any filesystem's timestamp tick (FAT's 2 s included).
const racyWindow = 2 * time.Second

// Entry is one file, folder or symlink as a scan saw it.
type Entry struct {
	Type   Type        `json:"type"`
	Mode   fs.FileMode `json:"mode"` // permission and special bits
	UID    int         `json:"uid"`
	GID    int         `json:"gid"`
	Size   int64       `json:"size,omitempty"`
	Hash   string      `json:"hash,omitempty"`   // a file's SHA-256; a symlink's target
	Stored bool        `json:"stored,omitempty"` // a file's content is in the store

	// Stat, compared to decide whether to hash again.
	Mtime int64  `json:"-"`
	Ctime int64  `json:"-"`
	Ino   uint64 `json:"-"`
	Racy  bool   `json:"-"`
}

// scan is the workspace at one moment.
type scan struct {
	start   time.Time
	entries map[string]*Entry
	dirty   bool // an entry was hashed (the index on disk is stale)
}

// indexMagic starts the index file; a file without it is not read.
const indexMagic = "co-checkpoint-index 1\n"

// The index is a list of entries, each its path and fields as varints
// and length-prefixed strings: written once per turn that hashed anything,
// a few MB for 20,000 files, so it is kept simple and allocation-free.
func (s *Store) loadIndex() *scan {
	empty := &scan{entries: map[string]*Entry{}}
	b, err := os.ReadFile(filepath.Join(s.dir, "index"))
	if err != nil || !bytes.HasPrefix(b, []byte(indexMagic)) {
		return empty // a cache: every file is hashed again
	}
	r := indexReader{b: b[len(indexMagic):]}
	n := r.uint()
	sc := &scan{entries: make(map[string]*Entry, min(n, 1<<20))}
	for range n {
		p := r.str()
		e := &Entry{Type: Type(r.uint()), Mode: fs.FileMode(r.uint()), UID: int(r.uint()), GID: int(r.uint()),
			Size: int64(r.uint()), Hash: r.str(), Stored: r.uint() == 1,
			Mtime: int64(r.uint()), Ctime: int64(r.uint()), Ino: r.uint(), Racy: r.uint() == 1}
		if r.bad {
			return empty
		}
		sc.entries[p] = e
	}
	return sc
}

func (s *Store) saveIndex(sc *scan) error {
	b := make([]byte, 0, 64+len(sc.entries)*128)
	b = append(b, indexMagic...)
	b = binary.AppendUvarint(b, uint64(len(sc.entries)))
	str := func(v string) {
		b = binary.AppendUvarint(b, uint64(len(v)))
		b = append(b, v...)
	}
	flag := func(v bool) uint64 {
		if v {
			return 1
		}
		return 0
	}
	for p, e := range sc.entries {
		str(p)
		for _, v := range []uint64{uint64(e.Type), uint64(e.Mode), uint64(e.UID), uint64(e.GID), uint64(e.Size)} {
			b = binary.AppendUvarint(b, v)
		}
		str(e.Hash)
		for _, v := range []uint64{flag(e.Stored), uint64(e.Mtime), uint64(e.Ctime), e.Ino, flag(e.Racy)} {
			b = binary.AppendUvarint(b, v)
		}
	}
	return writeFileAtomic(filepath.Join(s.dir, "index"), b, false)
}

type indexReader struct {
	b   []byte
	bad bool
}

func (r *indexReader) uint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.bad = true
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *indexReader) str() string {
	n := r.uint()
	if n > uint64(len(r.b)) {
		r.bad = true
		return ""
	}
	v := string(r.b[:n])
	r.b = r.b[n:]
	return v
}

// skipName is what is never checkpointed: git's own data (see the package
// documentation).
func skipName(name string) bool { return name == ".git" }

// scan walks the workspace; an entry whose stat matches prev's and was not
// racy keeps prev's hash, others are hashed (and files stored).
func (s *Store) scan(prev *scan) (*scan, error) {
	start := time.Now
	if s.scanClock != nil {
		start = s.scanClock
	}
	sc := &scan{start: start(), entries: make(map[string]*Entry, len(prev.entries))}
	racyFrom := sc.start.Add(-racyWindow).UnixNano()
	err := filepath.WalkDir(s.ws, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == s.ws {
				return err
			}
			if errors.Is(err, fs.ErrNotExist) {
				return nil // removed while the walk ran
			}
			return nil // unreadable: not recorded
		}
		if p == s.ws {
			return nil
		}
		if skipName(d.Name()) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		e := entryOf(fi)
		if e == nil {
			return nil // socket, FIFO, device
		}
		if len(sc.entries) >= s.opts.MaxEntries {
			return &TooLargeError{Workspace: s.ws, Max: s.opts.MaxEntries}
		}
		rel := filepath.ToSlash(p[len(s.ws)+1:])
		e.Racy = e.Mtime >= racyFrom || e.Ctime >= racyFrom
		if old, ok := prev.entries[rel]; ok && !old.Racy && sameStat(old, e) {
			e.Hash, e.Stored = old.Hash, old.Stored
		} else if err := s.fill(p, e); err != nil {
			return nil // vanished or unreadable meanwhile: not recorded
		} else {
			sc.dirty = true
		}
		sc.entries[rel] = e
		return nil
	})
	if err != nil {
		var tl *TooLargeError
		if errors.As(err, &tl) {
			return nil, tl
		}
		return nil, fmt.Errorf("checkpoint: scanning %s: %w", s.ws, err)
	}
	return sc, nil
}

// sameStat says whether a scan may trust an earlier entry's hash.
func sameStat(a, b *Entry) bool {
	return a.Type == b.Type && a.Mode == b.Mode && a.Size == b.Size && a.Mtime == b.Mtime &&
		a.Ctime == b.Ctime && a.Ino == b.Ino && a.UID == b.UID && a.GID == b.GID
}

// fill hashes e (a file's content, a symlink's target) and stores a
// file's content if it is small enough.
func (s *Store) fill(p string, e *Entry) error {
	switch e.Type {
	case TypeSymlink:
		t, err := os.Readlink(p)
		if err != nil {
			return err
		}
		e.Hash = t
	case TypeFile:
		if e.Size > s.opts.MaxFileSize {
			h, err := hashFile(p)
			if err != nil {
				return err
			}
			e.Hash = h
			return nil
		}
		h, err := s.storeFile(p)
		if err != nil {
			return err
		}
		e.Hash, e.Stored = h, true
	}
	return nil
}

func hashFile(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	buf := copyBufs.Get().(*[]byte)
	defer copyBufs.Put(buf)
	if _, err := io.CopyBuffer(h, struct{ io.Reader }{f}, *buf); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func hashString(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}
