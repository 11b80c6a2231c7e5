package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// Lazy opens the store on first use, so nothing is opened before a front
// end's first frame, and only by runs that need it. It is safe for
// concurrent use; a failed open is tried again on the next use (a damaged
// file is reported each time, never overwritten).
//
// The open runs in its own goroutine, one at a time: Open may wait up to
// 15 s for another co holding the file locked (its retries plus SQLite's
// busy timeout), and a caller that cannot wait that long (an approval
// check, a turn's recall) waits with a deadline (StoreContext) while the
// open goes on for the next caller. Once closed, a Lazy opens nothing, and
// an open still under way when Close came closes what it opened.
type Lazy struct {
	path string
	opts Options

	mu      sync.Mutex
	s       *Store
	opening *openAttempt // the open under way, or nil
	closed  bool
}

// openAttempt is one Open in its goroutine; done is closed when it ends.
type openAttempt struct {
	done chan struct{}
	err  error
	s    *Store // what it opened (closed again if the Lazy was closed)
}

// ErrClosed is returned by a Lazy used after Close.
var ErrClosed = errors.New("the memory store is closed")

// ErrBusy is returned by StoreContext when the store did not open before
// the context ended: most likely another co holds it locked.
var ErrBusy = errors.New("the memory store is busy: another co is probably writing it (its file is locked)")

// NewLazy returns a Lazy for the store at path.
func NewLazy(path string, opts Options) *Lazy { return &Lazy{path: path, opts: opts} }

// Path is the store's file.
func (l *Lazy) Path() string { return l.path }

// Store opens the store if it is not open yet, waiting as long as that
// takes.
func (l *Lazy) Store() (*Store, error) { return l.StoreContext(context.Background()) }

// StoreContext is Store waiting at most until ctx ends: then it returns an
// error wrapping ErrBusy, and the open goes on in the background for the
// next use.
func (l *Lazy) StoreContext(ctx context.Context) (*Store, error) {
	l.mu.Lock()
	switch {
	case l.closed:
		l.mu.Unlock()
		return nil, ErrClosed
	case l.s != nil:
		s := l.s
		l.mu.Unlock()
		return s, nil
	}
	a := l.opening
	if a == nil {
		a = &openAttempt{done: make(chan struct{})}
		l.opening = a
		go l.open(a)
	}
	l.mu.Unlock()
	select {
	case <-a.done:
	case <-ctx.Done():
		return nil, fmt.Errorf("%w; try again in a moment (%s)", ErrBusy, l.path)
	}
	if a.err != nil {
		return nil, a.err
	}
	return a.s, nil
}

// open runs one Open and publishes its result, unless the Lazy was closed
// meanwhile: then it closes what it opened.
func (l *Lazy) open(a *openAttempt) {
	var s *Store
	var err error
	func() {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("opening the memory store failed: %v", r)
			}
		}()
		s, err = Open(l.path, l.opts)
	}()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.opening = nil
	switch {
	case err != nil:
		a.err = err
	case l.closed:
		s.Close()
		a.s, a.err = s, ErrClosed
	default:
		l.s, a.s = s, s
	}
	close(a.done)
}

// Close closes the store if it was opened; an open under way closes its
// store when it ends, and no later use opens one.
func (l *Lazy) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
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
