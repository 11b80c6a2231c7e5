package checkpoint

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"
)

// Defaults of Options.
const (
	DefaultMaxFileSize = 16 << 20
	DefaultMaxEntries  = 100_000
)

// Options tune a Store; zero fields get the defaults.
type Options struct {
	// MaxFileSize is the largest file whose content is kept; a larger one
	// a turn changes is recorded as not restorable.
	MaxFileSize int64
	// MaxEntries caps the files, folders and links a workspace may hold to
	// be checkpointed.
	MaxEntries int
	// Now is the clock a record's time comes from; default time.Now.
	Now func() time.Time
}

// TooLargeError is Begin's answer for a workspace over Options.MaxEntries.
type TooLargeError struct {
	Workspace string
	Max       int
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("checkpoint: %s holds more than %d files and folders, so its turns are not checkpointed (undo cannot restore them)", e.Workspace, e.Max)
}

// Store keeps the checkpoints of one workspace. Its methods are safe for
// concurrent use; two Stores (two runs of co) on one dir share the objects
// and may interleave turns, each recording what changed during its own.
type Store struct {
	dir, ws string
	opts    Options

	mu     sync.Mutex
	index  *scan            // the last scan, nil until loaded
	stale  bool             // index differs from the one on disk
	begins map[string]*scan // turns begun and not ended
	// marks are each begun turn's last Changes scan.
	marks map[string]*scan
	// scanClock is a scan's start, compared with the files' own mtimes and
	// ctimes (the racy rule): the system's clock, which a test may pin.
	scanClock func() time.Time
}

// Open opens (creating it) the checkpoint store in dir for workspace. dir
// must not be inside workspace (nor workspace inside dir).
func Open(dir, workspace string, opts Options) (*Store, error) {
	if opts.MaxFileSize <= 0 {
		opts.MaxFileSize = DefaultMaxFileSize
	}
	if opts.MaxEntries <= 0 {
		opts.MaxEntries = DefaultMaxEntries
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	ws, err := filepath.Abs(workspace)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: workspace %q: %w", workspace, err)
	}
	if ws, err = filepath.EvalSymlinks(ws); err != nil {
		return nil, fmt.Errorf("checkpoint: workspace %q: %w", workspace, err)
	}
	if fi, err := os.Stat(ws); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("checkpoint: workspace %q is not a folder", workspace)
	}
	d, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: store %q: %w", dir, err)
	}
	real := resolveExisting(d)
	if inside(real, ws) || inside(ws, real) {
		return nil, fmt.Errorf("checkpoint: the store %s and the workspace %s overlap: keep checkpoints in co's data folder, outside the workspace", d, ws)
	}
	for _, sub := range []string{"objects", "turns"} {
		if err := os.MkdirAll(filepath.Join(d, sub), 0o700); err != nil {
			return nil, fmt.Errorf("checkpoint: %w", err)
		}
	}
	return &Store{dir: d, ws: ws, opts: opts, begins: map[string]*scan{}, marks: map[string]*scan{}}, nil
}

// DirFor is the store's folder for workspace under co's data folder: one
// per workspace, named by the hash of its path.
func DirFor(dataDir, workspace string) string {
	ws, err := filepath.Abs(workspace)
	if err == nil {
		if r, err := filepath.EvalSymlinks(ws); err == nil {
			ws = r
		}
	}
	return filepath.Join(dataDir, "checkpoints", hashString(ws)[:16])
}

// Workspace is the workspace's real path.
func (s *Store) Workspace() string { return s.ws }

// resolveExisting resolves the symlinks of p's longest existing prefix.
func resolveExisting(p string) string {
	rest := ""
	for {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return filepath.Join(p, rest)
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

func inside(p, root string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) || p == root
}

// turnIDPattern is compiled on first use: its {0,127} makes a program of
// about 100 KB, which every co process would otherwise build at start.
var turnIDPattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)
})

func checkTurnID(id string) error {
	if !turnIDPattern().MatchString(id) {
		return fmt.Errorf("checkpoint: turn id %q: use letters, digits, '.', '_' or '-' (at most 128)", id)
	}
	return nil
}

// Begin records the workspace's state before turn id. Files changed since
// the last scan are hashed and their content stored now, so that whatever
// the turn overwrites can be put back.
func (s *Store) Begin(id string) error {
	if err := checkTurnID(id); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.begins[id]; ok {
		return fmt.Errorf("checkpoint: turn %s has already begun", id)
	}
	cur, err := s.rescan()
	if err != nil {
		return err
	}
	s.begins[id] = cur
	return nil
}

// Abandon forgets a turn begun and not ended (its End will not come).
func (s *Store) Abandon(id string) {
	s.mu.Lock()
	delete(s.begins, id)
	delete(s.marks, id)
	s.mu.Unlock()
}

// Changes scans the workspace during turn id and returns what changed
// since the turn's last Changes, or since Begin for the first: the files
// one tool call changed, when called before and after it. It costs a scan
// (an lstat per entry, a hash per file whose stat changed), so callers
// ask only when someone wants the answer (a PostToolUse hook).
func (s *Store) Changes(id string) ([]Change, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	from, ok := s.marks[id]
	if !ok {
		if from, ok = s.begins[id]; !ok {
			return nil, fmt.Errorf("checkpoint: turn %s was not begun", id)
		}
	}
	cur, err := s.rescan()
	if err != nil {
		return nil, err
	}
	s.marks[id] = cur
	return diff(from, cur), nil
}

// rescan scans the workspace against the index, stores new content, and
// makes the scan the index (written to disk by flushIndex). s.mu is held.
func (s *Store) rescan() (*scan, error) {
	if s.index == nil {
		s.index = s.loadIndex()
	}
	cur, err := s.scan(s.index)
	if err != nil {
		return nil, err
	}
	s.stale = s.stale || cur.dirty || len(cur.entries) != len(s.index.entries)
	s.index = cur
	return cur, nil
}

// flushIndex writes the index when a scan since the last write hashed
// anything: once per turn at most, at End.
func (s *Store) flushIndex() error {
	if !s.stale {
		return nil
	}
	if err := s.saveIndex(s.index); err != nil {
		return fmt.Errorf("checkpoint: saving the index: %w", err)
	}
	s.stale = false
	return nil
}

// Kind is what a turn did to a path.
type Kind string

const (
	Created  Kind = "created"
	Modified Kind = "modified" // content, link target, or type
	Deleted  Kind = "deleted"
	Attrs    Kind = "attrs" // mode or owner only
)

// Change is one path a turn changed; Before is nil for a path it created,
// After nil for one it deleted.
type Change struct {
	Path   string `json:"path"` // slash-separated, relative to the workspace
	Kind   Kind   `json:"kind"`
	Before *Entry `json:"before,omitempty"`
	After  *Entry `json:"after,omitempty"`
}

// Record is one turn's checkpoint.
type Record struct {
	Turn    string    `json:"turn"`
	Seq     int64     `json:"seq"` // orders turns: End's time in ns
	Began   time.Time `json:"began"`
	Ended   time.Time `json:"ended"`
	Changes []Change  `json:"changes"`
	// NotRestorable are paths whose earlier content was not kept, each
	// with why.
	NotRestorable []Skipped `json:"not_restorable,omitempty"`
	Undone        bool      `json:"undone,omitempty"`
}

// Skipped is a path that cannot be restored and why.
type Skipped struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Summary is what End found.
type Summary struct {
	Turn          string
	Created       int
	Modified      int
	Deleted       int
	Attrs         int
	NotRestorable []Skipped
	Stored        bool // false: nothing changed, nothing was written
}

// End records what changed in the workspace since Begin(id). A turn that
// changed nothing writes nothing.
func (s *Store) End(id string) (Summary, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	before, ok := s.begins[id]
	if !ok {
		return Summary{}, fmt.Errorf("checkpoint: turn %s was not begun", id)
	}
	delete(s.begins, id)
	delete(s.marks, id)
	after, err := s.rescan()
	if err != nil {
		return Summary{}, err
	}
	if err := s.flushIndex(); err != nil {
		return Summary{}, err
	}
	changes := diff(before, after)
	sum := Summary{Turn: id}
	if len(changes) == 0 {
		return sum, nil
	}
	rec := Record{Turn: id, Began: before.start, Ended: s.opts.Now(), Changes: changes}
	rec.Seq = rec.Ended.UnixNano()
	for _, c := range changes {
		switch c.Kind {
		case Created:
			sum.Created++
		case Modified:
			sum.Modified++
		case Deleted:
			sum.Deleted++
		case Attrs:
			sum.Attrs++
		}
		if b := c.Before; b != nil && b.Type == TypeFile && (c.Kind == Modified || c.Kind == Deleted) {
			why := ""
			switch {
			case b.Size > s.opts.MaxFileSize:
				why = fmt.Sprintf("larger than %d MiB, its content is not kept", s.opts.MaxFileSize>>20)
			case !b.Stored:
				why = "its content before the turn was not kept"
			default:
				if _, err := os.Stat(s.objectPath(b.Hash)); err != nil {
					why = "its content before the turn is missing from the store (pruned meanwhile?)"
				}
			}
			if why != "" {
				rec.NotRestorable = append(rec.NotRestorable, Skipped{c.Path, why})
			}
		}
	}
	sum.NotRestorable = rec.NotRestorable
	if err := s.writeRecord(&rec); err != nil {
		return sum, err
	}
	sum.Stored = true
	return sum, nil
}

// diff lists the changes from a to b, parents before children.
func diff(a, b *scan) []Change {
	var out []Change
	for p, x := range a.entries {
		y, ok := b.entries[p]
		if !ok {
			out = append(out, Change{Path: p, Kind: Deleted, Before: x})
			continue
		}
		switch {
		case x.Type != y.Type || x.Hash != y.Hash || x.Type == TypeFile && x.Size != y.Size:
			out = append(out, Change{Path: p, Kind: Modified, Before: x, After: y})
		case x.Mode != y.Mode || x.UID != y.UID || x.GID != y.GID:
			out = append(out, Change{Path: p, Kind: Attrs, Before: x, After: y})
		}
	}
	for p, y := range b.entries {
		if _, ok := a.entries[p]; !ok {
			out = append(out, Change{Path: p, Kind: Created, After: y})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

func (s *Store) recordPath(id string) string { return filepath.Join(s.dir, "turns", id+".json") }

func (s *Store) writeRecord(r *Record) error {
	b, err := json.MarshalIndent(r, "", " ")
	if err != nil {
		return err
	}
	return writeFileAtomic(s.recordPath(r.Turn), b, true)
}

// Turn reads turn id's record; ok is false when the turn stored nothing
// (it changed nothing, or never ended).
func (s *Store) Turn(id string) (rec *Record, ok bool, err error) {
	if err := checkTurnID(id); err != nil {
		return nil, false, err
	}
	b, err := os.ReadFile(s.recordPath(id))
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("checkpoint: %w", err)
	}
	rec = &Record{}
	if err := json.Unmarshal(b, rec); err != nil {
		return nil, false, fmt.Errorf("checkpoint: turn %s's record is damaged: %w", id, err)
	}
	return rec, true, nil
}

// Turns lists the recorded turns, oldest first.
func (s *Store) Turns() ([]*Record, error) {
	des, err := os.ReadDir(filepath.Join(s.dir, "turns"))
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	var out []*Record
	for _, de := range des {
		id, ok := strings.CutSuffix(de.Name(), ".json")
		if !ok || checkTurnID(id) != nil {
			continue // a temporary file of a write cut short
		}
		r, ok, err := s.Turn(id)
		if err != nil || !ok {
			continue
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Seq < out[j].Seq })
	return out, nil
}

// writeFileAtomic writes b to a temporary file beside path and renames it
// over path; sync makes the content durable before the rename.
func writeFileAtomic(path string, b []byte, sync bool) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil && sync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}
