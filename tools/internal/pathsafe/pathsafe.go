// Package pathsafe confines the file and notes tools to one directory tree
// (the workspace, or the Obsidian vault). Paths come from the model and are
// untrusted: they are checked as text first (Clean), then resolved one
// component at a time inside the tree (Resolve), and every open goes
// through Go's os.Root, whose fd-relative opens cannot leave the tree even
// when a directory is swapped for a symlink between the check and the open.
//
// What is refused, with a message the model can act on: absolute paths,
// ".." that leaves the tree, NUL bytes and control characters, backslashes,
// drive letters, "~", symlinks that lead out (absolute targets, targets
// through "..", dangling ones, chains longer than 8), anything that is not
// a regular file where a file is read or written (directories, FIFOs,
// devices, sockets), files larger than the caller's cap, and, for writes,
// any symlink on the way and files with more than one hard link.
//
// Resolve is a check made to explain; os.Root is what enforces. A Root is
// safe for concurrent use.
package pathsafe

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"unicode"
)

// MaxSymlinks is how many symlinks one path may go through (os.Root's own
// limit).
const MaxSymlinks = 8

// Kind says why a path was refused.
type Kind int

const (
	// Invalid is a path refused as text (absolute, "..", NUL, ...).
	Invalid Kind = iota
	// Escapes is a path that leads out of the tree through a symlink.
	Escapes
	// NotFound is a path (or a symlink's target) that does not exist.
	NotFound
	// NotRegular is a directory, FIFO, device or socket where a regular file
	// is needed, or a file where a directory is needed.
	NotRegular
	// TooLarge is a file over the caller's size cap.
	TooLarge
	// Unsafe is a write refused for the file's shape: through a symlink, or
	// to a file with more than one hard link.
	Unsafe
	// Changed is a file that changed between the check and the open.
	Changed
)

// Error is a path the tools refuse. Its message is written for the model:
// it says what is wrong and, where it can, what to do instead.
type Error struct {
	Kind Kind
	Path string // the path as given (cleaned)
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

func refuse(k Kind, p, format string, a ...any) *Error {
	return &Error{Kind: k, Path: p, Msg: fmt.Sprintf(format, a...)}
}

// IsKind reports whether err is an *Error of kind k.
func IsKind(err error, k Kind) bool {
	var e *Error
	return errors.As(err, &e) && e.Kind == k
}

// Root is one directory tree the tools may touch, opened once.
type Root struct {
	dir  string // absolute, as given
	real string // dir with symlinks resolved, for hints about absolute paths
	what string // "workspace" or "vault", used in messages
	r    *os.Root

	// beforeOpen, when set (tests only), runs between the check and the
	// open, so a test can swap a directory for a symlink there.
	beforeOpen func(rel string)
}

// Open opens dir as a Root. what names it in messages ("workspace").
func Open(dir, what string) (*Root, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	r, err := os.OpenRoot(abs)
	if err != nil {
		return nil, err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		real = abs
	}
	return &Root{dir: abs, real: real, what: what, r: r}, nil
}

// Dir is the root directory as given to Open (absolute).
func (r *Root) Dir() string { return r.dir }

// Readlink returns the target of the symlink rel (Cleaned), without
// following it.
func (r *Root) Readlink(rel string) (string, error) { return r.r.Readlink(rel) }

// Describe names what kind of file m is ("a directory", "a named pipe
// (FIFO)", ...).
func Describe(m fs.FileMode) string { return describe(m) }

// Close releases the root's descriptor.
func (r *Root) Close() error { return r.r.Close() }

// FS is the tree as an fs.FS whose opens stay inside it. Walking it with
// fs.WalkDir never follows symlinks.
func (r *Root) FS() fs.FS { return r.r.FS() }

// Clean checks a path given by the model and returns it cleaned, in slash
// form, relative to the root ("." for the root itself). Absolute paths that
// lie inside the root are refused too, with the relative form to use.
func (r *Root) Clean(p string) (string, error) {
	c, err := Clean(p, r.what)
	if err == nil || !strings.HasPrefix(p, "/") {
		return c, err
	}
	for _, base := range []string{r.dir, r.real} {
		if rel, ok := strings.CutPrefix(path.Clean(p), strings.TrimSuffix(filepath.ToSlash(base), "/")+"/"); ok && rel != "" {
			return "", refuse(Invalid, p, "absolute paths are not accepted; paths are relative to the %s root: use %q", r.what, rel)
		}
		if path.Clean(p) == filepath.ToSlash(base) {
			return "", refuse(Invalid, p, "absolute paths are not accepted; paths are relative to the %s root: use \".\"", r.what)
		}
	}
	return c, err
}

// Clean checks p as text and returns it cleaned and relative. what names the
// tree in messages.
func Clean(p, what string) (string, error) {
	if p == "" || p == "." || p == "./" {
		return ".", nil
	}
	if len(p) > 4096 {
		return "", refuse(Invalid, p, "the path is %d bytes long; the limit is 4096", len(p))
	}
	for _, c := range p {
		switch {
		case c == 0:
			return "", refuse(Invalid, p, "the path contains a NUL byte")
		case c == '\\':
			return "", refuse(Invalid, p, "the path %q contains a backslash: use forward slashes (dir/file.txt)", p)
		case unicode.IsControl(c):
			return "", refuse(Invalid, p, "the path %q contains a control character", p)
		}
	}
	if len(p) >= 2 && p[1] == ':' && (p[0]|0x20) >= 'a' && (p[0]|0x20) <= 'z' {
		return "", refuse(Invalid, p, "the path %q starts with a drive letter: give a path relative to the %s root (dir/file.txt)", p, what)
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		return "", refuse(Invalid, p, "the path %q starts with ~, which is not expanded: give a path relative to the %s root", p, what)
	}
	if strings.HasPrefix(p, "/") {
		return "", refuse(Invalid, p, "the path %q is absolute: give a path relative to the %s root (dir/file.txt)", p, what)
	}
	c := path.Clean(p)
	if c == ".." || strings.HasPrefix(c, "../") {
		return "", refuse(Invalid, p, "the path %q leads outside the %s (through ..)", p, what)
	}
	return c, nil
}

// Resolve follows rel (already Cleaned) one component at a time inside the
// tree, following symlinks that stay inside, and returns the real path
// (relative, with no symlinks) and what is there. A missing path gives an
// error of kind NotFound and, as real, the path as far as it resolved
// joined with the rest, so a writer can tell which directory is missing.
func (r *Root) Resolve(rel string) (real string, fi fs.FileInfo, err error) {
	if rel == "." {
		fi, err := r.r.Stat(".")
		return ".", fi, err
	}
	parts := strings.Split(rel, "/")
	var done []string
	hops := 0
	via := "" // the last symlink followed, for messages
	for len(parts) > 0 {
		p := parts[0]
		parts = parts[1:]
		switch p {
		case "", ".":
			continue
		case "..":
			if len(done) == 0 {
				return "", nil, refuse(Escapes, rel, "%q leads outside the %s through the symlink %q", rel, r.what, via)
			}
			done = done[:len(done)-1]
			continue
		}
		cur := path.Join(append(append([]string{}, done...), p)...)
		fi, err = r.r.Lstat(cur)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				rest := path.Join(append([]string{cur}, parts...)...)
				if via != "" {
					return rest, nil, refuse(NotFound, rel, "%q leads through the symlink %q to %q, which does not exist", rel, via, rest)
				}
				return rest, nil, refuse(NotFound, rel, "%q does not exist in the %s", rel, r.what)
			}
			if errors.Is(err, fs.ErrPermission) {
				return "", nil, refuse(Invalid, rel, "%q cannot be read: permission denied", cur)
			}
			return "", nil, r.explain(rel, err)
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			hops++
			if hops > MaxSymlinks {
				return "", nil, refuse(Escapes, rel, "%q goes through more than %d symlinks", rel, MaxSymlinks)
			}
			target, err := r.r.Readlink(cur)
			if err != nil {
				return "", nil, r.explain(rel, err)
			}
			if strings.HasPrefix(target, "/") || filepath.IsAbs(target) {
				return "", nil, refuse(Escapes, rel, "%q is a symlink to the absolute path %q; symlinks that leave the %s are not followed", cur, target, r.what)
			}
			via = cur
			parts = append(strings.Split(target, "/"), parts...)
			continue
		}
		if len(parts) > 0 && !fi.IsDir() {
			return "", nil, refuse(NotRegular, rel, "%q is not a directory, so %q cannot exist", cur, rel)
		}
		done = append(done, p)
	}
	if len(done) == 0 {
		fi, err := r.r.Stat(".")
		return ".", fi, err
	}
	return path.Join(done...), fi, nil
}

// explain turns an os.Root error into a message for the model.
func (r *Root) explain(rel string, err error) error {
	s := err.Error()
	switch {
	case strings.Contains(s, "escapes from parent"):
		return refuse(Escapes, rel, "%q leads outside the %s", rel, r.what)
	case strings.Contains(s, "too many levels of symbolic links") || strings.Contains(s, "too many links"):
		return refuse(Escapes, rel, "%q goes through too many symlinks", rel)
	case errors.Is(err, fs.ErrNotExist):
		return refuse(NotFound, rel, "%q does not exist in the %s", rel, r.what)
	case errors.Is(err, fs.ErrPermission):
		return refuse(Invalid, rel, "%q cannot be opened: permission denied", rel)
	case strings.Contains(s, "not a directory"):
		return refuse(NotRegular, rel, "a component of %q is not a directory", rel)
	}
	return err
}

// describe names what a non-regular file is.
func describe(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0, m&fs.ModeCharDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	}
	return "not a regular file"
}

// OpenFile opens rel (Cleaned) for reading. Only a regular file of at most
// maxSize bytes (when maxSize > 0) is opened; symlinks inside the tree are
// followed. The caller closes the file.
func (r *Root) OpenFile(rel string, maxSize int64) (*os.File, fs.FileInfo, error) {
	// Fast path: one lstat (os.Root follows inside links on the way). A
	// symlink at the end, or any error, takes the slow path, which explains.
	real, fi, err := rel, fs.FileInfo(nil), error(nil)
	if fi, err = r.r.Lstat(rel); err != nil || !fi.Mode().IsRegular() {
		if real, fi, err = r.Resolve(rel); err != nil {
			return nil, nil, err
		}
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, refuse(NotRegular, rel, "%q is %s, not a regular file", rel, describe(fi.Mode()))
	}
	if r.beforeOpen != nil {
		r.beforeOpen(real)
	}
	// O_NONBLOCK: if a FIFO was swapped in since the check, the open must
	// not hang waiting for a writer; fstat below then refuses it.
	f, err := r.r.OpenFile(real, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, nil, r.explain(rel, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, refuse(NotRegular, rel, "%q is %s, not a regular file", rel, describe(st.Mode()))
	}
	if maxSize > 0 && st.Size() > maxSize {
		f.Close()
		return nil, nil, refuse(TooLarge, rel, "%q is %d bytes; the limit is %d", rel, st.Size(), maxSize)
	}
	return f, st, nil
}

// ReadFile reads rel (Cleaned): a regular file of at most maxSize bytes.
func (r *Root) ReadFile(rel string, maxSize int64) ([]byte, fs.FileInfo, error) {
	f, st, err := r.OpenFile(rel, maxSize)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	var rd io.Reader = f
	if maxSize > 0 {
		// The file may grow after the fstat.
		rd = io.LimitReader(f, maxSize+1)
	}
	b := make([]byte, 0, st.Size()+1)
	for {
		n, err := rd.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
	if maxSize > 0 && int64(len(b)) > maxSize {
		return nil, nil, refuse(TooLarge, rel, "%q is over %d bytes", rel, maxSize)
	}
	return b, st, nil
}

// Sub opens the directory rel (Cleaned) as a Root of its own, for reading
// many files of one directory with one open each (os.Root.OpenRoot: it
// cannot lead out of r either).
func (r *Root) Sub(rel string) (*Root, error) {
	sub, err := r.r.OpenRoot(rel)
	if err != nil {
		return nil, r.explain(rel, err)
	}
	d := filepath.Join(r.dir, filepath.FromSlash(rel))
	return &Root{dir: d, real: d, what: r.what, r: sub}, nil
}

// ReadListed reads a file a walk of this root has just listed as regular:
// the fast way, without the explaining checks of ReadFile. It still opens
// through os.Root, refuses what fstat says is not a regular file or is
// larger than maxSize, and reads at most the size fstat gave (a file that
// grows meanwhile is read up to that size).
func (r *Root) ReadListed(rel string, maxSize int64) ([]byte, error) {
	f, err := r.r.OpenFile(rel, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, r.explain(rel, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, refuse(NotRegular, rel, "%q is %s, not a regular file", rel, describe(st.Mode()))
	}
	if maxSize > 0 && st.Size() > maxSize {
		return nil, refuse(TooLarge, rel, "%q is %d bytes; the limit is %d", rel, st.Size(), maxSize)
	}
	b := make([]byte, st.Size())
	n, err := io.ReadFull(f, b)
	if err != nil && err != io.ErrUnexpectedEOF {
		return nil, err
	}
	return b[:n], nil
}

// Target is what a write would touch, found without changing anything.
type Target struct {
	Rel     string      // the cleaned path
	Exists  bool        // a regular file is there now
	Info    fs.FileInfo // its Lstat when Exists
	Missing string      // the first missing directory, "" when the parent exists
}

// CheckWrite says whether rel (Cleaned) may be written and what is there,
// without writing. Refused: the root itself, any symlink on the way
// (inside the tree or not: a write goes only to the path the user was
// shown), anything but a regular file at the end, and a file with more than
// one hard link (its other names, maybe outside the tree, would change
// too).
func (r *Root) CheckWrite(rel string) (Target, error) {
	t := Target{Rel: rel}
	if rel == "." {
		return t, refuse(NotRegular, rel, "the path is the %s root itself; give a file path", r.what)
	}
	parts := strings.Split(rel, "/")
	for i := range parts {
		cur := path.Join(parts[:i+1]...)
		fi, err := r.r.Lstat(cur)
		if errors.Is(err, fs.ErrNotExist) {
			if i < len(parts)-1 {
				t.Missing = cur
			}
			return t, nil
		}
		if err != nil {
			return t, r.explain(rel, err)
		}
		last := i == len(parts)-1
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, _ := r.r.Readlink(cur)
			return t, refuse(Unsafe, rel, "%q is a symlink (to %q); files are not written through symlinks: write the real path instead", cur, target)
		case !last && !fi.IsDir():
			return t, refuse(NotRegular, rel, "%q is not a directory, so %q cannot be written", cur, rel)
		case last && !fi.Mode().IsRegular():
			return t, refuse(NotRegular, rel, "%q is %s, not a regular file; only regular files are written", rel, describe(fi.Mode()))
		case last:
			if n := links(fi); n > 1 {
				return t, refuse(Unsafe, rel, "%q has %d hard links; writing it would change its other names too (maybe outside the %s), so it is not written", rel, n, r.what)
			}
			t.Exists, t.Info = true, fi
		}
	}
	return t, nil
}

// WriteFile writes data to rel (Cleaned), making the missing parent
// directories when createDirs is set. It checks again (CheckWrite) at the
// moment of writing, opens without following a symlink at the end, and
// verifies with fstat on the open descriptor that it holds the same
// regular, singly linked file before truncating it. It reports whether the
// file was created.
func (r *Root) WriteFile(rel string, data []byte, createDirs bool) (created bool, err error) {
	t, err := r.CheckWrite(rel)
	if err != nil {
		return false, err
	}
	if t.Missing != "" {
		if !createDirs {
			return false, refuse(NotFound, rel, "the directory %q does not exist; pass create_dirs=true to create it", t.Missing)
		}
		if err := r.r.MkdirAll(path.Dir(rel), 0o755); err != nil {
			return false, r.explain(rel, err)
		}
		// Directories just made: check the whole path again.
		if t, err = r.CheckWrite(rel); err != nil {
			return false, err
		}
	}
	if r.beforeOpen != nil {
		r.beforeOpen(rel)
	}
	var f *os.File
	if t.Exists {
		// No O_TRUNC: nothing changes until fstat has confirmed the file.
		f, err = r.r.OpenFile(rel, os.O_WRONLY|openNonblock, 0)
		if err != nil {
			return false, r.explain(rel, err)
		}
		st, err := f.Stat()
		if err != nil {
			f.Close()
			return false, err
		}
		switch {
		case !st.Mode().IsRegular():
			f.Close()
			return false, refuse(NotRegular, rel, "%q is %s, not a regular file", rel, describe(st.Mode()))
		case links(st) > 1:
			f.Close()
			return false, refuse(Unsafe, rel, "%q has %d hard links, so it is not written", rel, links(st))
		case !os.SameFile(st, t.Info):
			f.Close()
			return false, refuse(Changed, rel, "%q changed while it was being written; try again", rel)
		}
		if err := f.Truncate(0); err != nil {
			f.Close()
			return false, err
		}
	} else {
		// O_EXCL never follows a symlink, even a dangling one.
		f, err = r.r.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			if errors.Is(err, fs.ErrExist) {
				return false, refuse(Changed, rel, "%q appeared while it was being written; try again", rel)
			}
			return false, r.explain(rel, err)
		}
		created = true
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return created, err
	}
	return created, f.Close()
}
