package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/config"
)

func TestSplitWords(t *testing.T) {
	got, err := splitWords(`add brief --at "weekdays 08:00" Summarise today's mail`)
	if err == nil {
		t.Fatalf("an open quote was taken: %q", got)
	}
	got, err = splitWords(`add brief --at "weekdays 08:00" 'Summarise the mail'  now`)
	want := []string{"add", "brief", "--at", "weekdays 08:00", "Summarise the mail", "now"}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("splitWords = %q, %v", got, err)
	}
}

// /schedule add without --at, or with a bad name or SPEC, says what is
// wrong before anything is saved.
func TestScheduleSlashErrors(t *testing.T) {
	emptyCrontab(t)
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("XDG_DATA_HOME", "")
	t.Chdir(t.TempDir())
	for _, tc := range []struct{ arg, want string }{
		{`add brief hello`, `no --at "SPEC"`},
		{`add Brief --at "daily 8:00" hello`, "is not a schedule name"},
		{`add brief --at "someday 8:00" hello`, `not the days "someday"`},
		{`remove brief`, "usage: /schedule"},
		{`add brief --at "daily 8:00`, "not closed"},
	} {
		r := scheduleSlash(t.Context(), tc.arg)
		if !r.Err || !strings.Contains(r.Output, tc.want) {
			t.Errorf("/schedule %s: %+v, want %q", tc.arg, r, tc.want)
		}
	}
	if r := scheduleSlash(t.Context(), ""); r.Err || !strings.Contains(r.Output, "no schedules") {
		t.Errorf("/schedule: %+v", r)
	}
}

// co status's line: the count and the next run of all schedules.
func TestScheduleStatus(t *testing.T) {
	loc := time.FixedZone("X", 3600)
	now := time.Date(2026, 11, 26, 10, 0, 0, 0, loc) // a Thursday
	l := &config.Loaded{Paths: config.Paths{DataDir: t.TempDir()}}
	if got := scheduleStatus(t.Context(), l, now, false); !strings.Contains(got, "none") {
		t.Errorf("no schedules: %q", got)
	}
	l.Settings.Schedules = []config.Schedule{
		{Name: "brief", At: "weekdays 08:00", Prompt: "p", Workspace: "/"},
		{Name: "soon", At: "daily 11:30", Prompt: "p", Workspace: "/"},
	}
	if got := scheduleStatus(t.Context(), l, now, false); got != "2; next: soon at Thu 2026-11-26 11:30" {
		t.Errorf("status = %q", got)
	}
}

// A once SPEC in the past is refused before anything is saved.
func TestScheduleAddPastDate(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("XDG_DATA_HOME", "")
	t.Chdir(t.TempDir())
	_, err := scheduleAdd(t.Context(), scheduleAddArgs{name: "old", at: "2001-01-01 09:00", prompt: "p"}, nil, false)
	if err == nil || !strings.Contains(err.Error(), "which has passed") {
		t.Errorf("err = %v", err)
	}
}

// A repeating SPEC no day of the calendar matches (February 30th) is
// refused as never running, not as "in the past", saying what it read.
func TestScheduleAddNeverRuns(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("XDG_DATA_HOME", "")
	t.Chdir(t.TempDir())
	for _, at := range []string{"0 0 30 2 *", "*-02-31 08:00"} {
		_, err := scheduleAdd(t.Context(), scheduleAddArgs{name: "feb", at: at, prompt: "p"}, nil, false)
		if err == nil || strings.Contains(err.Error(), "in the past") || !strings.Contains(err.Error(), "never runs") || !strings.Contains(err.Error(), "Feb") {
			t.Errorf("%s: err = %v", at, err)
		}
	}
}

// A run that ended with calls kept waiting (exit 4) is listed as done
// with calls waiting, not as a failure; other exit codes are failures.
func TestLastRunTextWaitingIsNotAFailure(t *testing.T) {
	start := time.Date(2026, 11, 26, 19, 31, 0, 0, time.Local)
	end := start.Add(time.Second)
	if got := lastRunText(&lastRun{Start: start, End: end, Code: 4}); got != "2026-11-26 19:31 ok, calls waiting (co inbox)" {
		t.Errorf("exit 4 = %q", got)
	}
	if got := lastRunText(&lastRun{Start: start, End: end, Code: 1}); got != "2026-11-26 19:31 failed (exit 1)" {
		t.Errorf("exit 1 = %q", got)
	}
	if got := lastRunText(&lastRun{Start: start, End: end}); got != "2026-11-26 19:31 ok" {
		t.Errorf("exit 0 = %q", got)
	}
}

// co status says when the scheduler will not run the entries (no cron
// daemon running), on a WARNING line after the schedules line: a next run
// alone would promise a run that will not happen.
func TestScheduleStatusWarnsOfAStoppedScheduler(t *testing.T) {
	now := time.Date(2026, 11, 26, 10, 0, 0, 0, time.Local)
	l := &config.Loaded{Paths: config.Paths{DataDir: t.TempDir()}}
	l.Settings.Schedules = []config.Schedule{{Name: "brief", At: "daily 11:30", Prompt: "p", Workspace: "/"}}
	got := scheduleStatusText(l, now, &selectedScheduler{name: "cron", warn: "the cron daemon is not running"})
	if want := "1 with cron; next: brief at Thu 2026-11-26 11:30\n\tWARNING: the cron daemon is not running"; got != want {
		t.Errorf("schedules line = %q, want %q", got, want)
	}
	if got := scheduleStatusText(l, now, &selectedScheduler{name: "cron"}); strings.Contains(got, "WARNING") {
		t.Errorf("a running scheduler warns: %q", got)
	}
}

// emptyCrontab puts first on PATH a crontab command whose crontab is
// empty, and no systemctl: the test reads neither the machine's real
// crontab (a developer's own co schedules showed up in /schedule's list)
// nor its user manager.
func emptyCrontab(t *testing.T) {
	t.Helper()
	bin := t.TempDir()
	script := "#!/bin/sh\ncase \"$1\" in\n-l) echo 'no crontab for tester' >&2; exit 1 ;;\nesac\nexit 0\n"
	if err := os.WriteFile(filepath.Join(bin, "crontab"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir()) // no systemd user manager: cron
}

// /schedule add takes co schedule add's --tools, --approve and --notify
// (comma lists); another option before the prompt is refused by name.
// They became the prompt's first words before, silently.
func TestScheduleSlashAddTakesTheListOptions(t *testing.T) {
	emptyCrontab(t)
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("XDG_DATA_HOME", "")
	t.Chdir(t.TempDir())
	r := scheduleSlash(t.Context(), `add brief --at "daily 8:00" --tools list_slack_messages,send_slack_message --approve send_slack_message --notify desktop Post my brief`)
	if r.Err {
		t.Fatalf("/schedule add: %s", r.Output)
	}
	l, err := loadSettings()
	if err != nil {
		t.Fatal(err)
	}
	sch, ok := l.Settings.FindSchedule("brief")
	if !ok || sch.Prompt != "Post my brief" || !slices.Equal(sch.Tools, []string{"list_slack_messages", "send_slack_message"}) ||
		!slices.Equal(sch.Approve, []string{"send_slack_message"}) || !slices.Equal(sch.Notify, []string{"desktop"}) {
		t.Errorf("saved %+v", sch)
	}
	r = scheduleSlash(t.Context(), `add other --at "daily 8:00" --aprove send_slack_message Post`)
	if !r.Err || !strings.Contains(r.Output, `unknown option "--aprove"`) {
		t.Errorf("a misspelt option: %+v", r)
	}
	if l, err = loadSettings(); err != nil {
		t.Fatal(err)
	}
	if _, ok := l.Settings.FindSchedule("other"); ok {
		t.Error("a schedule was saved despite the misspelt option")
	}
}

// A name in --approve or --tools that is no tool is refused when the
// schedule is added, with the tools listed; a tool whose service is not
// configured yet and a configured MCP server's tool are accepted.
func TestScheduleAddRefusesAToolThatIsNone(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("XDG_DATA_HOME", "")
	t.Setenv("CO_CLI_SANDBOX_BACKEND", "subprocess")
	t.Setenv("SLACK_BOT_TOKEN", "")
	t.Chdir(t.TempDir())
	emptyCrontab(t)
	_, err := scheduleAdd(t.Context(), scheduleAddArgs{name: "typo", at: "daily 09:00", prompt: "p", approve: []string{"send_slak_message"}}, nil, false)
	if err == nil || !strings.Contains(err.Error(), `--approve names "send_slak_message", which is no tool of co's`) || !strings.Contains(err.Error(), "send_slack_message") {
		t.Fatalf("err = %v", err)
	}
	if _, err := scheduleAdd(t.Context(), scheduleAddArgs{name: "mcp", at: "daily 09:00", prompt: "p", tools: []string{"mcp__nowhere__echo"}}, nil, false); err == nil || !strings.Contains(err.Error(), "--tools names") {
		t.Fatalf("an unconfigured MCP server's tool: err = %v", err)
	}
	out, err := scheduleAdd(t.Context(), scheduleAddArgs{name: "ok", at: "daily 09:00", prompt: "p", approve: []string{"send_slack_message"}, tools: []string{"send_slack_message", "read_file"}}, nil, false)
	if err != nil || !strings.Contains(out, "added schedule ok") {
		t.Fatalf("a tool of an unconfigured service: %v\n%s", err, out)
	}
}

// co schedule add says at once when a place its --notify names cannot be
// delivered to from here (no session bus, no Slack token, no Google
// account), rather than only in the log after the first run.
func TestScheduleAddWarnsOfAPlaceItCannotReach(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("XDG_DATA_HOME", "")
	t.Setenv("CO_CLI_SANDBOX_BACKEND", "subprocess")
	t.Setenv("SLACK_BOT_TOKEN", "")
	t.Setenv("GOOGLE_CREDENTIALS_PATH", "")
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	old := desktopUID
	desktopUID = 1 << 30 // no /run/user/UID/bus
	t.Cleanup(func() { desktopUID = old })
	t.Chdir(t.TempDir())
	emptyCrontab(t)
	out, err := scheduleAdd(t.Context(), scheduleAddArgs{name: "brief", at: "daily 09:00", prompt: "p", notify: []string{"desktop", "slack:#me", "mail"}}, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"WARNING: desktop: no session bus", "WARNING: slack: not configured", "WARNING: mail: not configured"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	out, err = scheduleAdd(t.Context(), scheduleAddArgs{name: "quiet", at: "daily 09:00", prompt: "p"}, nil, false)
	if err != nil || strings.Contains(out, "WARNING: desktop") || strings.Contains(out, "WARNING: slack") {
		t.Errorf("a schedule without notify: %v\n%s", err, out)
	}
}

// The scheduler co picks depends on the session (a systemd user manager
// in the desktop, cron where none answers: su, some SSH or container
// sessions). A schedule added under one and replaced or removed under the
// other leaves no entry behind in the first: it ran at its old time as
// well as the new one, or kept running after co schedule rm.
func TestScheduleEntryFollowsTheSchedulerItMovesTo(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("XDG_DATA_HOME", "")
	t.Setenv("CO_CLI_SANDBOX_BACKEND", "subprocess")
	t.Chdir(t.TempDir())
	bin := t.TempDir()
	table := filepath.Join(bin, "table")
	crontab := "#!/bin/sh\ncase \"$1\" in\n-l) [ -f " + table + " ] || { echo 'no crontab for u' >&2; exit 1; }; cat " + table +
		" ;;\n-) cat > " + table + " ;;\n-r) rm -f " + table + " ;;\nesac\n"
	calls := filepath.Join(bin, "calls")
	systemctl := "#!/bin/sh\necho \"$*\" >> " + calls + "\n"
	for name, script := range map[string]string{"crontab": crontab, "systemctl": systemctl} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin+":/usr/bin:/bin")
	noManager, manager := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(manager, "systemd"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(manager, "systemd", "private"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	timer := filepath.Join(os.Getenv("HOME"), ".config", "systemd", "user", "co-schedule-brief.timer")

	t.Setenv("XDG_RUNTIME_DIR", noManager) // cron
	if out, err := scheduleAdd(t.Context(), scheduleAddArgs{name: "brief", at: "daily 09:00", prompt: "p"}, nil, false); err != nil || !strings.Contains(out, "installed with cron") {
		t.Fatalf("add under cron: %v\n%s", err, out)
	}
	t.Setenv("XDG_RUNTIME_DIR", manager) // a user manager answers: systemd
	l, err := loadSettings()
	if err != nil {
		t.Fatal(err)
	}
	if list := scheduleList(t.Context(), l, time.Now(), false); !strings.Contains(list, "in cron, not systemd") || strings.Contains(list, "entry missing") {
		t.Errorf("list under systemd of a schedule cron runs:\n%s", list)
	}
	out, err := scheduleAdd(t.Context(), scheduleAddArgs{name: "brief", at: "daily 18:00", prompt: "p", replace: true}, nil, false)
	if err != nil || !strings.Contains(out, "installed with systemd") {
		t.Fatalf("replace under systemd: %v\n%s", err, out)
	}
	if tab, _ := os.ReadFile(table); strings.Contains(string(tab), "schedule run brief") {
		t.Errorf("the cron entry stayed beside the systemd timer (the run would happen at 09:00 too):\n%s", tab)
	}
	if !strings.Contains(out, "cron") || !strings.Contains(out, "removed") {
		t.Errorf("add does not say it removed the cron entry:\n%s", out)
	}

	t.Setenv("XDG_RUNTIME_DIR", noManager) // back to cron
	out, err = scheduleRm(t.Context(), "brief")
	if err != nil {
		t.Fatalf("rm under cron: %v\n%s", err, out)
	}
	if _, err := os.Stat(timer); !os.IsNotExist(err) {
		t.Errorf("the systemd timer stayed after co schedule rm: %v\n%s", err, out)
	}
	if got, _ := os.ReadFile(calls); !strings.Contains(string(got), "--user disable --now co-schedule-brief.timer") {
		t.Errorf("the timer was not disabled:\n%s", got)
	}
}

// A run that cannot take its schedule's lock says so where the user looks
// (the schedule's log, not only stderr, which cron throws away) and how to
// fix it.
func TestScheduleRunWithoutItsLockSaysHowToFix(t *testing.T) {
	isolatedHome(t)
	home, _ := os.Getwd()
	cfgDir := filepath.Join(home, ".config", "co-cli")
	if err := os.MkdirAll(cfgDir, 0o700); err != nil {
		t.Fatal(err)
	}
	settings, _ := json.Marshal(map[string]any{"schedules": map[string]any{"brief": map[string]any{
		"at": "weekdays 08:00", "prompt": "brief me", "workspace": home,
	}}})
	if err := os.WriteFile(filepath.Join(cfgDir, "settings.json"), settings, 0o600); err != nil {
		t.Fatal(err)
	}
	// A folder where the lock file goes: it cannot be opened as a file.
	dir := filepath.Join(home, ".local", "share", "co-cli", "schedules")
	if err := os.MkdirAll(filepath.Join(dir, "brief.lock"), 0o700); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := run(t, "v", "schedule", "run", "brief")
	_, log, _ := run(t, "v", "schedule", "logs", "brief")
	if code == 0 {
		t.Fatalf("the run went on without its lock:\n%s", log)
	}
	for _, out := range []string{errOut, log} {
		if !strings.Contains(out, "cannot take the lock of the schedule brief, so it did not run") || !strings.Contains(out, "ls -ld "+dir) {
			t.Errorf("lacks what happened and how to fix it:\n%s", out)
		}
	}
}

// co schedule add --max-cost (and /schedule add's) saves the schedule's
// own limit, says it, and refuses a negative or unreadable one.
func TestScheduleAddMaxCost(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("XDG_DATA_HOME", "")
	t.Setenv("CO_CLI_SANDBOX_BACKEND", "subprocess")
	t.Chdir(t.TempDir())
	emptyCrontab(t)
	out, err := scheduleAdd(t.Context(), scheduleAddArgs{name: "paid", at: "daily 09:00", prompt: "p", maxCost: 0.5}, nil, false)
	if err != nil || !strings.Contains(out, "each run stops at $0.50") {
		t.Fatalf("%v\n%s", err, out)
	}
	r := scheduleSlash(t.Context(), `add cheap --at "daily 10:00" --max-cost 0.05 summarise`)
	if r.Err {
		t.Fatalf("/schedule add --max-cost: %+v", r)
	}
	l, err := loadSettings()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, s := range l.Settings.Schedules {
		got[s.Name] = s.MaxCost
	}
	if got["paid"] != 0.5 || got["cheap"] != 0.05 {
		t.Errorf("saved limits %v, want paid 0.5, cheap 0.05", got)
	}
	for _, bad := range []string{"-1", "lots"} {
		if r := scheduleSlash(t.Context(), `add x --at "daily 10:00" --max-cost `+bad+` p`); !r.Err || !strings.Contains(r.Output, "want US dollars >= 0") {
			t.Errorf("--max-cost %s: %+v", bad, r)
		}
	}
}
