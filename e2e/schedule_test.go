package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/lib/testneeds"
	"github.com/co-cli/co/schedule"
)

// scheduleEnv is a clean home for co whose provider is in the settings
// file, not the environment: the scheduler starts co without the test's
// environment, as it would without the user's shell.
func scheduleEnv(t *testing.T, srv *llmtest.Server) (environ []string, dataDir string) {
	t.Helper()
	environ = env(t, nil)
	home := strings.TrimPrefix(environ[0], "HOME=")
	settings := map[string]any{"llm_provider": "openai", "openai_base_url": srv.URL, "openai_model": "test-model",
		"openai_api_key": "sk-test", "sandbox_backend": "subprocess"}
	b, _ := json.Marshal(settings)
	dir := filepath.Join(home, ".config", "co-cli")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	return environ, filepath.Join(home, ".local", "share", "co-cli")
}

// A schedule for the next minute, added with the built co, really runs:
// Debian's cron daemon (started here unless one runs) reads the crontab
// entry co wrote, runs co schedule run, the prompt reaches the model, and
// the run is recorded, logged and listed. co schedule rm takes the entry
// out again.
func TestScheduleRunsFromCron(t *testing.T) {
	if os.Geteuid() != 0 {
		testneeds.Cron.Missing(t, "not root")
	}
	cronBin, err := exec.LookPath("cron")
	if err != nil {
		testneeds.Cron.Missing(t, "no cron command")
	}
	if _, err := exec.LookPath("crontab"); err != nil {
		testneeds.Cron.Missing(t, "no crontab command")
	}
	if !schedule.CronRunning() {
		cmd := exec.Command(cronBin, "-f")
		if err := cmd.Start(); err != nil {
			t.Fatalf("starting cron -f: %v", err)
		}
		t.Cleanup(func() {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		})
	}

	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(llmtest.Reply{Text: "Nothing new in your mail."})
	environ, dataDir := scheduleEnv(t, srv)
	// A % in the workspace's name: cron reads a bare one as the end of the
	// command (crontab(5)), so this runs only if co escaped it.
	ws := filepath.Join(t.TempDir(), "50% done")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}

	// The next minute, with a few seconds to spare for co to write the
	// entry before cron wakes for it.
	at := time.Now().Truncate(time.Minute).Add(time.Minute)
	if time.Until(at) < 15*time.Second {
		at = at.Add(time.Minute)
	}
	spec := at.Format("2006-01-02 15:04")
	out, errOut, code := runCo(t, ws, environ, "", "schedule", "add", "cronbrief", "--at", spec, "Brief", "me", "on", "my", "mail")
	if code != 0 {
		t.Fatalf("schedule add: exit %d\n%s\n%s", code, out, errOut)
	}
	t.Cleanup(func() {
		_, _, _ = runCo(t, ws, environ, "", "schedule", "rm", "cronbrief")
	})
	if !strings.Contains(out, "installed with cron") || !strings.Contains(out, "next run: "+at.Format("Mon 2006-01-02 15:04")) {
		t.Errorf("schedule add said:\n%s", out)
	}
	tab, _ := execOut("crontab", "-l")
	if !strings.Contains(tab, "# co schedule cronbrief (written by co") {
		t.Fatalf("no entry in the crontab:\n%s", tab)
	}

	// One generous deadline: cron runs the entry at the start of the
	// minute; co then answers within seconds.
	record := filepath.Join(dataDir, "schedules", "cronbrief.json")
	deadline := time.Now().Add(time.Until(at) + 3*time.Minute)
	var st struct {
		Last *struct {
			End       time.Time `json:"end"`
			Code      int       `json:"exit_code"`
			SessionID string    `json:"session_id"`
		} `json:"last_run"`
	}
	for {
		b, err := os.ReadFile(record)
		if err == nil && json.Unmarshal(b, &st) == nil && st.Last != nil && !st.Last.End.IsZero() {
			break
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(dataDir, "schedules", "cronbrief.log"))
			t.Fatalf("the schedule did not run by %v (cron at %s)\nrecord: %s\nlog:\n%s\ncrontab:\n%s", deadline, spec, b, log, tab)
		}
		time.Sleep(500 * time.Millisecond)
	}
	if st.Last.Code != 0 || st.Last.SessionID == "" {
		t.Errorf("last run: %+v", *st.Last)
	}
	if n := len(srv.Requests()); n != 1 || srv.Requests()[0].LastUserMessage() != "Brief me on my mail" {
		t.Errorf("the model got %d requests", n)
	}
	out, _, _ = runCo(t, ws, environ, "", "schedule", "logs", "cronbrief")
	if !strings.Contains(out, "Nothing new in your mail.") || !strings.Contains(out, "exit 0, session "+st.Last.SessionID) {
		t.Errorf("schedule logs:\n%s", out)
	}
	out, _, _ = runCo(t, ws, environ, "", "schedule", "list")
	if !strings.Contains(out, "cronbrief") || !strings.Contains(out, at.Format("2006-01-02 15:04")+" ok") {
		t.Errorf("schedule list:\n%s", out)
	}
	out, _, _ = runCo(t, ws, environ, "", "sessions")
	if !strings.Contains(out, st.Last.SessionID[:8]) {
		t.Errorf("co sessions does not show the run's session %s:\n%s", st.Last.SessionID, out)
	}

	out, errOut, code = runCo(t, ws, environ, "", "schedule", "rm", "cronbrief")
	if code != 0 || !strings.Contains(out, "and its cron entry") {
		t.Errorf("schedule rm: exit %d\n%s%s", code, out, errOut)
	}
	if tab, _ := execOut("crontab", "-l"); strings.Contains(tab, "cronbrief") {
		t.Errorf("the entry stayed:\n%s", tab)
	}
}

// The provider's key only in the environment: co schedule add warns that
// the scheduler will not see it, and says how to save it.
func TestScheduleAddWarnsOfEnvironmentSettings(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	environ, table := fakeCrontabPath(t, env(t, srv))
	ws := t.TempDir()
	out, errOut, code := runCo(t, ws, environ, "", "schedule", "add", "brief", "--at", "weekdays 08:00", "hello")
	if code != 0 || !strings.Contains(out, "openai_api_key") || !strings.Contains(out, "$OPENAI_API_KEY") || !strings.Contains(out, "co config set") {
		t.Errorf("exit %d\n%s%s", code, out, errOut)
	}
	// Without a terminal, the same name needs --replace.
	_, errOut, code = runCo(t, ws, environ, "", "schedule", "add", "brief", "--at", "daily 09:00", "hello")
	if code == 0 || !strings.Contains(errOut, "--replace") {
		t.Errorf("replace without asking: exit %d %s", code, errOut)
	}
	out, _, code = runCo(t, ws, environ, "", "schedule", "add", "brief", "--replace", "--at", "daily 09:00", "hello")
	tab, _ := os.ReadFile(table)
	if code != 0 || strings.Count(string(tab), "schedule run brief") != 1 || !strings.Contains(string(tab), "0 9 * * * ") {
		t.Errorf("replace: exit %d %s\n%s", code, out, tab)
	}
}

// co schedule run NAME runs it now: one run at a time (a second while
// the first holds its lock is skipped, saying why), the answer in the log,
// and co schedule logs shows it with escape sequences made harmless.
func TestScheduleRunNow(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(llmtest.Reply{Text: "Done \x1b]0;owned\x07 here."})
	environ, dataDir := scheduleEnv(t, srv)
	ws := t.TempDir()
	home := strings.TrimPrefix(environ[0], "HOME=")
	settings := filepath.Join(home, ".config", "co-cli", "settings.json")
	b, _ := os.ReadFile(settings)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	m["schedules"] = map[string]any{"now": map[string]any{"at": "hourly", "prompt": "Tidy my notes", "workspace": ws}}
	b, _ = json.Marshal(m)
	if err := os.WriteFile(settings, b, 0o600); err != nil {
		t.Fatal(err)
	}

	// Another run holds the lock.
	if err := os.MkdirAll(filepath.Join(dataDir, "schedules"), 0o700); err != nil {
		t.Fatal(err)
	}
	lock, err := os.OpenFile(filepath.Join(dataDir, "schedules", "now.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := runCo(t, t.TempDir(), environ, "", "schedule", "run", "now")
	if code == 0 || !strings.Contains(errOut, "still running") || len(srv.Requests()) != 0 {
		t.Errorf("with the lock held: exit %d, %q, %d requests", code, errOut, len(srv.Requests()))
	}
	lock.Close()

	out, errOut, code := runCo(t, t.TempDir(), environ, "", "schedule", "run", "now")
	if code != 0 || len(srv.Requests()) != 1 || srv.Requests()[0].LastUserMessage() != "Tidy my notes" {
		t.Fatalf("run: exit %d\n%s%s", code, out, errOut)
	}
	out, _, _ = runCo(t, ws, environ, "", "schedule", "logs", "now")
	if strings.Contains(out, "\x1b") || !strings.Contains(out, "Done") || !strings.Contains(out, "still running") || !strings.Contains(out, "exit 0, session ") {
		t.Errorf("logs:\n%q", out)
	}
	_, errOut, code = runCo(t, ws, environ, "", "schedule", "run", "nope")
	if code == 0 || !strings.Contains(errOut, "no schedule named nope") {
		t.Errorf("unknown: exit %d %s", code, errOut)
	}
}

// fakeCrontabPath is PATH with a crontab command of the test's own first
// (the real crontab is left alone), and the file it keeps.
func fakeCrontabPath(t *testing.T, environ []string) ([]string, string) {
	t.Helper()
	bin := t.TempDir()
	table := filepath.Join(bin, "table")
	script := "#!/bin/sh\ncase \"$1\" in\n-l) [ -f " + table + " ] || { echo 'no crontab for u' >&2; exit 1; }; cat " + table +
		" ;;\n-) cat > " + table + " ;;\n-r) rm -f " + table + " ;;\nesac\n"
	if err := os.WriteFile(filepath.Join(bin, "crontab"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	out := slices.Clone(environ)
	for i, e := range out {
		if strings.HasPrefix(e, "PATH=") {
			// No systemctl: the container has none running anyway.
			out[i] = "PATH=" + bin + ":" + strings.TrimPrefix(e, "PATH=")
		}
	}
	return out, table
}

// /schedule in --plain adds through co schedule add's code, asks before
// replacing (yes replaces), and lists.
func TestPlainScheduleSlash(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	environ, table := fakeCrontabPath(t, env(t, srv))
	ws := t.TempDir()
	script := "/schedule add brief --at \"daily 09:00\" Tidy my notes\n" +
		"/schedule add brief --at \"weekdays 08:00\" Brief me\ny\n" +
		"/schedule add bad --at \"someday 8:00\" x\n" +
		"/schedule add ping --at hourly --notify desktop,slack:#me Check the build\n" +
		"/schedule\n"
	out, errOut, code := runCo(t, ws, environ, script, "--plain")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{"added schedule brief: every day at 09:00", "A schedule named brief exists", "added schedule brief: weekdays at 08:00",
		`not the days "someday"`, "• brief — weekdays 08:00", "after each run, its summary goes to: desktop, slack:#me", "notify: desktop,slack:#me"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	tab, _ := os.ReadFile(table)
	if strings.Count(string(tab), "schedule run brief") != 1 || !strings.Contains(string(tab), "0 8 * * 1,2,3,4,5 cd "+ws) {
		t.Errorf("crontab:\n%s", tab)
	}
	if len(srv.Requests()) != 0 {
		t.Errorf("a /schedule line went to the model")
	}
}

// co schedule list says where the settings and the scheduler disagree:
// an entry that went missing, a schedule never installed, an entry of
// co's without a setting; rm takes out such an entry.
func TestScheduleListDisagreements(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	environ, table := fakeCrontabPath(t, env(t, srv))
	ws := t.TempDir()
	if out, errOut, code := runCo(t, ws, environ, "", "schedule", "add", "gone", "--at", "hourly", "x"); code != 0 {
		t.Fatalf("add: %s%s", out, errOut)
	}
	tab, _ := os.ReadFile(table)
	// The entry vanishes (crontab -r by hand); an entry of co's for a
	// schedule whose setting was removed stays.
	orphan := strings.ReplaceAll(string(tab), "gone", "orphan")
	if err := os.WriteFile(table, []byte("# mine\n"+orphan), 0o600); err != nil {
		t.Fatal(err)
	}
	home := strings.TrimPrefix(environ[0], "HOME=")
	settings := filepath.Join(home, ".config", "co-cli", "settings.json")
	b, _ := os.ReadFile(settings)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	m["schedules"].(map[string]any)["never"] = map[string]any{"at": "daily 07:00", "prompt": "y", "workspace": ws}
	b, _ = json.Marshal(m)
	if err := os.WriteFile(settings, b, 0o600); err != nil {
		t.Fatal(err)
	}
	out, _, _ := runCo(t, ws, environ, "", "schedule", "list")
	for _, want := range []string{"gone ", "entry missing", "never ", "not installed", "orphan", "cron entry without a setting (co schedule rm orphan removes it)"} {
		if !strings.Contains(out, want) {
			t.Errorf("list lacks %q:\n%s", want, out)
		}
	}
	out, errOut, code := runCo(t, ws, environ, "", "schedule", "rm", "orphan")
	tab, _ = os.ReadFile(table)
	if code != 0 || string(tab) != "# mine\n" {
		t.Errorf("rm orphan: exit %d %s%s\ncrontab:\n%s", code, out, errOut, tab)
	}
}

// --tools, --approve and --notify fill the schedule's fields; a wrong
// notify is refused naming the field; co config shows the schedules as a
// user-file-only setting.
func TestScheduleAddFields(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	environ, _ := fakeCrontabPath(t, env(t, srv))
	ws := t.TempDir()
	_, errOut, code := runCo(t, ws, environ, "", "schedule", "add", "brief", "--at", "weekdays 08:00", "--notify", "pager", "hello")
	if code == 0 || !strings.Contains(errOut, `"schedules".brief.notify holds "pager": each must be desktop, slack:MEMBER_ID, slack:#channel or mail`) {
		t.Errorf("bad notify: exit %d %s", code, errOut)
	}
	// A bot has no "me" to write to: Slack needs a member or a channel.
	_, errOut, code = runCo(t, ws, environ, "", "schedule", "add", "brief", "--at", "weekdays 08:00", "--notify", "slack", "hello")
	if code == 0 || !strings.Contains(errOut, `"schedules".brief.notify holds "slack": say where on Slack: write slack:MEMBER_ID`) || !strings.Contains(errOut, "Copy member ID") {
		t.Errorf("plain slack: exit %d %s", code, errOut)
	}
	out, errOut, code := runCo(t, ws, environ, "", "schedule", "add", "brief", "--at", "weekdays 08:00",
		"--tools", "search_emails,list_emails", "--approve", "create_email_draft", "--notify", "desktop,slack:U0123ABC,mail", "Brief", "me")
	if code != 0 || !strings.Contains(out, "after each run, its summary goes to: desktop, slack:U0123ABC, mail\n") {
		t.Fatalf("add: %s%s", out, errOut)
	}
	out, _, _ = runCo(t, ws, environ, "", "schedule", "list")
	if !strings.Contains(out, "NOTIFY") || !strings.Contains(out, " desktop,slack:U0123ABC,mail ") {
		t.Errorf("co schedule list does not show where runs go:\n%s", out)
	}
	home := strings.TrimPrefix(environ[0], "HOME=")
	b, _ := os.ReadFile(filepath.Join(home, ".config", "co-cli", "settings.json"))
	var m struct {
		Schedules map[string]struct {
			At, Prompt, Workspace  string
			Tools, Approve, Notify []string
		}
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	s := m.Schedules["brief"]
	if s.At != "weekdays 08:00" || s.Prompt != "Brief me" || s.Workspace != ws || strings.Join(s.Tools, ",") != "search_emails,list_emails" ||
		strings.Join(s.Approve, ",") != "create_email_draft" || strings.Join(s.Notify, ",") != "desktop,slack:U0123ABC,mail" {
		t.Errorf("saved: %s", b)
	}
	out, _, _ = runCo(t, ws, environ, "", "config")
	if !strings.Contains(configRow(out, "schedules"), "userfileonly)") || !strings.Contains(configRow(out, "schedules"), squash(`"brief":{"at":"weekdays 08:00"`)) {
		t.Errorf("co config:\n%s", out)
	}
}

// /schedule in the full-screen chat: the same command as in --plain.
func TestTUIScheduleSlash(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	environ, table := fakeCrontabPath(t, tuiEnv(t, srv))
	ws := t.TempDir()
	s := startTUI(t, ws, environ, 120, 35)
	s.ready()
	s.send(`/schedule add tuibrief --at "mon,wed,fri 9:00" Tidy my notes`)
	s.waitFor(tuiWait, "added schedule tuibrief: Mon,Wed,Fri at 09:00")
	s.send("/schedule")
	s.waitFor(tuiWait, "• tuibrief — mon,wed,fri 9:00", "next: ", "scheduler: cron")
	tab, _ := os.ReadFile(table)
	if !strings.Contains(string(tab), "0 9 * * 1,3,5 cd "+ws) {
		t.Errorf("crontab:\n%s", tab)
	}
	if len(srv.Requests()) != 0 {
		t.Error("a /schedule line went to the model")
	}
}
