package memory

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A use after Close (a turn's recall goroutine that had not reached the
// store yet when co closed) opens nothing: before, it opened a store that
// nobody would ever close.
func TestLazyAfterCloseOpensNothing(t *testing.T) {
	p := filepath.Join(t.TempDir(), FileName)
	l := NewLazy(p, Options{})
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	s, err := l.Store()
	if !errors.Is(err, ErrClosed) || s != nil {
		t.Fatalf("Store after Close = %v, %v; want ErrClosed", s, err)
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Fatal("a store was opened after Close")
	}
}

// lock holds p locked as another co creating or migrating it would (an
// exclusive transaction) until release.
func lock(t *testing.T, p string) (release func()) {
	t.Helper()
	db, err := sql.Open("sqlite3", p+"?_journal_mode=DELETE")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), `BEGIN EXCLUSIVE`); err != nil {
		t.Fatal(err)
	}
	done := false
	release = func() {
		if !done {
			done = true
			if _, err := conn.ExecContext(context.Background(), `ROLLBACK`); err != nil {
				t.Fatal(err)
			}
			conn.Close()
			db.Close()
		}
	}
	t.Cleanup(release)
	return release
}

// While another co holds the file locked, StoreContext gives up when its
// context ends (ErrBusy) instead of waiting out Open's 15 s; the open goes
// on, and a later use gets the store once the lock is gone. Close while
// that open is under way: the open closes what it opened.
func TestLazyOpenIsBoundedAndClosedWhenLate(t *testing.T) {
	p := filepath.Join(t.TempDir(), FileName)
	release := lock(t, p)
	l := NewLazy(p, Options{})

	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	_, err := l.StoreContext(ctx)
	cancel()
	if !errors.Is(err, ErrBusy) {
		t.Fatalf("StoreContext on a locked store: %v; want ErrBusy", err)
	}
	// Another caller meanwhile does not start a second open.
	l.mu.Lock()
	a := l.opening
	l.mu.Unlock()
	if a == nil {
		t.Fatal("no open under way")
	}
	// StoreContext gave up without waiting for the open: while the lock is
	// held the open cannot have ended (order, not a clock).
	openUnderWay := func(what string) {
		t.Helper()
		select {
		case <-a.done:
			t.Fatalf("%s waited for the open to end (%v)", what, a.err)
		default:
		}
	}
	openUnderWay("StoreContext")
	ctx, cancel = context.WithTimeout(context.Background(), 50*time.Millisecond)
	if _, err := l.StoreContext(ctx); !errors.Is(err, ErrBusy) {
		t.Fatalf("a second StoreContext on the locked store: %v; want ErrBusy", err)
	}
	cancel()
	l.mu.Lock()
	same := l.opening == a
	l.mu.Unlock()
	if !same {
		t.Fatal("a second open was started")
	}
	// Close does not wait for the open (it could take 15 s)…
	if err := l.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	openUnderWay("Close")
	release()
	select {
	case <-a.done:
	case <-time.After(20 * time.Second):
		t.Fatal("the open did not end after the lock was released")
	}
	// …and the open, ending after Close, closed what it opened.
	if a.s == nil || a.err == nil {
		t.Fatalf("the late open: %v, %v", a.s, a.err)
	}
	if err := a.s.db.Ping(); err == nil {
		t.Fatal("the store opened after Close was left open")
	}
	if _, err := l.Store(); !errors.Is(err, ErrClosed) {
		t.Fatalf("Store after Close: %v", err)
	}
}

// Without Close, the open that outlived its caller's deadline serves the
// next use.
func TestLazyLateOpenServesTheNextUse(t *testing.T) {
	p := filepath.Join(t.TempDir(), FileName)
	release := lock(t, p)
	l := NewLazy(p, Options{})
	defer l.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	_, err := l.StoreContext(ctx)
	cancel()
	if !errors.Is(err, ErrBusy) {
		t.Fatalf("%v, want ErrBusy", err)
	}
	release()
	s, err := l.Store()
	if err != nil {
		t.Fatal(err)
	}
	if s2, _ := l.Store(); s2 != s {
		t.Fatal("a second open")
	}
	if _, err := s.Save("The user likes tea.", nil, ""); err != nil {
		t.Fatal(err)
	}
}
