package telemetry

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/co-cli/co/lib/sqlitefile"
)

// writerEnv makes the test binary a span writer (see writerMain).
const writerEnv = "CO_TELEMETRY_TEST_WRITER"

// writerMain writes turns as fast as it can, with the given batch timeout
// (0: the default), printing "ended N" after each turn's spans end, until
// it is killed.
func writerMain(path, session string, batch time.Duration) {
	tr, err := Setup(Options{DBPath: path, SessionID: session, CaptureContent: true, NoPrune: true, BatchTimeout: batch})
	if err != nil {
		fmt.Println("setup:", err)
		os.Exit(2)
	}
	out := bufio.NewWriter(os.Stdout)
	blob := strings.Repeat("tool output line\n", 64)
	for n := 1; ; n++ {
		ctx, root := tr.Tracer().Start(context.Background(), "invoke_agent", trace.WithAttributes(attribute.Int("co.turn", n)))
		for i := 0; i < 3; i++ {
			_, s := tr.Tracer().Start(ctx, "execute_tool t", trace.WithAttributes(attribute.String("gen_ai.tool.call.result", blob)))
			s.End()
		}
		root.End()
		fmt.Fprintf(out, "ended %d\n", n)
		out.Flush()
		time.Sleep(2 * time.Millisecond)
	}
}

func TestWriterHelper(t *testing.T) {
	if p := os.Getenv(writerEnv); p != "" {
		batch, _ := time.ParseDuration(os.Getenv(writerEnv + "_BATCH"))
		writerMain(p, os.Getenv(writerEnv+"_SESSION"), batch)
	}
	t.Skip("a helper process for TestKilledWriter")
}

// TestKilledWriter: kill -9 of a writer in full flow never corrupts the
// database, and what it loses is only the tail: the turns stored are
// exactly turns 1..K, every turn that ended before a stored one is there
// too. (How long the tail can be, BatchTimeout's worth of spans, is the
// SDK's BatchSpanProcessor's timeout.) Each kill waits for events, not for a time: the
// writer's first batch in the store, then 20 more turns ended.
func TestKilledWriter(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns writers")
	}
	path := DBPath(t.TempDir())
	var prevRows int
	// Rounds 1-3 use the default batch timeout; rounds 4-6 write all the
	// time (1 ms batches), so the kill lands in a transaction.
	for round := 1; round <= 6; round++ {
		batch := "0s"
		if round > 3 {
			batch = "1ms"
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestWriterHelper$")
		session := fmt.Sprintf("writer-%d", round)
		cmd.Env = append(os.Environ(), writerEnv+"="+path, writerEnv+"_SESSION="+session, writerEnv+"_BATCH="+batch)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		var ended atomic.Int64 // the last turn the writer reported ended
		scanDone := make(chan struct{})
		go func() {
			defer close(scanDone)
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				f := strings.Fields(sc.Text())
				if len(f) == 2 && f[0] == "ended" {
					n, _ := strconv.ParseInt(f[1], 10, 64)
					ended.Store(n)
				}
			}
		}()
		// waitFor polls until cond holds; the writer exiting on its own
		// is a failure.
		waitFor := func(what string, cond func() bool) {
			t.Helper()
			for !cond() {
				select {
				case <-scanDone:
					_ = cmd.Wait()
					t.Fatalf("round %d: the writer exited before %s", round, what)
				case <-time.After(5 * time.Millisecond):
				}
			}
		}
		rd, err := sql.Open("sqlite3", readerDSN(path))
		if err != nil {
			t.Fatal(err)
		}
		var seen int // turns of this session seen in the store before the kill
		waitFor("its first batch was stored", func() bool {
			// Until the writer has created the store, there is no file or
			// no table to read, or it is locked while it becomes WAL.
			seen, err = storedTurns(rd, session)
			if err != nil && !sqlitefile.Busy(err) && !strings.Contains(err.Error(), "no such table") && !strings.Contains(err.Error(), "unable to open") {
				t.Fatalf("round %d: reading the store: %v", round, err)
			}
			return seen > 0
		})
		rd.Close()
		mark := ended.Load()
		waitFor("20 more turns ended", func() bool { return ended.Load() >= mark+20 })
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
		<-scanDone

		db, err := sql.Open("sqlite3", writerDSN(path))
		if err != nil {
			t.Fatal(err)
		}
		var check string
		if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
			t.Fatalf("round %d: integrity_check %q %v", round, check, err)
		}
		rows := count(t, db, `SELECT count(*) FROM spans`)
		stored := map[int]bool{}
		r, err := db.Query(`SELECT json_extract(attributes, '$."co.turn"') FROM spans WHERE name = 'invoke_agent' AND json_extract(resource, '$."session.id"') = ?`, session)
		if err != nil {
			t.Fatal(err)
		}
		for r.Next() {
			var n sql.NullInt64
			if err := r.Scan(&n); err != nil {
				t.Fatal(err)
			}
			stored[int(n.Int64)] = true
		}
		r.Close()
		db.Close()

		last := 0 // the last turn stored; 1..last must all be there
		for n := range stored {
			last = max(last, n)
		}
		var holes []int
		for n := 1; n <= last; n++ {
			if !stored[n] {
				holes = append(holes, n)
			}
		}
		t.Logf("round %d: %d turns ended before the kill, %d stored, %d rows in all", round, ended.Load(), last, rows)
		if len(holes) > 0 {
			t.Errorf("round %d: turns %v lost though turn %d, which ended after them, was stored", round, holes, last)
		}
		if last < seen {
			t.Errorf("round %d: %d turns stored after the kill, %d before it", round, last, seen)
		}
		if rows <= prevRows {
			t.Errorf("round %d: %d rows, no more than before (%d)", round, rows, prevRows)
		}
		prevRows = rows
	}
}

// storedTurns is how many invoke_agent spans of session the store holds.
func storedTurns(db *sql.DB, session string) (int, error) {
	var n int
	err := db.QueryRow(`SELECT count(*) FROM spans WHERE name = 'invoke_agent' AND json_extract(resource, '$."session.id"') = ?`, session).Scan(&n)
	return n, err
}
