package memory

import (
	"encoding/json"
	"io"
	"sync"
)

// Lazy opens the store on first use, so nothing is opened before a front
// end's first frame, and only by runs that need it. It is safe for
// concurrent use; a failed open is tried again on the next use (a damaged
// file is reported each time, never overwritten).
type Lazy struct {
	path string
	opts Options

	mu sync.Mutex
	s  *Store
}

// NewLazy returns a Lazy for the store at path.
func NewLazy(path string, opts Options) *Lazy { return &Lazy{path: path, opts: opts} }

// Path is the store's file.
func (l *Lazy) Path() string { return l.path }

// Store opens the store if it is not open yet.
func (l *Lazy) Store() (*Store, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.s != nil {
		return l.s, nil
	}
	s, err := Open(l.path, l.opts)
	if err != nil {
		return nil, err
	}
	l.s = s
	return s, nil
}

// Close closes the store if it was opened.
func (l *Lazy) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.s == nil {
		return nil
	}
	err := l.s.Close()
	l.s = nil
	return err
}

// Export writes every memory as a JSON array.
func (s *Store) Export(w io.Writer) error {
	ms, err := s.List()
	if err != nil {
		return err
	}
	if ms == nil {
		ms = []Memory{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(ms)
}
