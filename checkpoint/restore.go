package checkpoint

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// Report is what a Restore or Rewind did, for a front end to print. Paths
// are relative to the workspace, slash-separated.
type Report struct {
	Turns     []string // the turns taken back, newest first
	Restored  []string // put back as before the turn (content, mode, owner, link)
	Removed   []string // created by the turn, removed
	Conflicts []Conflict
	// NotRestorable are paths whose earlier state could not be put back.
	NotRestorable []Skipped
	// Missing are turns with no record: they changed nothing, never ended,
	// or were pruned.
	Missing []string
	// AlreadyUndone are turns restored before.
	AlreadyUndone []string
}

// Conflict is a path changed again after the turn ended, left as it is.
type Conflict struct {
	Path   string
	Reason string
}

// Restore takes back turn id: every path it changed is put back as it was
// before the turn. A path changed again since the turn ended is a conflict,
// left as it is and named, unless force.
func (s *Store) Restore(id string, force bool) (Report, error) {
	return s.Rewind([]string{id}, force)
}

// Rewind takes back several turns (e.g. every turn after the one to
// rewind to): they are restored newest first, so each finds the workspace
// as the next one left it.
func (s *Store) Rewind(ids []string, force bool) (Report, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var rep Report
	var recs []*Record
	for _, id := range ids {
		r, ok, err := s.Turn(id)
		if err != nil {
			return rep, err
		}
		switch {
		case !ok:
			rep.Missing = append(rep.Missing, id)
		case r.Undone:
			rep.AlreadyUndone = append(rep.AlreadyUndone, id)
		default:
			recs = append(recs, r)
		}
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i].Seq > recs[j].Seq })
	for _, r := range recs {
		clean := s.restoreOne(r, force, &rep)
		rep.Turns = append(rep.Turns, r.Turn)
		if clean {
			r.Undone = true
			if err := s.writeRecord(r); err != nil {
				return rep, fmt.Errorf("checkpoint: turn %s restored, but marking it undone failed: %w", r.Turn, err)
			}
		}
	}
	rep.Restored = dedup(rep.Restored)
	rep.Removed = dedup(rep.Removed)
	// The restored files have new stats: the next scan hashes them again.
	return rep, nil
}

func dedup(l []string) []string {
	sort.Strings(l)
	out := l[:0]
	for i, p := range l {
		if i == 0 || p != l[i-1] {
			out = append(out, p)
		}
	}
	return out
}

// restoreOne restores one record; clean is false when a conflict or a
// failure was left.
func (s *Store) restoreOne(r *Record, force bool, rep *Report) (clean bool) {
	clean = true
	conflict := func(p, why string) {
		rep.Conflicts = append(rep.Conflicts, Conflict{p, why})
		clean = false
	}
	fail := func(p string, err error) {
		rep.NotRestorable = append(rep.NotRestorable, Skipped{p, err.Error()})
		clean = false
	}
	var todo []Change
	for _, c := range r.Changes {
		if !validRel(c.Path) {
			fail(c.Path, errors.New("not a path inside the workspace"))
			continue
		}
		abs := filepath.Join(s.ws, filepath.FromSlash(c.Path))
		if err := s.parentsAreFolders(c.Path); err != nil {
			fail(c.Path, err)
			continue
		}
		now, err := s.current(abs, c.Before, c.After)
		if err != nil {
			fail(c.Path, err)
			continue
		}
		if matches(now, c.Before) {
			continue // already as before the turn
		}
		if !matches(now, c.After) && !force {
			conflict(c.Path, describe(now, c.After))
			continue
		}
		if b := c.Before; b != nil && b.Type == TypeFile && c.Kind != Attrs && !b.Stored {
			fail(c.Path, fmt.Errorf("larger than %d MiB when the turn began, its content was not kept", s.opts.MaxFileSize>>20))
			continue
		}
		todo = append(todo, c)
	}
	// Removals deepest first, then creations shallowest first; a folder's
	// mode last, deepest first, so a read-only folder is filled first.
	sort.SliceStable(todo, func(i, j int) bool { return todo[i].Path > todo[j].Path })
	var dirModes []Change
	for _, c := range todo {
		if c.Before == nil || c.After != nil && c.Before.Type != c.After.Type {
			abs := filepath.Join(s.ws, filepath.FromSlash(c.Path))
			err := os.Remove(abs)
			if err != nil && force {
				err = os.RemoveAll(abs)
			}
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				if c.Before == nil && c.After != nil && c.After.Type == TypeDir {
					conflict(c.Path, "the folder holds files made after the turn")
				} else {
					fail(c.Path, err)
				}
				continue
			}
			if c.Before == nil {
				rep.Removed = append(rep.Removed, c.Path)
			}
		}
	}
	for i := len(todo) - 1; i >= 0; i-- {
		c := todo[i]
		if c.Before == nil {
			continue
		}
		abs := filepath.Join(s.ws, filepath.FromSlash(c.Path))
		if force {
			if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
				fail(c.Path, err)
				continue
			}
		}
		if err := s.put(abs, c); err != nil {
			fail(c.Path, err)
			continue
		}
		if c.Before.Type == TypeDir {
			dirModes = append(dirModes, c)
		}
		rep.Restored = append(rep.Restored, c.Path)
	}
	for i := len(dirModes) - 1; i >= 0; i-- {
		c := dirModes[i]
		abs := filepath.Join(s.ws, filepath.FromSlash(c.Path))
		if err := os.Chmod(abs, c.Before.Mode); err != nil {
			fail(c.Path, err)
		}
	}
	return clean
}

// put makes abs what c.Before says (a folder's mode comes later).
func (s *Store) put(abs string, c Change) error {
	b := c.Before
	switch b.Type {
	case TypeDir:
		if fi, err := os.Lstat(abs); err == nil && fi.IsDir() {
			return chown(abs, b)
		}
		if err := os.Mkdir(abs, 0o700); err != nil {
			return err
		}
		return chown(abs, b)
	case TypeSymlink:
		if err := os.Remove(abs); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if err := os.Symlink(b.Hash, abs); err != nil {
			return err
		}
		return chown(abs, b)
	}
	if fi, err := os.Lstat(abs); err == nil && fi.Mode().IsRegular() && c.Kind == Attrs && fi.Size() == b.Size && sameContent(abs, b.Hash) {
		// The same content: only the mode and owner go back (Lstat made
		// sure abs is not a link Chmod would follow).
		if err := os.Chmod(abs, b.Mode); err != nil {
			return err
		}
		return chown(abs, b)
	}
	data, err := s.readObject(b.Hash)
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(abs), ".co-restore-*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = chown(f.Name(), b)
	}
	if err == nil {
		err = os.Chmod(f.Name(), b.Mode) // after chown, which clears set-id bits
	}
	if err == nil {
		if fi, lerr := os.Lstat(abs); lerr == nil && fi.IsDir() {
			err = os.Remove(abs)
		}
	}
	if err == nil {
		err = os.Rename(f.Name(), abs)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// chown gives p e's owner where this process may; a user who is not root
// keeps their own files.
func chown(p string, e *Entry) error {
	err := os.Lchown(p, e.UID, e.GID)
	if err != nil && os.Geteuid() != 0 && errors.Is(err, fs.ErrPermission) {
		return nil
	}
	return err
}

// current is the path's entry now (nil: absent), hashed when the
// comparison needs it.
func (s *Store) current(abs string, before, after *Entry) (*Entry, error) {
	fi, err := os.Lstat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	e := entryOf(fi)
	if e == nil {
		return &Entry{}, nil // something that is not recorded
	}
	switch e.Type {
	case TypeSymlink:
		e.Hash, err = os.Readlink(abs)
	case TypeFile:
		if before != nil && before.Type == TypeFile && before.Size == e.Size ||
			after != nil && after.Type == TypeFile && after.Size == e.Size {
			e.Hash, err = hashFile(abs)
		}
	}
	return e, err
}

// matches says whether the entry now is as want says (nil: absent).
func matches(now, want *Entry) bool {
	if now == nil || want == nil {
		return now == nil && want == nil
	}
	if now.Type != want.Type || now.Mode != want.Mode || now.UID != want.UID || now.GID != want.GID {
		return false
	}
	switch want.Type {
	case TypeFile:
		return now.Size == want.Size && now.Hash == want.Hash
	case TypeSymlink:
		return now.Hash == want.Hash
	}
	return true
}

func describe(now, after *Entry) string {
	switch {
	case after == nil:
		return "created again after the turn"
	case now == nil:
		return "removed after the turn"
	case now.Type != after.Type:
		return "replaced by another kind of entry after the turn"
	case now.Mode != after.Mode || now.UID != after.UID || now.GID != after.GID:
		return "its mode or owner changed after the turn"
	}
	return "changed after the turn"
}

func validRel(p string) bool {
	return p != "" && !path.IsAbs(p) && path.Clean(p) == p && p != ".." && !strings.HasPrefix(p, "../") &&
		!strings.Contains(p, "\x00")
}

// parentsAreFolders refuses a path whose parent is now a symlink (or a
// file): restoring through it could write outside the workspace.
func (s *Store) parentsAreFolders(rel string) error {
	dir := path.Dir(rel)
	if dir == "." {
		return nil
	}
	cur := s.ws
	for _, part := range strings.Split(dir, "/") {
		cur = filepath.Join(cur, part)
		fi, err := os.Lstat(cur)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if !fi.IsDir() {
			return fmt.Errorf("%s is no longer a folder (a link or a file now): not followed", strings.TrimPrefix(cur, s.ws+string(filepath.Separator)))
		}
	}
	return nil
}

func sameContent(p, hash string) bool {
	h, err := hashFile(p)
	return err == nil && h == hash
}
