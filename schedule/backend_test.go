package schedule

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

func entry(t *testing.T, name, spec string) Entry {
	t.Helper()
	return Entry{Name: name, Spec: MustParse(spec), Exe: "/opt/co dir/bin/co", Dir: "/home/u/my notes",
		Env: [][2]string{{"XDG_CONFIG_HOME", "/home/u/.config"}, {"XDG_DATA_HOME", "/home/u/.local/share"}}}
}

// fakeCrontab puts a crontab command on PATH that keeps the table in a
// file, as crontab(1) does: -l prints it (or "no crontab for" and exit
// 1), - replaces it from stdin, -r removes it.
func fakeCrontab(t *testing.T, initial *string) string {
	t.Helper()
	dir := t.TempDir()
	table := filepath.Join(dir, "table")
	if initial != nil {
		if err := os.WriteFile(table, []byte(*initial), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	script := fmt.Sprintf(`#!/bin/sh
case "$1" in
-l) [ -f %[1]q ] || { echo "no crontab for $(id -un)" >&2; exit 1; }; cat %[1]q ;;
-) cat > %[1]q ;;
-r) [ -f %[1]q ] || { echo "no crontab for $(id -un)" >&2; exit 1; }; rm %[1]q ;;
*) echo "bad args $*" >&2; exit 2 ;;
esac
`, table)
	if err := os.WriteFile(filepath.Join(dir, "crontab"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return table
}

// co's entries come and go; every other line of the crontab, its
// comments, blank lines, a missing final newline and an entry of the
// same name that co did not write stay byte for byte.
func TestCronKeepsOtherLines(t *testing.T) {
	ctx := context.Background()
	user := "# my jobs\nMAILTO=me@example.com\n\n*/5 * * * * /usr/local/bin/backup --quiet   \n" +
		"# co schedule brief (a comment of mine that looks like co's)\n0 9 * * * echo mine\n" +
		"@reboot /home/u/start.sh"
	table := fakeCrontab(t, &user)
	c := &Cron{}
	if err := c.Install(ctx, entry(t, "brief", "weekdays 08:00")); err != nil {
		t.Fatal(err)
	}
	if err := c.Install(ctx, entry(t, "once", "2026-12-01 09:30")); err != nil {
		t.Fatal(err)
	}
	// Replacing brief keeps one entry of it.
	if err := c.Install(ctx, entry(t, "brief", "weekdays 08:30")); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(table)
	if !strings.HasPrefix(string(got), user+"\n") {
		t.Fatalf("the user's lines changed:\n%s", got)
	}
	if n := strings.Count(string(got), cronMarker("brief")); n != 1 {
		t.Errorf("%d entries for brief:\n%s", n, got)
	}
	if !strings.Contains(string(got), "30 8 * * 1,2,3,4,5 cd '/home/u/my notes' && exec env XDG_CONFIG_HOME=/home/u/.config XDG_DATA_HOME=/home/u/.local/share '/opt/co dir/bin/co' schedule run brief\n") {
		t.Errorf("brief's line:\n%s", got)
	}
	// cron turns a bare % into a newline: the year check's is escaped.
	if !strings.Contains(string(got), `30 9 1 12 * [ "$(date +\%Y)" = 2026 ] && cd`) {
		t.Errorf("once's line:\n%s", got)
	}
	names, err := c.Installed(ctx)
	if err != nil || strings.Join(names, ",") != "brief,once" {
		t.Errorf("Installed = %v, %v", names, err)
	}
	for _, n := range []string{"brief", "once"} {
		if removed, err := c.Remove(ctx, n); !removed || err != nil {
			t.Errorf("Remove(%s) = %v, %v", n, removed, err)
		}
	}
	got, _ = os.ReadFile(table)
	if string(got) != user+"\n" {
		t.Errorf("after removing co's entries the crontab is\n%q\nwant\n%q", got, user+"\n")
	}
	if removed, err := c.Remove(ctx, "brief"); removed || err != nil {
		t.Errorf("removing again: %v, %v", removed, err)
	}
}

// A crontab that held only co's entry is removed with it, as it was.
func TestCronEmptyCrontab(t *testing.T) {
	ctx := context.Background()
	table := fakeCrontab(t, nil)
	c := &Cron{}
	if names, err := c.Installed(ctx); err != nil || len(names) != 0 {
		t.Fatalf("no crontab: %v, %v", names, err)
	}
	if err := c.Install(ctx, entry(t, "a", "hourly")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Remove(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(table); !os.IsNotExist(err) {
		t.Errorf("crontab left behind: %v", err)
	}
	if err := c.Install(ctx, entry(t, "b", "every 90m")); err == nil || !strings.Contains(err.Error(), "every 30m") {
		t.Errorf("cron took every 90m: %v", err)
	}
}

func TestNameOK(t *testing.T) {
	for _, n := range []string{"brief", "a", "mail-2", "x_y", "0day"} {
		if !NameOK(n) {
			t.Errorf("%q refused", n)
		}
	}
	for _, n := range []string{"", "Brief", "-a", "_a", "a b", "a/b", "a--b", "ä", strings.Repeat("a", 65)} {
		if NameOK(n) {
			t.Errorf("%q taken", n)
		}
	}
}

// The plist is well-formed XML in the property-list shape
// (launchd.plist(5)); launchd itself cannot be run here.
func TestPlistIsXML(t *testing.T) {
	for _, spec := range []string{"weekdays 08:00", "every 90m", "2026-12-01 09:30", "0 9 1 * 1"} {
		p, err := Plist(entry(t, "brief", spec))
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		var doc struct {
			XMLName xml.Name `xml:"plist"`
			Dict    struct {
				Keys []string `xml:"key"`
			} `xml:"dict"`
		}
		if err := xml.Unmarshal([]byte(p), &doc); err != nil {
			t.Fatalf("%s: not XML: %v\n%s", spec, err, p)
		}
		want := "StartCalendarInterval"
		if spec == "every 90m" {
			want = "StartInterval"
		}
		keys := strings.Join(doc.Dict.Keys, ",")
		if !strings.Contains(keys, "Label,ProgramArguments,WorkingDirectory,EnvironmentVariables,"+want) {
			t.Errorf("%s: keys %s", spec, keys)
		}
		if spec == "2026-12-01 09:30" && !strings.Contains(p, "<string>/bin/sh</string>") {
			t.Errorf("a once plist does not check the year:\n%s", p)
		}
		if spec == "0 9 1 * 1" && (!strings.Contains(p, "<key>Day</key>") || !strings.Contains(p, "<key>Weekday</key>")) {
			t.Errorf("either day:\n%s", p)
		}
	}
	l := &Launchd{sys: System{Home: t.TempDir(), GOOS: "darwin", UID: 501}}
	if got := l.Where("brief"); !strings.HasSuffix(got, "Library/LaunchAgents/dev.co-cli.schedule.brief.plist") {
		t.Errorf("Where = %s", got)
	}
}

// systemd's own parser reads every OnCalendar co writes, normalises it,
// and finds the same next runs as Spec.Next, from a fixed base time and
// time zone (systemd-analyze calendar --base-time, systemd ≥ 254).
func TestSystemdAnalyzeCalendar(t *testing.T) {
	if _, err := exec.LookPath("systemd-analyze"); err != nil {
		t.Skip("systemd-analyze is not installed (Debian: apt install systemd): the OnCalendar expressions are not checked")
	}
	loc, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 11, 26, 10, 15, 0, 0, loc)
	utcLine := regexp.MustCompile(`\(in UTC\): \w+ (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) UTC`)
	for _, text := range []string{"weekdays 08:00", "weekends 10:00", "daily 07:30", "17:00", "mon,wed,fri 9:00",
		"monday 09:00", "hourly", "every 30m", "every 2h", "every 5m", "2026-12-01 09:30", "2027-03-28 02:30", "0 8 * * 1-5",
		"*/15 9-17 * * mon-fri", "0 0 1 1 *", "0 0 */2 * 1", "0 0 1-31 * 1", "Mon..Fri *-*-* 08:00", "*-*-01 06:00", "0 9 1 * 1", "Mon *-*-01 09:00"} {
		s := MustParse(text)
		cals := s.OnCalendar()
		// Each expression's runs; the timer elapses at the earliest.
		var runs []time.Time
		for _, c := range cals {
			cmd := exec.Command("systemd-analyze", "calendar", "--iterations=4", "--base-time=@"+fmt.Sprint(base.Unix()), c)
			cmd.Env = append(os.Environ(), "TZ=Europe/Berlin")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Errorf("%q → OnCalendar=%s: systemd-analyze: %v\n%s", text, c, err, out)
				continue
			}
			for _, m := range utcLine.FindAllStringSubmatch(string(out), -1) {
				x, _ := time.ParseInLocation("2006-01-02 15:04:05", m[1], time.UTC)
				runs = append(runs, x)
			}
		}
		if len(runs) == 0 {
			// 2027-03-28 02:30 does not happen in Berlin (the clock
			// skips the hour): neither runs it.
			if n, ok := s.Next(base, time.Time{}); ok {
				t.Errorf("%q: systemd found no runs, co %v", text, n)
			}
			continue
		}
		earliest := runs[0]
		for _, r := range runs {
			if r.Before(earliest) {
				earliest = r
			}
		}
		var want []time.Time
		at := base
		for range 4 {
			n, ok := s.Next(at, time.Time{})
			if !ok {
				break
			}
			want = append(want, n)
			at = n
		}
		if len(want) == 0 || !want[0].Equal(earliest) {
			t.Errorf("%q (OnCalendar=%v): systemd's next run %v, co's %v", text, cals, earliest.In(loc), want)
			continue
		}
		if len(cals) == 1 {
			for i := range min(len(want), len(runs)) {
				if !want[i].Equal(runs[i]) {
					t.Errorf("%q: run %d: systemd %v, co %v", text, i+1, runs[i].In(loc), want[i])
				}
			}
		}
	}
}

// systemd-analyze verify reads the units co writes as the user manager
// would and finds nothing to say. It needs a runtime directory
// ($XDG_RUNTIME_DIR) for --user and the ExecStart= program to exist.
func TestSystemdAnalyzeVerify(t *testing.T) {
	if _, err := exec.LookPath("systemd-analyze"); err != nil {
		t.Skip("systemd-analyze is not installed (Debian: apt install systemd): the units are not verified")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	verify := func(t *testing.T, e Entry, mangle func(timer string) string) string {
		dir := t.TempDir()
		service, timer := Units(e)
		if mangle != nil {
			timer = mangle(timer)
		}
		base := filepath.Join(dir, UnitName(e.Name))
		if err := os.WriteFile(base+".service", []byte(service), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(base+".timer", []byte(timer), 0o644); err != nil {
			t.Fatal(err)
		}
		rt := t.TempDir()
		if err := os.Chmod(rt, 0o700); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("systemd-analyze", "verify", "--user", base+".timer", base+".service")
		cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+rt)
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Sprintf("%v: %s", err, out)
		}
		return string(out)
	}
	for _, spec := range []string{"weekdays 08:00", "every 90m", "2026-12-01 09:30", "0 9 1 * 1", "every 30m"} {
		e := entry(t, "brief", spec)
		e.Exe, e.Dir = exe, t.TempDir()+"/50% off"
		if err := os.Mkdir(e.Dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if out := verify(t, e, nil); out != "" {
			service, timer := Units(e)
			t.Errorf("%s: systemd-analyze verify says:\n%s\n%s\n%s", spec, out, service, timer)
		}
		_, timer := Units(e)
		if e.Spec.Interval() == 0 && !strings.Contains(timer, "\nPersistent=true\n") {
			t.Errorf("%s: not Persistent:\n%s", spec, timer)
		}
	}
	// The check can fail: a calendar systemd cannot read is reported.
	e := entry(t, "brief", "weekdays 08:00")
	e.Exe, e.Dir = exe, t.TempDir()
	out := verify(t, e, func(timer string) string {
		return strings.Replace(timer, "OnCalendar=", "OnCalendar=Someday 8\nOnCalendar=", 1)
	})
	if !strings.Contains(out, "Someday") {
		t.Errorf("a bad calendar went unnoticed: %q", out)
	}
}

// With neither a systemd user manager nor a crontab command, Select says
// so and how to get one.
func TestSelectNoScheduler(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, _, err := Select(context.Background(), System{Home: t.TempDir(), GOOS: "linux", UID: 4242})
	var nt *NotThere
	if !errors.As(err, &nt) {
		t.Fatalf("Select = %v", err)
	}
	for _, want := range []string{"no systemctl", "no crontab command", "apt install cron", "systemctl enable --now cron", "loginctl enable-linger"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
	// macOS is launchd, whatever is on PATH.
	b, _, err := Select(context.Background(), System{Home: t.TempDir(), GOOS: "darwin", UID: 501})
	if err != nil || b.Name() != "launchd" {
		t.Errorf("darwin: %v %v", b, err)
	}
}

// A crontab command but no systemd user manager: cron, with a warning
// when no cron daemon runs.
func TestSelectCron(t *testing.T) {
	fakeCrontab(t, nil)
	b, warn, err := Select(context.Background(), System{Home: t.TempDir(), GOOS: "linux", UID: 4242})
	if err != nil || b.Name() != "cron" {
		t.Fatalf("Select = %v, %v", b, err)
	}
	if !CronRunning() && !strings.Contains(warn, "not running") {
		t.Errorf("no warning of a stopped cron daemon: %q", warn)
	}
	if CronRunning() && warn != "" {
		t.Errorf("warning with cron running: %q", warn)
	}
}

// fakeSystemctl puts a systemctl on PATH that answers and records its
// arguments, one call a line.
func fakeSystemctl(t *testing.T) (calls string) {
	t.Helper()
	dir := t.TempDir()
	calls = filepath.Join(dir, "calls")
	script := "#!/bin/sh\necho \"$*\" >> " + calls + "\n"
	if err := os.WriteFile(filepath.Join(dir, "systemctl"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return calls
}

// Where a user manager answers (its private socket is there and
// systemctl --user show-environment succeeds), the units go to
// ~/.config/systemd/user, the manager is reloaded and the timer enabled;
// removal disables it and takes out co's units only. (No user manager
// runs in the test container: systemctl is a stand-in here; the units
// themselves are checked by systemd-analyze above.)
func TestSystemdInstallAndRemove(t *testing.T) {
	ctx := context.Background()
	calls := fakeSystemctl(t)
	rt := t.TempDir()
	if err := os.MkdirAll(filepath.Join(rt, "systemd"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(rt, "systemd", "private"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_RUNTIME_DIR", rt)
	home := t.TempDir()
	b, warn, err := Select(ctx, System{Home: home, GOOS: "linux", UID: 1000})
	if err != nil || warn != "" || b.Name() != "systemd" {
		t.Fatalf("Select = %v, %q, %v", b, warn, err)
	}
	if err := b.Install(ctx, entry(t, "brief", "weekdays 08:00")); err != nil {
		t.Fatal(err)
	}
	unitDir := filepath.Join(home, ".config", "systemd", "user")
	timer, err := os.ReadFile(filepath.Join(unitDir, "co-schedule-brief.timer"))
	if err != nil || !strings.Contains(string(timer), "OnCalendar=Mon,Tue,Wed,Thu,Fri *-*-* 08:00:00\nPersistent=true\n") {
		t.Errorf("timer: %v\n%s", err, timer)
	}
	service, _ := os.ReadFile(filepath.Join(unitDir, "co-schedule-brief.service"))
	if !strings.Contains(string(service), `ExecStart="/opt/co dir/bin/co" schedule run brief`) ||
		!strings.Contains(string(service), "WorkingDirectory=/home/u/my notes\n") ||
		!strings.Contains(string(service), "SuccessExitStatus=4\n") { // a run that left a call waiting did not fail
		t.Errorf("service:\n%s", service)
	}
	// A unit of another schedule's name that co did not write.
	foreign := filepath.Join(unitDir, "co-schedule-mine.timer")
	if err := os.WriteFile(foreign, []byte("[Timer]\nOnCalendar=daily\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := b.Install(ctx, entry(t, "mine", "daily 09:00")); err == nil || !strings.Contains(err.Error(), "co did not write it") {
		t.Errorf("replaced a foreign unit: %v", err)
	}
	if names, _ := b.Installed(ctx); strings.Join(names, ",") != "brief" {
		t.Errorf("Installed = %v", names)
	}
	if removed, err := b.Remove(ctx, "mine"); removed || err != nil {
		t.Errorf("Remove(mine) = %v, %v", removed, err)
	}
	if removed, err := b.Remove(ctx, "brief"); !removed || err != nil {
		t.Errorf("Remove(brief) = %v, %v", removed, err)
	}
	left, _ := filepath.Glob(filepath.Join(unitDir, "*"))
	if len(left) != 1 || left[0] != foreign {
		t.Errorf("left: %v", left)
	}
	got, _ := os.ReadFile(calls)
	want := "--user show-environment\n--user daemon-reload\n--user enable co-schedule-brief.timer\n--user restart co-schedule-brief.timer\n" +
		"--user disable --now co-schedule-brief.timer\n--user daemon-reload\n"
	if string(got) != want {
		t.Errorf("systemctl calls:\n%s\nwant\n%s", got, want)
	}
}
