package e2e

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/co-cli/co/agent/llmtest"
)

// runCoTTYErr runs co with its stderr on a terminal (a pty), as a person
// runs co schedule run by hand, and stdout to a pipe: it returns the two
// apart and the exit code.
func runCoTTYErr(t *testing.T, dir string, environ []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ptm, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptm.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, coBin, args...)
	cmd.Env, cmd.Dir = environ, dir
	var out bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(""), &out, tty
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close() // co holds the terminal now; reading ends when it exits
	read := make(chan string)
	go func() {
		b, _ := io.ReadAll(ptm) // EIO once the last holder closes it
		read <- string(b)
	}()
	err = cmd.Wait()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("running co: %v", err)
	}
	return out.String(), strings.ReplaceAll(<-read, "\r\n", "\n"), code
}

// co schedule run NAME whose run stops for an approval says so on
// stderr, by hand (a terminal): what it waits for and what to type. Run
// as cron runs it (stderr not a terminal, mailed) a waiting run, which is
// a success, prints nothing; a failed run says why in one line either way.
func TestScheduleRunSaysWhatItWaitsFor(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	environ, _ := scheduleEnv(t, srv)
	ws := t.TempDir()
	addScheduleSetting(t, environ, "todos", map[string]any{"at": "weekdays 08:00", "prompt": "write it down", "workspace": ws})
	waits := func() []llmtest.Reply {
		return []llmtest.Reply{
			{ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "write_file", Args: `{"path":"done.txt","content":"sent"}`}}},
			{Text: "Written once you approve."},
		}
	}

	srv.Script(waits()...)
	_, errOut, code := runCoTTYErr(t, t.TempDir(), environ, "schedule", "run", "todos")
	if code != 4 {
		t.Fatalf("exit %d, want 4 (waiting)\nstderr: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	want := "co: the run of todos waits for your approval of write_file(path='done.txt', content='sent') — creates done.txt (1 line): co inbox shows it; approve it in the chat with /inbox approve 1"
	if len(lines) != 1 || lines[0] != want {
		t.Errorf("stderr on a terminal:\n%s\nwant the one line:\n%s", errOut, want)
	}

	// As cron runs it: nothing to mail for a run that waits.
	srv.Script(waits()...)
	out, errOut, code := runCo(t, t.TempDir(), environ, "", "schedule", "run", "todos")
	if code != 4 || out != "" || errOut != "" {
		t.Errorf("under cron: exit %d, stdout %q, stderr %q; want 4 and no output", code, out, errOut)
	}

	// A failed run says why, to cron's mail too.
	srv.Script(llmtest.Reply{Status: 401})
	_, errOut, code = runCo(t, t.TempDir(), environ, "", "schedule", "run", "todos")
	if code != 1 || !strings.HasPrefix(errOut, "co: the run of todos failed (exit 1): ") ||
		!strings.HasSuffix(errOut, "; co schedule logs todos says more\n") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("a failed run: exit %d, stderr %q", code, errOut)
	}
}

// co schedule list with no schedules says so in one plain line and exits
// 0, even where no scheduler could run one (nothing is kept from running
// yet: co schedule add says it); with a schedule, that is a warning.
func TestScheduleListWithNone(t *testing.T) {
	environ := env(t, nil)
	for i, kv := range environ {
		if strings.HasPrefix(kv, "PATH=") {
			environ[i] = "PATH=" + t.TempDir() // no crontab, no systemctl
		}
	}
	ws := t.TempDir()
	out, errOut, code := runCo(t, ws, environ, "", "schedule", "list")
	if want := "no schedules yet (add one: co schedule add NAME --at \"tomorrow 9am\" PROMPT…)\n"; code != 0 || out != want || errOut != "" {
		t.Errorf("no schedules: exit %d, stdout %q, stderr %q; want 0 and %q", code, out, errOut, want)
	}

	home := strings.TrimPrefix(environ[0], "HOME=")
	if err := os.MkdirAll(filepath.Join(home, ".config", "co-cli"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".config", "co-cli", "settings.json"), []byte(`{}`), 0o600); err != nil {
		t.Fatal(err)
	}
	addScheduleSetting(t, environ, "brief", map[string]any{"at": "weekdays 08:00", "prompt": "Brief me", "workspace": ws})
	out, _, code = runCo(t, ws, environ, "", "schedule", "list")
	if code != 0 || !strings.Contains(out, "brief ") || !strings.Contains(out, "WARNING: no scheduler to run schedules") {
		t.Errorf("a schedule and no scheduler: exit %d\n%s", code, out)
	}
}

// co schedule add reads the times people type: "tomorrow 9am" is saved
// and installed as the date it means; a date that has passed is refused
// saying so and showing the forms co reads.
func TestScheduleAddTomorrow9am(t *testing.T) {
	environ, table := fakeCrontabPath(t, env(t, nil))
	ws := t.TempDir()
	before := time.Now()
	out, errOut, code := runCo(t, ws, environ, "", "schedule", "add", "report", "--at", "tomorrow 9am", "Remind", "me")
	after := time.Now()
	// Tomorrow as co saw it: the day after before's or after's date (the
	// run may cross midnight).
	var dates []string
	for _, d := range []time.Time{before, after} {
		dates = append(dates, time.Date(d.Year(), d.Month(), d.Day()+1, 9, 0, 0, 0, time.Local).Format("2006-01-02"))
	}
	said := func(d string) bool { return strings.Contains(out, "added schedule report: once, on "+d+" at 09:00\n") }
	if code != 0 || !said(dates[0]) && !said(dates[1]) {
		t.Fatalf("add --at \"tomorrow 9am\": exit %d, want once on %v\n%s%s", code, dates, out, errOut)
	}
	tab, _ := os.ReadFile(table)
	if !strings.Contains(string(tab), "0 9 ") || !strings.Contains(string(tab), "schedule run report") {
		t.Errorf("crontab:\n%s", tab)
	}
	list, _, _ := runCo(t, ws, environ, "", "schedule", "list")
	if !strings.Contains(list, dates[0]+" 09:00") && !strings.Contains(list, dates[1]+" 09:00") {
		t.Errorf("the saved SPEC is not the date:\n%s", list)
	}

	_, errOut, code = runCo(t, ws, environ, "", "schedule", "add", "old", "--at", "2026-12-01 09:30", "x")
	if code != 1 || !strings.Contains(errOut, `"2026-12-01 09:30" is Tue 2026-12-01 09:30, which has passed`) || !strings.Contains(errOut, `"in 2h"`) {
		t.Errorf("a past date: exit %d %s", code, errOut)
	}
}
