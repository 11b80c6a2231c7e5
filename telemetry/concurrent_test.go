package telemetry

import (
	"context"
	"database/sql"
	"sync"
	"testing"
	"time"
)

// TestWritersStartedTogetherOnANewStore: co started in several terminals
// at once on a data dir without co-cli.db, each writing turns with small
// batches (many transactions) and pruning. Every writer has its own
// connections, as processes would: all open the store, none gets an
// export error ("database is locked"), no span is dropped or lost.
func TestWritersStartedTogetherOnANewStore(t *testing.T) {
	const writers, turns = 6, 60
	path := DBPath(t.TempDir())
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make(chan string, writers)
	for i := 0; i < writers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			tr, err := Setup(Options{DBPath: path, SessionID: "w", ServiceVersion: "test", BatchTimeout: time.Millisecond,
				Retention: Retention{Days: 30, MaxMB: 500}})
			if err != nil {
				errs <- err.Error()
				return
			}
			for n := 0; n < turns; n++ {
				turn(tr.Tracer(), n, "shell", false)
				time.Sleep(time.Millisecond)
			}
			if err := tr.Shutdown(context.Background()); err != nil {
				errs <- err.Error()
			}
			if n, err := tr.Errs(); err != nil {
				errs <- err.Error()
			} else if n > 0 {
				errs <- "export errors without one kept"
			}
			if d := tr.Dropped(); d > 0 {
				errs <- "spans dropped"
			}
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	db, err := sql.Open("sqlite3", readerDSN(path))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if n := count(t, db, `SELECT count(*) FROM spans`); n != writers*turns*3 {
		t.Errorf("%d spans stored, want %d", n, writers*turns*3)
	}
}
