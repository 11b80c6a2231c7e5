package telemetry

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

func setupT(t testing.TB, opts Options) *Tracing {
	t.Helper()
	if opts.DBPath == "" {
		opts.DBPath = DBPath(t.TempDir())
	}
	if opts.SessionID == "" {
		opts.SessionID = "sess-test"
	}
	opts.NoPrune = true
	tr, err := Setup(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tr.Shutdown(context.Background()) })
	return tr
}

// turn makes the spans of one agent-like turn: invoke_agent with a chat
// and a tool call under it. fail makes the tool call fail.
func turn(tr trace.Tracer, n int, tool string, fail bool) {
	ctx, root := tr.Start(context.Background(), "invoke_agent", trace.WithAttributes(
		attribute.String("gen_ai.operation.name", "invoke_agent"), attribute.Int("co.turn", n),
		attribute.String("gen_ai.input.messages", fmt.Sprintf(`[{"role":"user","parts":[{"type":"text","content":"prompt number %d"}]}]`, n))))
	_, chat := tr.Start(ctx, "chat test-model", trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
		attribute.String("gen_ai.operation.name", "chat"), attribute.Int("gen_ai.usage.input_tokens", 10)))
	chat.End()
	_, call := tr.Start(ctx, "execute_tool "+tool, trace.WithAttributes(
		attribute.String("gen_ai.operation.name", "execute_tool"), attribute.String("gen_ai.tool.name", tool),
		attribute.String("gen_ai.tool.call.arguments", `{"n":`+fmt.Sprint(n)+`}`)))
	if fail {
		call.SetStatus(codes.Error, "tool broke")
		call.RecordError(errors.New("tool broke"))
	}
	call.End()
	root.End()
}

func openRW(t testing.TB, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", writerDSN(path))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func count(t testing.TB, db *sql.DB, q string, args ...any) int {
	t.Helper()
	var n int
	if err := db.QueryRow(q, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestSchemaWALIndexesVersionAndMode(t *testing.T) {
	tr := setupT(t, Options{})
	turn(tr.Tracer(), 1, "read_file", false)
	if err := tr.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	db := openRW(t, tr.DBPath())
	var mode string
	if err := db.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode %q %v", mode, err)
	}
	if v := count(t, db, `PRAGMA auto_vacuum`); v != 2 {
		t.Errorf("auto_vacuum %d, want 2 (incremental)", v)
	}
	if v := count(t, db, `SELECT version FROM telemetry_schema`); v != SchemaVersion {
		t.Errorf("schema version %d", v)
	}
	for _, idx := range []string{"spans_trace_id", "spans_start_time"} {
		if count(t, db, `SELECT count(*) FROM sqlite_master WHERE type='index' AND name=?`, idx) != 1 {
			t.Errorf("index %s missing", idx)
		}
	}
	var cols []string
	rows, _ := db.Query(`SELECT name FROM pragma_table_info('spans') ORDER BY cid`)
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			t.Fatal(err)
		}
		cols = append(cols, c)
	}
	rows.Close()
	if got := strings.Join(cols, ","); got != "id,trace_id,parent_id,name,kind,start_time,end_time,duration_ms,status_code,status_description,attributes,events,resource" {
		t.Errorf("columns %s", got)
	}
	fi, err := os.Stat(tr.DBPath())
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("database mode %v %v, want 0600", fi.Mode(), err)
	}
	// A second Setup on the same file migrates nothing and keeps the rows.
	tr2 := setupT(t, Options{DBPath: tr.DBPath()})
	turn(tr2.Tracer(), 2, "read_file", false)
	if err := tr2.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, `SELECT count(*) FROM spans`); n != 6 {
		t.Errorf("%d rows after two sessions", n)
	}
}

func TestNewerSchemaIsRefused(t *testing.T) {
	path := DBPath(t.TempDir())
	if _, err := NewExporter(path).Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	db := openRW(t, path)
	if _, err := db.Exec(`UPDATE telemetry_schema SET version = 99`); err != nil {
		t.Fatal(err)
	}
	_, err := NewExporter(path).Open(context.Background())
	if err == nil || !strings.Contains(err.Error(), "newer") {
		t.Errorf("err = %v", err)
	}
}

func TestNSpansMakeNRows(t *testing.T) {
	tr := setupT(t, Options{BatchTimeout: 20 * time.Millisecond})
	const workers, turns = 4, 500 // 3 spans a turn: 6,000 spans
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < turns; i++ {
				turn(tr.Tracer(), i, "t", i%7 == 0)
			}
		}()
	}
	wg.Wait()
	if err := tr.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	db := openRW(t, tr.DBPath())
	if n := count(t, db, `SELECT count(*) FROM spans`); n != workers*turns*3 {
		t.Errorf("%d rows, want %d", n, workers*turns*3)
	}
	if n := count(t, db, `SELECT count(DISTINCT trace_id) FROM spans`); n != workers*turns {
		t.Errorf("%d traces, want %d", n, workers*turns)
	}
	if n, err := tr.Errs(); err != nil {
		t.Errorf("%d pipeline errors, last %v", n, err)
	}
}

func TestReadersNeverBlockTheWriter(t *testing.T) {
	tr := setupT(t, Options{})
	turn(tr.Tracer(), 1, "t", false)
	if err := tr.ForceFlush(context.Background()); err != nil {
		t.Fatal(err)
	}
	// A reader in the middle of a long read transaction.
	rd, err := sql.Open("sqlite3", readerDSN(tr.DBPath()))
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	rtx, err := rd.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer rtx.Rollback()
	if n := 0; rtx.QueryRow(`SELECT count(*) FROM spans`).Scan(&n) != nil || n != 3 {
		t.Fatalf("reader sees %d", n)
	}
	// Were the writer blocked by the reader, each write would wait out the
	// busy timeout and fail: the errors below, not a deadline, show it.
	for i := 0; i < 20; i++ {
		turn(tr.Tracer(), i, "t", false)
		if err := tr.ForceFlush(context.Background()); err != nil {
			t.Fatalf("write while a reader reads: %v", err)
		}
	}
	if _, err := tr.Errs(); err != nil {
		t.Errorf("pipeline error %v", err)
	}
	if n := count(t, openRW(t, tr.DBPath()), `SELECT count(*) FROM spans`); n != 63 {
		t.Errorf("%d rows written while the reader read, want 63", n)
	}
	// A read-only connection cannot write.
	if _, err := rd.Exec(`DELETE FROM spans`); err == nil {
		t.Error("the reader could delete")
	}
}

// at makes a finished span at a given time, size bytes of attribute.
func at(tr trace.Tracer, when time.Time, size int) {
	_, s := tr.Start(context.Background(), "old", trace.WithTimestamp(when),
		trace.WithAttributes(attribute.String("blob", strings.Repeat("x", size))))
	s.End(trace.WithTimestamp(when.Add(time.Millisecond)))
}

func TestPruneByAgeAndSize(t *testing.T) {
	tr := setupT(t, Options{})
	now := time.Now()
	for i := 0; i < 50; i++ {
		at(tr.Tracer(), now.Add(-40*24*time.Hour), 100) // past 30 days
	}
	for i := 0; i < 400; i++ {
		at(tr.Tracer(), now.Add(-time.Duration(400-i)*time.Minute), 8000) // ~3.2 MB, oldest first
	}
	if err := tr.ForceFlush(context.Background()); err != nil {
		t.Fatal(err)
	}
	db, err := tr.exporter.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	n, err := Prune(context.Background(), db, Retention{Days: 30}, now)
	if err != nil || n != 50 {
		t.Fatalf("pruned %d by age, err %v; want 50", n, err)
	}
	if c := count(t, db, `SELECT count(*) FROM spans`); c != 400 {
		t.Fatalf("%d left", c)
	}
	sizeBefore, _ := os.Stat(tr.DBPath())
	n, err = Prune(context.Background(), db, Retention{Days: 30, MaxMB: 1}, now)
	if err != nil || n == 0 {
		t.Fatalf("pruned %d by size, err %v", n, err)
	}
	used, _ := usedBytes(context.Background(), db)
	if used > 1<<20 {
		t.Errorf("%d bytes used after pruning to 1 MB", used)
	}
	// The newest stay.
	var newest int64
	if err := db.QueryRow(`SELECT max(start_time) FROM spans`).Scan(&newest); err != nil {
		t.Fatal(err)
	}
	if newest < now.Add(-2*time.Minute).UnixNano() {
		t.Errorf("the newest span was pruned")
	}
	sizeAfter, _ := os.Stat(tr.DBPath())
	if sizeAfter.Size() >= sizeBefore.Size() {
		t.Errorf("the file did not shrink: %d → %d", sizeBefore.Size(), sizeAfter.Size())
	}
}

func TestSetupPrunesInTheBackground(t *testing.T) {
	path := DBPath(t.TempDir())
	old := setupT(t, Options{DBPath: path})
	at(old.Tracer(), time.Now().Add(-100*24*time.Hour), 10)
	at(old.Tracer(), time.Now(), 10)
	if err := old.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	tr, err := Setup(Options{DBPath: path, Retention: Retention{Days: 30}})
	if err != nil {
		t.Fatal(err)
	}
	<-tr.bgDone
	if err := tr.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := count(t, openRW(t, path), `SELECT count(*) FROM spans`); n != 1 {
		t.Errorf("%d spans after start-up pruning, want 1", n)
	}
}

func TestStoreQueries(t *testing.T) {
	path := DBPath(t.TempDir())
	a := setupT(t, Options{DBPath: path, SessionID: "session-a", CaptureContent: true})
	turn(a.Tracer(), 1, "read_file", false)
	turn(a.Tracer(), 2, "run_shell_command", true)
	if err := a.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	b := setupT(t, Options{DBPath: path, SessionID: "session-b", CaptureContent: true})
	turn(b.Tracer(), 1, "web_search", false)
	if err := b.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	st := OpenStore(path)
	defer st.Close()
	ctx := context.Background()

	all, err := st.Traces(ctx, TraceFilter{})
	if err != nil || len(all) != 3 {
		t.Fatalf("traces %d %v", len(all), err)
	}
	if all[0].SessionID != "session-b" || all[0].Root != "invoke_agent" || all[0].Spans != 3 || all[0].Prompt != "prompt number 1" {
		t.Errorf("newest trace %+v", all[0])
	}
	for _, tc := range []struct {
		name string
		f    TraceFilter
		want int
	}{
		{"tool", TraceFilter{Tool: "run_shell_command"}, 1},
		{"errors", TraceFilter{ErrorsOnly: true}, 1},
		{"text", TraceFilter{Text: "prompt number 2"}, 1},
		{"text in args", TraceFilter{Text: `{"n":1}`}, 2},
		{"session", TraceFilter{SessionID: "session-a"}, 2},
		{"like wildcard is literal", TraceFilter{Text: "%"}, 0},
		{"nothing", TraceFilter{Tool: "nope"}, 0},
	} {
		got, err := st.Traces(ctx, tc.f)
		if err != nil || len(got) != tc.want {
			t.Errorf("%s: %d traces, %v; want %d", tc.name, len(got), err, tc.want)
		}
	}
	sess, err := st.Sessions(ctx, 0)
	if err != nil || len(sess) != 2 || sess[0].SessionID != "session-b" || sess[1].Turns != 2 {
		t.Errorf("sessions %+v %v", sess, err)
	}
	tools, _ := st.ToolNames(ctx)
	if strings.Join(tools, ",") != "read_file,run_shell_command,web_search" {
		t.Errorf("tools %v", tools)
	}
	latest, _ := st.LatestTraceID(ctx)
	if latest != all[0].TraceID {
		t.Errorf("latest %s", latest)
	}
	spans, err := st.Trace(ctx, latest[:6])
	if err != nil || len(spans) != 3 || spans[0].Name != "invoke_agent" {
		t.Errorf("trace by prefix: %d spans, %v", len(spans), err)
	}
	if _, err := st.Trace(ctx, "ffffffffffffffffffffffffffffffff"); !errors.Is(err, ErrNoTrace) {
		t.Errorf("unknown trace: %v", err)
	}
	if _, err := st.Trace(ctx, ""); err == nil {
		t.Errorf("an empty prefix matches several traces and must be refused")
	}
	last, _ := st.Last(ctx, 2, Filter{Tool: "*"})
	if len(last) != 2 || last[1].Name != "execute_tool web_search" {
		t.Errorf("last tools %v", names(last))
	}
	llm, _ := st.Last(ctx, 0, Filter{LLMOnly: true})
	if len(llm) != 3 {
		t.Errorf("llm spans %v", names(llm))
	}
	errs, _ := st.Last(ctx, 0, Filter{ErrorsOnly: true})
	if len(errs) != 1 || errs[0].Events[0].Name != "exception" {
		t.Errorf("errors %v", names(errs))
	}
	after, _ := st.After(ctx, last[0].Seq, Filter{}, 100)
	if len(after) == 0 || after[0].Seq <= last[0].Seq {
		t.Errorf("after")
	}
}

func names(ss []Span) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.Name)
	}
	return out
}

func TestStoreBeforeAnySpan(t *testing.T) {
	st := OpenStore(DBPath(t.TempDir()))
	if _, err := st.Traces(context.Background(), TraceFilter{}); !errors.Is(err, ErrNoStore) {
		t.Errorf("err %v", err)
	}
	var out bytes.Buffer
	if err := Tail(context.Background(), st, &out, TailOptions{}); err != nil || out.Len() != 0 {
		t.Errorf("tail of nothing: %q %v", out.String(), err)
	}
}

func TestTailLinesAndDetail(t *testing.T) {
	tr := setupT(t, Options{CaptureContent: true})
	turn(tr.Tracer(), 1, "read_file", false)
	turn(tr.Tracer(), 2, "run_shell_command", true)
	if err := tr.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	st := OpenStore(tr.DBPath())
	defer st.Close()
	var out bytes.Buffer
	if err := Tail(context.Background(), st, &out, TailOptions{Detail: true}); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	lines := strings.Split(strings.TrimSpace(got), "\n")
	if strings.Count(got, "── trace ") != 2 {
		t.Errorf("want a separator per trace:\n%s", got)
	}
	for _, want := range []string{"LLM    chat test-model", "TOOL   execute_tool read_file", "AGENT  invoke_agent", "turn=2",
		"ERROR: tool broke", `args: {"n":1}`, "prompt: prompt number 2", "error: tool broke"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	if !strings.HasPrefix(lines[0], "── trace ") {
		t.Errorf("first line %q", lines[0])
	}

	out.Reset()
	if err := Tail(context.Background(), st, &out, TailOptions{JSON: true, Last: 2, Filter: Filter{Tool: "*"}}); err != nil {
		t.Fatal(err)
	}
	js := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(js) != 2 {
		t.Fatalf("json lines %q", out.String())
	}
	var sp Span
	if err := json.Unmarshal([]byte(js[1]), &sp); err != nil || sp.Name != "execute_tool run_shell_command" || sp.StatusCode != "ERROR" {
		t.Errorf("json %q %v", js[1], err)
	}
}

func TestTailFollowsInOrder(t *testing.T) {
	tr := setupT(t, Options{BatchTimeout: 10 * time.Millisecond})
	turn(tr.Tracer(), 0, "before", false)
	tr.ForceFlush(context.Background())
	st := OpenStore(tr.DBPath())
	defer st.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := &lockedBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- Tail(ctx, st, out, TailOptions{Follow: true, Last: 0, Poll: 10 * time.Millisecond, Filter: Filter{Tool: "*"}})
	}()
	for i := 1; i <= 30; i++ {
		turn(tr.Tracer(), i, fmt.Sprintf("tool_%02d", i), false)
		time.Sleep(2 * time.Millisecond)
	}
	// Wait for the last one, however long the machine takes: were it never
	// shown, go test's -timeout would end the test.
	for !strings.Contains(out.String(), "tool_30") {
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	got := out.String()
	last := -1
	for i := 0; i <= 30; i++ {
		name := "execute_tool before"
		if i > 0 {
			name = fmt.Sprintf("execute_tool tool_%02d", i)
		}
		at := strings.Index(got, name)
		if at < 0 || at < last {
			t.Fatalf("%s missing or out of order in:\n%s", name, got)
		}
		last = at
	}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestWriteTraceHTMLIsSelfContained(t *testing.T) {
	tr := setupT(t, Options{CaptureContent: true})
	ctx, root := tr.Tracer().Start(context.Background(), "invoke_agent")
	_, s := tr.Tracer().Start(ctx, "execute_tool x", trace.WithAttributes(attribute.String("gen_ai.tool.call.result", `</script><script>alert(1)</script><img src="http://evil.example/x.png">`)))
	s.End()
	root.End()
	if err := tr.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	st := OpenStore(tr.DBPath())
	defer st.Close()
	id, _ := st.LatestTraceID(context.Background())
	spans, err := st.Trace(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteTraceHTML(&b, id, spans); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if strings.Count(page, "</script>") != 3 { // data, waterfall.js, trace.js
		t.Errorf("span text closed a script element: %d </script>", strings.Count(page, "</script>"))
	}
	for _, bad := range []string{` src="http`, ` href="http`, "<link rel=\"stylesheet\"", "@import", "url("} {
		if strings.Contains(page, bad) {
			t.Errorf("page references an external resource: %q", bad)
		}
	}
	if !strings.Contains(page, "default-src 'none'") {
		t.Error("no CSP")
	}
}

// TestExportHonoursItsContext: a cancelled export writes nothing and
// leaves no transaction open; the next batch is written whole.
func TestExportHonoursItsContext(t *testing.T) {
	exp := NewExporter(DBPath(t.TempDir()))
	defer func() {
		if err := exp.Shutdown(context.Background()); err != nil {
			t.Error(err)
		}
	}()
	spans := agentLikeSpans(8)
	ctx, cancel := context.WithCancel(context.Background())
	if err := exp.ExportSpans(ctx, spans[:4]); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := exp.ExportSpans(ctx, spans[4:]); err == nil {
		t.Fatal("a cancelled export succeeded")
	}
	if err := exp.ExportSpans(context.Background(), spans[4:]); err != nil {
		t.Fatal(err)
	}
	db := openRW(t, exp.Path())
	if n := count(t, db, `SELECT count(*) FROM spans`); n != 8 {
		t.Errorf("%d rows, want 8", n)
	}
}
