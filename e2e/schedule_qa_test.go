package e2e

import (
	"bytes"
	"encoding/json"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/co-cli/co/agent/llmtest"
)

// addScheduleSetting writes a schedule into the user settings of a
// scheduleEnv home, as co schedule add would save it.
func addScheduleSetting(t *testing.T, environ []string, name string, sch map[string]any) {
	t.Helper()
	home := strings.TrimPrefix(environ[0], "HOME=")
	settings := filepath.Join(home, ".config", "co-cli", "settings.json")
	b, err := os.ReadFile(settings)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	all, _ := m["schedules"].(map[string]any)
	if all == nil {
		all = map[string]any{}
	}
	all[name] = sch
	m["schedules"] = all
	b, _ = json.Marshal(m)
	if err := os.WriteFile(settings, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// waitFile waits, with one generous deadline, until the file at p holds
// want, and returns its content.
func waitFile(t *testing.T, p, want string) string {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		b, _ := os.ReadFile(p)
		if strings.Contains(string(b), want) {
			return string(b)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never held %q:\n%s", p, want, b)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A run started while the previous run of the same schedule still writes
// its answer is skipped without cutting into that answer: the running
// run's log stays whole (the skip was written mid-line before), co schedule
// logs shows the skip at once, and the log gets it after the running run's
// end.
func TestScheduleSkippedRunLeavesTheRunningLogWhole(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	// The answer stops mid-line and the stream stays open: the run is
	// still going, its log ending in the middle of a line.
	srv.Script(llmtest.Reply{Chunks: []string{"Part one ", "and part two."}, StallAfter: 1})
	environ, dataDir := scheduleEnv(t, srv)
	ws := t.TempDir()
	addScheduleSetting(t, environ, "slow", map[string]any{"at": "hourly", "prompt": "Tidy my notes", "workspace": ws})
	logPath := filepath.Join(dataDir, "schedules", "slow.log")

	first := exec.Command(coBin, "schedule", "run", "slow")
	first.Env, first.Dir = environ, ws
	var firstErr bytes.Buffer
	first.Stderr = &firstErr
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = first.Process.Kill() })
	before := waitFile(t, logPath, "Part one ")

	_, errOut, code := runCo(t, ws, environ, "", "schedule", "run", "slow")
	if code == 0 || !strings.Contains(errOut, "still running") || !strings.Contains(errOut, "skipped") {
		t.Fatalf("the second run: exit %d, %q", code, errOut)
	}
	if b, _ := os.ReadFile(logPath); string(b) != before {
		t.Errorf("the skipped run wrote into the running run's log:\nbefore: %q\nafter:  %q", before, b)
	}
	out, _, _ := runCo(t, ws, environ, "", "schedule", "logs", "slow")
	if !strings.Contains(out, "Part one \n=== ") || !strings.Contains(out, "this one is skipped") {
		t.Errorf("co schedule logs does not show the skipped run while the first still runs:\n%s", out)
	}

	if err := first.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	_ = first.Wait()
	b, _ := os.ReadFile(logPath)
	log := string(b)
	exit := strings.Index(log, ": exit ")
	skip := strings.Index(log, "this one is skipped")
	if exit < 0 || skip < exit || strings.Count(log, "this one is skipped") != 1 {
		t.Errorf("the log should hold the skip once, after the running run's end:\n%s\n(stderr %s)", log, firstErr.String())
	}
	if i := strings.Index(log, "Part one "); i < 0 || strings.HasPrefix(log[i+len("Part one "):], "===") {
		t.Errorf("the answer was cut:\n%s", log)
	}
	out, _, _ = runCo(t, ws, environ, "", "schedule", "logs", "slow")
	if strings.Count(out, "this one is skipped") != 1 {
		t.Errorf("co schedule logs should show the skip once:\n%s", out)
	}
}

// A schedule's prompt attaches the workspace files it mentions, as the
// chat does, read when the run starts (today's file, not the one of the
// day it was added); a mention of no readable file is said in the log and
// the prompt goes as written.
func TestScheduledRunAttachesMentionedFiles(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(llmtest.Reply{Text: "Two todos."})
	environ, dataDir := scheduleEnv(t, srv)
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "todo.md"), []byte("- buy milk\n- call Ann\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	addScheduleSetting(t, environ, "todos", map[string]any{"at": "daily 09:00", "prompt": "Summarise @todo.md and @gone.md", "workspace": ws})
	_, errOut, code := runCo(t, ws, environ, "", "schedule", "run", "todos")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	msg := reqs[0].LastUserMessage()
	if !strings.HasPrefix(msg, "Summarise @todo.md and @gone.md") || !strings.Contains(msg, "call Ann") || !strings.Contains(msg, `<attached-file path="todo.md"`) {
		t.Errorf("the model got:\n%s", msg)
	}
	log, _ := os.ReadFile(filepath.Join(dataDir, "schedules", "todos.log"))
	if !strings.Contains(string(log), "attached: todo.md (2 lines)") || !strings.Contains(string(log), "@gone.md not attached") {
		t.Errorf("the log does not say what was attached:\n%s", log)
	}
}

// A delivery of a run's summary is a span of the run's own trace (a child
// of its turn), so co traces after a scheduled run shows the run with its
// deliveries, not a trace holding only the delivery.
func TestScheduledRunDeliveryIsInTheRunsTrace(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(llmtest.Reply{Text: "All quiet."})
	environ, _ := scheduleEnv(t, srv)
	for i, e := range environ {
		if strings.HasPrefix(e, "XDG_RUNTIME_DIR=") || strings.HasPrefix(e, "DBUS_SESSION_BUS_ADDRESS=") {
			environ[i] = "CO_TEST_UNSET_" + e // no session bus: the delivery fails, and is a span all the same
		}
	}
	ws := t.TempDir()
	addScheduleSetting(t, environ, "quiet", map[string]any{"at": "hourly", "prompt": "Anything new?", "workspace": ws, "notify": []string{"desktop"}})
	if _, errOut, code := runCo(t, ws, environ, "", "schedule", "run", "quiet"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	out, errOut, code := runCo(t, ws, environ, "", "tail", "--json", "--all", "--no-follow", "--last", "0")
	if code != 0 {
		t.Fatalf("co tail: exit %d %s", code, errOut)
	}
	type span struct {
		ID       string `json:"id"`
		TraceID  string `json:"trace_id"`
		ParentID string `json:"parent_id"`
		Name     string `json:"name"`
	}
	var turn, deliver *span
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var s span
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		switch s.Name {
		case "invoke_agent":
			turn = &s
		case "deliver":
			deliver = &s
		}
	}
	if turn == nil || deliver == nil {
		t.Fatalf("no turn or no deliver span:\n%s", out)
	}
	if deliver.TraceID != turn.TraceID || deliver.ParentID != turn.ID {
		t.Errorf("the deliver span (trace %s, parent %q) is not in the run's trace %s under its turn %s", deliver.TraceID, deliver.ParentID, turn.TraceID, turn.ID)
	}
	// co traces, the latest trace: the run's, its delivery in it.
	html := filepath.Join(t.TempDir(), "t.html")
	if _, errOut, code := runCo(t, ws, environ, "", "traces", "--no-open", "-o", html); code != 0 {
		t.Fatalf("co traces: exit %d %s", code, errOut)
	}
	b, _ := os.ReadFile(html)
	if !strings.Contains(string(b), turn.ID) || !strings.Contains(string(b), deliver.ID) {
		t.Errorf("co traces' latest trace does not hold the run and its delivery (%d bytes)", len(b))
	}
}

// co schedule rm while a run of that schedule is going: the run ends as
// it would, but does not bring the removed schedule's record back (it
// would otherwise linger in the data dir, and an early failure of a later
// run of that name would be logged as one of an installed schedule).
func TestScheduleRemovedDuringARunStaysRemoved(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	gate := make(chan struct{})
	srv.Script(llmtest.Reply{Text: "Done.", Gate: gate})
	environ, dataDir := scheduleEnv(t, srv)
	environ, _ = fakeCrontabPath(t, environ)
	ws := t.TempDir()
	if out, errOut, code := runCo(t, ws, environ, "", "schedule", "add", "brief", "--at", "daily 09:00", "Brief", "me"); code != 0 {
		t.Fatalf("add: exit %d %s %s", code, out, errOut)
	}
	run := exec.Command(coBin, "schedule", "run", "brief")
	run.Env, run.Dir = environ, ws
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = run.Process.Kill() })
	if len(srv.WaitRequests(1, 60*time.Second)) != 1 {
		t.Fatal("the run never asked the model")
	}
	if out, errOut, code := runCo(t, ws, environ, "", "schedule", "rm", "brief"); code != 0 {
		t.Fatalf("rm: exit %d %s %s", code, out, errOut)
	}
	close(gate)
	_ = run.Wait()
	if _, err := os.Stat(filepath.Join(dataDir, "schedules", "brief.json")); !os.IsNotExist(err) {
		b, _ := os.ReadFile(filepath.Join(dataDir, "schedules", "brief.json"))
		t.Errorf("the removed schedule's record came back: %s", b)
	}
	log, _ := os.ReadFile(filepath.Join(dataDir, "schedules", "brief.log"))
	if !strings.Contains(string(log), "Done.") || !strings.Contains(string(log), "exit 0, session ") || !strings.Contains(string(log), "removed while it ran") {
		t.Errorf("log:\n%s", log)
	}
	out, _, _ := runCo(t, ws, environ, "", "schedule", "list")
	if strings.Contains(out, "brief") {
		t.Errorf("list:\n%s", out)
	}
}

// A call a scheduled run kept waiting cannot be approved while that run
// is still going: the chat would resume the run's session and add to it
// while the run, in its own process, still writes its turn there (two
// writers, two models' views of one conversation). It says so; once the
// run has ended the call is approved as usual.
func TestInboxApproveWaitsForTheRunToEnd(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	gate := make(chan struct{})
	srv.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "write_file", Args: `{"path":"out.txt","content":"hello\n"}`}}},
		llmtest.Reply{Text: "Writing out.txt waits for you.", Gate: gate},
		llmtest.Reply{Text: "Written."},
	)
	environ, _ := scheduleEnv(t, srv)
	ws := t.TempDir()
	addScheduleSetting(t, environ, "writer", map[string]any{"at": "hourly", "prompt": "Write out.txt", "workspace": ws})
	run := exec.Command(coBin, "schedule", "run", "writer")
	run.Env, run.Dir = environ, ws
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = run.Process.Kill() })
	if len(srv.WaitRequests(2, 60*time.Second)) != 2 {
		t.Fatal("the run never came back to the model with the waiting call")
	}

	out, _, _ := runCo(t, ws, environ, "/inbox approve 1\n", "--plain")
	if !strings.Contains(out, "still running") {
		t.Errorf("approving during the run:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(ws, "out.txt")); err == nil {
		t.Error("the call ran while its run was still going")
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d requests: the chat went on in the running run's session", n)
	}

	close(gate)
	if err := run.Wait(); err != nil {
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 4 {
			t.Fatalf("the run: %v", err)
		}
	}
	out, _, _ = runCo(t, ws, environ, "/inbox approve 1\ny\n", "--plain")
	if b, err := os.ReadFile(filepath.Join(ws, "out.txt")); err != nil || string(b) != "hello\n" {
		t.Errorf("approving after the run: %v %q\n%s", err, b, out)
	}
}

// --notify, --tools and --approve take a list as people type it, with a
// space after each comma ("desktop, mail"), as /schedule add does.
func TestScheduleAddListsWithSpaces(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	environ, _ := scheduleEnv(t, srv)
	environ, _ = fakeCrontabPath(t, environ)
	ws := t.TempDir()
	out, errOut, code := runCo(t, ws, environ, "", "schedule", "add", "brief", "--at", "daily 09:00",
		"--notify", "desktop, mail", "--tools", "read_file, list_directory", "--approve", " read_file", "Brief", "me")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	home := strings.TrimPrefix(environ[0], "HOME=")
	b, _ := os.ReadFile(filepath.Join(home, ".config", "co-cli", "settings.json"))
	var m struct {
		Schedules map[string]struct {
			Tools   []string `json:"tools"`
			Approve []string `json:"approve"`
			Notify  []string `json:"notify"`
		} `json:"schedules"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	s := m.Schedules["brief"]
	if strings.Join(s.Notify, "|") != "desktop|mail" || strings.Join(s.Tools, "|") != "read_file|list_directory" || strings.Join(s.Approve, "|") != "read_file" {
		t.Errorf("saved %+v", s)
	}
}

// co schedule logs NAME reads only a schedule's log: a NAME that is no
// schedule name (../other) is refused, saying what a name is, rather than
// printing whatever DATA_DIR/schedules/../other.log holds.
func TestScheduleLogsRefusesAPath(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	environ, dataDir := scheduleEnv(t, srv)
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dataDir, "other.log"), []byte("not a schedule's log\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCo(t, t.TempDir(), environ, "", "schedule", "logs", "../other")
	if code == 0 || strings.Contains(out, "not a schedule's log") || !strings.Contains(errOut, "is not a schedule name") {
		t.Errorf("exit %d\n%s%s", code, out, errOut)
	}
}

// The scheduler runs entries in the machine's time zone (/etc/localtime),
// not in a TZ exported in the shell co schedule add runs in: with TZ set to
// another zone, co says when the run really happens, and when that is in
// TZ, instead of a next run that will not happen.
func TestScheduleAddWithAnotherTZ(t *testing.T) {
	b, err := os.Readlink("/etc/localtime")
	if err != nil || !strings.HasSuffix(b, "/UTC") {
		t.Skipf("the machine's zone is %q, not UTC (this test reads SPECs against UTC)", b)
	}
	srv := llmtest.NewServer()
	defer srv.Close()
	environ, _ := scheduleEnv(t, srv)
	environ, table := fakeCrontabPath(t, environ)
	environ = append(environ, "TZ=Asia/Tokyo") // UTC+9, no daylight saving
	out, errOut, code := runCo(t, t.TempDir(), environ, "", "schedule", "add", "brief", "--at", "daily 08:00", "Brief", "me")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, "WARNING: TZ=Asia/Tokyo") || !strings.Contains(out, "08:00 UTC") || !strings.Contains(out, "17:00 JST") {
		t.Errorf("no warning of the zone:\n%s", out)
	}
	if !strings.Contains(out, "next run: ") || !strings.Contains(out, " 08:00 UTC\n") {
		t.Errorf("the next run is not the scheduler's:\n%s", out)
	}
	if tab, _ := os.ReadFile(table); !strings.Contains(string(tab), "0 8 * * * ") {
		t.Errorf("crontab:\n%s", tab)
	}
	out, _, _ = runCo(t, t.TempDir(), environ, "", "schedule", "list")
	if !strings.Contains(out, " 08:00") {
		t.Errorf("list:\n%s", out)
	}
}

// An image a schedule's prompt mentions goes with the prompt as an image,
// as in the chat, and the log names it.
func TestScheduledRunAttachesAMentionedImage(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(llmtest.Reply{Text: "A white square."})
	environ, dataDir := scheduleEnv(t, srv)
	ws := t.TempDir()
	f, err := os.Create(filepath.Join(ws, "chart.png"))
	if err != nil {
		t.Fatal(err)
	}
	if err := png.Encode(f, image.NewGray(image.Rect(0, 0, 4, 3))); err != nil {
		t.Fatal(err)
	}
	f.Close()
	addScheduleSetting(t, environ, "chart", map[string]any{"at": "daily 09:00", "prompt": "What does @chart.png show?", "workspace": ws})
	if _, errOut, code := runCo(t, ws, environ, "", "schedule", "run", "chart"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	images := 0
	for _, m := range reqs[0].Messages() {
		for _, p := range m.Parts() {
			if p.Type == "image_url" {
				images++
			}
		}
	}
	if images != 1 {
		t.Errorf("%d images sent", images)
	}
	log, _ := os.ReadFile(filepath.Join(dataDir, "schedules", "chart.log"))
	if !strings.Contains(string(log), "attached chart.png") {
		t.Errorf("the log does not name the image:\n%s", log)
	}
}

// A schedule's prompt "/NAME ARGS" runs that custom command (or skill) as
// the chat would, with the command file as it is at the run; a built-in
// chat command is not run (a scheduled run has no chat), and the log says
// the prompt went as written.
func TestScheduledRunSendsACustomCommand(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(llmtest.Reply{Text: "Hello, Ann."}, llmtest.Reply{Text: "ok"})
	environ, dataDir := scheduleEnv(t, srv)
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, ".co-cli", "commands"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, ".co-cli", "commands", "greet.md"), []byte("Say hello to $ARGUMENTS\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	addScheduleSetting(t, environ, "greet", map[string]any{"at": "daily 09:00", "prompt": "/greet Ann", "workspace": ws})
	addScheduleSetting(t, environ, "yolo", map[string]any{"at": "daily 09:00", "prompt": "/yolo on", "workspace": ws})
	if _, errOut, code := runCo(t, ws, environ, "", "schedule", "run", "greet"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if _, errOut, code := runCo(t, ws, environ, "", "schedule", "run", "yolo"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	if got := reqs[0].LastUserMessage(); !strings.HasPrefix(got, "Say hello to Ann") {
		t.Errorf("the model got %q for /greet Ann", got)
	}
	if got := reqs[1].LastUserMessage(); got != "/yolo on" {
		t.Errorf("the model got %q for /yolo on", got)
	}
	log, _ := os.ReadFile(filepath.Join(dataDir, "schedules", "yolo.log"))
	if !strings.Contains(string(log), "/yolo is a command of the chat") {
		t.Errorf("yolo's log:\n%s", log)
	}
}

// A run that cannot start because its workspace is gone still sends its
// summary where the schedule's notify says: the failure is news the user
// asked to hear about, and nothing else would tell them.
func TestScheduledRunWithoutItsWorkspaceIsDelivered(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	environ, dataDir := scheduleEnv(t, srv)
	for i, e := range environ {
		if strings.HasPrefix(e, "XDG_RUNTIME_DIR=") || strings.HasPrefix(e, "DBUS_SESSION_BUS_ADDRESS=") {
			environ[i] = "CO_TEST_UNSET_" + e // no session bus: the log says where the summary did not go
		}
	}
	ws := filepath.Join(t.TempDir(), "gone")
	addScheduleSetting(t, environ, "brief", map[string]any{"at": "daily 09:00", "prompt": "Brief me", "workspace": ws, "notify": []string{"desktop"}})
	if _, _, code := runCo(t, t.TempDir(), environ, "", "schedule", "run", "brief"); code == 0 {
		t.Fatal("a run without its workspace succeeded")
	}
	log, _ := os.ReadFile(filepath.Join(dataDir, "schedules", "brief.log"))
	if !strings.Contains(string(log), "cannot be used") || !strings.Contains(string(log), "not delivered to desktop") {
		t.Errorf("the failed run's summary was not sent (or the log does not say so):\n%s", log)
	}
	if len(srv.Requests()) != 0 {
		t.Errorf("the model was asked")
	}
}

// A run skipped because the previous one still runs is news for the
// schedule's notify (a run stuck for hours otherwise shows only in its
// log): the first skip after a run started is delivered, later ones are
// only noted, so a stuck hourly run does not notify every hour.
func TestScheduleSkippedRunIsDeliveredOnce(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	environ, dataDir := scheduleEnv(t, srv)
	for i, e := range environ {
		if strings.HasPrefix(e, "XDG_RUNTIME_DIR=") || strings.HasPrefix(e, "DBUS_SESSION_BUS_ADDRESS=") {
			environ[i] = "CO_TEST_UNSET_" + e // no session bus: the log says where the summary did not go
		}
	}
	ws := t.TempDir()
	addScheduleSetting(t, environ, "stuck", map[string]any{"at": "hourly", "prompt": "Check", "workspace": ws, "notify": []string{"desktop"}})
	if err := os.MkdirAll(filepath.Join(dataDir, "schedules"), 0o700); err != nil {
		t.Fatal(err)
	}
	lock, err := os.OpenFile(filepath.Join(dataDir, "schedules", "stuck.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, errOut, code := runCo(t, ws, environ, "", "schedule", "run", "stuck"); code == 0 || !strings.Contains(errOut, "skipped") {
			t.Fatalf("exit %d %s", code, errOut)
		}
	}
	out, _, _ := runCo(t, ws, environ, "", "schedule", "logs", "stuck")
	if strings.Count(out, "this one is skipped") != 2 || strings.Count(out, "not delivered to desktop") != 1 {
		t.Errorf("two skips, the first delivered:\n%s", out)
	}
}
