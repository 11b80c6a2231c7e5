package schedule

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Entry is what a scheduler runs for one schedule: Exe (the absolute path
// of co) as `co schedule run NAME`, in Dir, with Env (co's own directories,
// PATH: nothing secret).
type Entry struct {
	Name string
	Spec *Spec
	Exe  string
	Dir  string
	Env  [][2]string // name, value; in this order
}

// Args are the entry's command line.
func (e Entry) Args() []string { return []string{e.Exe, "schedule", "run", e.Name} }

// A Backend is the system's own scheduler.
type Backend interface {
	// Name is "systemd", "cron" or "launchd".
	Name() string
	// Install writes the entry for e, replacing co's own entry of that
	// name, and makes the scheduler read it.
	Install(ctx context.Context, e Entry) error
	// Remove removes co's entry for name; removed is false when there was
	// none. Entries co did not write are never touched.
	Remove(ctx context.Context, name string) (removed bool, err error)
	// Installed lists the schedules that have an entry co wrote.
	Installed(ctx context.Context) ([]string, error)
	// Where says where the entry of name lives (a file, "your crontab").
	Where(name string) string
}

// NameOK reports whether name may name a schedule: it goes into file
// names, unit names and crontab lines as it is.
func NameOK(name string) bool {
	if name == "" || len(name) > 64 || strings.Contains(name, "--") {
		return false
	}
	for i, r := range name {
		ok := (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') || (i > 0 && (r == '-' || r == '_'))
		if !ok {
			return false
		}
	}
	return true
}

// System is the machine the backends work on. The zero value is this
// machine: its home, os.Getuid, runtime.GOOS.
type System struct {
	Home string // default os.UserHomeDir
	// ConfigHome is where systemd reads user units from
	// ($XDG_CONFIG_HOME, or ~/.config).
	ConfigHome string
	GOOS       string
	UID        int
}

func (s System) withDefaults() System {
	if s.Home == "" {
		s.Home, _ = os.UserHomeDir()
	}
	if s.ConfigHome == "" {
		s.ConfigHome = filepath.Join(s.Home, ".config")
	}
	if s.GOOS == "" {
		s.GOOS = runtime.GOOS
		s.UID = os.Getuid()
	}
	return s
}

// NotThere is a scheduler that is missing or not running: what was
// found, and how to install or start one.
type NotThere struct {
	What string
	Fix  string
}

func (e *NotThere) Error() string { return e.What + ". " + e.Fix }

// Select finds the scheduler: launchd on macOS; on Linux a systemd user
// timer where a user manager runs, else cron. The error is a *NotThere
// when none is usable. warn is set when a scheduler is usable but will
// not run entries yet (cron's daemon is not running).
func Select(ctx context.Context, sys System) (b Backend, warn string, err error) {
	sys = sys.withDefaults()
	if sys.GOOS == "darwin" {
		return &Launchd{sys: sys}, "", nil
	}
	if why := systemdUser(ctx, sys); why == "" {
		return &Systemd{sys: sys}, "", nil
	} else if _, err := exec.LookPath("crontab"); err != nil {
		return nil, "", &NotThere{
			What: "no scheduler to run schedules: no systemd user manager (" + why + ") and no crontab command",
			Fix: "Install cron and start it (Debian, Ubuntu: sudo apt install cron && sudo systemctl enable --now cron; " +
				"Fedora: sudo dnf install cronie && sudo systemctl enable --now crond), or run co in a login session " +
				"with a systemd user manager (to keep timers running without a login: loginctl enable-linger $USER)",
		}
	}
	c := &Cron{}
	if !CronRunning() {
		warn = "the cron daemon is not running, so the entry will not run until it is: start it " +
			"(sudo systemctl enable --now cron, or sudo service cron start; Fedora: crond)"
	}
	return c, warn, nil
}

// Elsewhere are this system's schedulers other than the one named chosen
// ("" for none): where co may have left an entry for a schedule from a
// session that picked another (the desktop has a systemd user manager; su
// or a bare SSH session has cron only). Nil on macOS (launchd only).
func Elsewhere(sys System, chosen string) []Backend {
	sys = sys.withDefaults()
	if sys.GOOS == "darwin" {
		return nil
	}
	var out []Backend
	if chosen != "systemd" {
		out = append(out, &Systemd{sys: sys})
	}
	if _, err := exec.LookPath("crontab"); err == nil && chosen != "cron" {
		out = append(out, &Cron{})
	}
	return out
}

// systemdUser returns "" when a systemd user manager answers, else what
// was found: its private socket ($XDG_RUNTIME_DIR/systemd/private) is
// there and `systemctl --user show-environment` succeeds.
func systemdUser(ctx context.Context, sys System) string {
	if _, err := exec.LookPath("systemctl"); err != nil {
		return "no systemctl"
	}
	rt := os.Getenv("XDG_RUNTIME_DIR")
	if rt == "" {
		rt = "/run/user/" + strconv.Itoa(sys.UID)
	}
	if _, err := os.Stat(filepath.Join(rt, "systemd", "private")); err != nil {
		return "no " + filepath.Join(rt, "systemd", "private")
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "systemctl", "--user", "show-environment").CombinedOutput(); err != nil {
		return "systemctl --user show-environment: " + firstLine(out, err)
	}
	return ""
}

// CronRunning reports whether a cron daemon (cron, crond, busybox crond)
// runs on this machine, from /proc.
func CronRunning() bool {
	dirs, _ := filepath.Glob("/proc/[0-9]*/comm")
	for _, f := range dirs {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		switch strings.TrimSpace(string(b)) {
		case "cron", "crond", "cronie":
			return true
		}
	}
	return false
}

func firstLine(out []byte, err error) string {
	s := strings.TrimSpace(string(out))
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if s == "" && err != nil {
		s = err.Error()
	}
	return s
}

// run runs a command and turns a failure into an error with its output.
func run(ctx context.Context, stdin string, name string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			return out, fmt.Errorf("%s %s: %w", name, strings.Join(args, " "), err)
		}
		return out, fmt.Errorf("%s %s: %s", name, strings.Join(args, " "), msg)
	}
	return out, nil
}

// shQuote quotes s for /bin/sh.
func shQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=:@,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// CheckLines refuses an entry that a line-based scheduler file cannot hold
// as written: a control character (a newline, a carriage return, a tab, …)
// in the workspace's path, co's path or an environment value. crontab(5)
// and systemd.syntax(7) read one setting a line, so a newline in a folder's
// name would end co's line and make the rest a line of its own: a crontab
// entry or unit setting nobody wrote. Refusing is the only safe way: neither
// format has an escape for a newline inside a command. The error names the
// character, where it is, and what to do.
func CheckLines(e Entry) error {
	check := func(what, v, fix string) error {
		for i, r := range v {
			if r < 0x20 || r == 0x7f {
				return fmt.Errorf("%s %q has a control character (%s, at byte %d), which the scheduler's file "+
					"cannot hold: it reads one entry a line, so the rest would become an entry of its own. %s",
					what, v, controlName(r), i, fix)
			}
		}
		return nil
	}
	if err := check("the workspace folder", e.Dir, "Rename the folder, or give the schedule another workspace (--workspace)."); err != nil {
		return err
	}
	if err := check("co's own path", e.Exe, "Move co's binary to a folder whose path has none."); err != nil {
		return err
	}
	for _, kv := range e.Env {
		if err := check("$"+kv[0], kv[1], "Run co schedule add with $"+kv[0]+" set without it."); err != nil {
			return err
		}
	}
	return nil
}

// controlName names a control character for an error message.
func controlName(r rune) string {
	switch r {
	case '\n':
		return "a newline, \\n"
	case '\r':
		return "a carriage return, \\r"
	case '\t':
		return "a tab, \\t"
	}
	return fmt.Sprintf("U+%04X", r)
}

// shellCommand is the entry as one /bin/sh command: the year check (a once
// spec: cron and launchd have no year), cd to the workspace, the
// environment, exec co.
func shellCommand(e Entry, year int) string {
	var b strings.Builder
	if year != 0 {
		fmt.Fprintf(&b, `[ "$(date +%%Y)" = %d ] && `, year)
	}
	b.WriteString("cd " + shQuote(e.Dir) + " && exec")
	if len(e.Env) > 0 {
		b.WriteString(" env")
		for _, kv := range e.Env {
			b.WriteString(" " + kv[0] + "=" + shQuote(kv[1]))
		}
	}
	for _, a := range e.Args() {
		b.WriteString(" " + shQuote(a))
	}
	return b.String()
}

func sortedUnique(v []string) []string {
	slices.Sort(v)
	return slices.Compact(v)
}
