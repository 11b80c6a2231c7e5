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
	"sync"
	"syscall"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// writerEnv makes the test binary a span writer (see writerMain).
const writerEnv = "CO_TELEMETRY_TEST_WRITER"

// writerMain writes turns as fast as it can, with the default batch
// timeout, printing "ended N UNIXNANO" after each turn's spans end, until
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
		fmt.Fprintf(out, "ended %d %d\n", n, time.Now().UnixNano())
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
// database, and what it loses is at most the last batch (spans that ended
// within about a second of the kill).
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
		ended := map[int]int64{}
		var mu sync.Mutex
		scanDone := make(chan struct{})
		go func() {
			defer close(scanDone)
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				f := strings.Fields(sc.Text())
				if len(f) == 3 && f[0] == "ended" {
					n, _ := strconv.Atoi(f[1])
					at, _ := strconv.ParseInt(f[2], 10, 64)
					mu.Lock()
					ended[n] = at
					mu.Unlock()
				}
			}
		}()
		time.Sleep(time.Duration(1200+round*137) * time.Millisecond)
		killedAt := time.Now()
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
			r.Scan(&n)
			stored[int(n.Int64)] = true
		}
		r.Close()
		db.Close()

		mu.Lock()
		lost, lostLate := 0, 0
		for n, at := range ended {
			if !stored[n] {
				if killedAt.Sub(time.Unix(0, at)) > 1200*time.Millisecond {
					lost++
				} else {
					lostLate++
				}
			}
		}
		total := len(ended)
		mu.Unlock()
		t.Logf("round %d: %d turns ended before the kill, %d rows in all; lost in the last ~1 s: %d turns", round, total, rows, lostLate)
		if lost > 0 {
			t.Errorf("round %d: %d turns that ended more than 1.2 s before the kill were lost", round, lost)
		}
		if rows <= prevRows {
			t.Errorf("round %d: %d rows, no more than before (%d)", round, rows, prevRows)
		}
		prevRows = rows
	}
}
