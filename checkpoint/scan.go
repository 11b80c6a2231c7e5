package checkpoint

import (
	"bytes"
	"crypto/sha256"
	"encoding/gob"
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

// indexEntry is Entry with its stat, for the index file.
type indexEntry struct {
	Path string
	E    Entry
	M, C int64
	I    uint64
	R    bool
}

func (s *Store) loadIndex() *scan {
	empty := &scan{entries: map[string]*Entry{}}
	b, err := os.ReadFile(filepath.Join(s.dir, "index"))
	if err != nil {
		return empty
	}
	var list []indexEntry
	if gob.NewDecoder(bytes.NewReader(b)).Decode(&list) != nil {
		return empty // a cache: every file is hashed again
	}
	sc := &scan{entries: make(map[string]*Entry, len(list))}
	for _, ie := range list {
		e := ie.E
		e.Mtime, e.Ctime, e.Ino, e.Racy = ie.M, ie.C, ie.I, ie.R
		sc.entries[ie.Path] = &e
	}
	return sc
}

func (s *Store) saveIndex(sc *scan) error {
	list := make([]indexEntry, 0, len(sc.entries))
	for p, e := range sc.entries {
		list = append(list, indexEntry{Path: p, E: *e, M: e.Mtime, C: e.Ctime, I: e.Ino, R: e.Racy})
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(list); err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(s.dir, "index"), buf.Bytes(), false)
}

// skipName is what is never checkpointed: git's own data (see the package
// documentation).
func skipName(name string) bool { return name == ".git" }

// scan walks the workspace; an entry whose stat matches prev's and was not
// racy keeps prev's hash, others are hashed (and files stored).
func (s *Store) scan(prev *scan) (*scan, error) {
	sc := &scan{start: time.Now(), entries: make(map[string]*Entry, len(prev.entries))}
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
		rel, _ := filepath.Rel(s.ws, p)
		rel = filepath.ToSlash(rel)
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
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func hashString(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}
