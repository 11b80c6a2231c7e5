package schedule

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Systemd keeps schedules as systemd user units: co-schedule-NAME.timer
// and co-schedule-NAME.service in ~/.config/systemd/user
// (systemd.unit(5)'s user unit search path), enabled with
// `systemctl --user enable --now`.
type Systemd struct{ sys System }

// Name is "systemd".
func (*Systemd) Name() string { return "systemd" }

// UnitName is the units' name without the suffix.
func UnitName(name string) string { return "co-schedule-" + name }

func (s *Systemd) dir() string {
	return filepath.Join(s.sys.withDefaults().ConfigHome, "systemd", "user")
}

// Where is the timer's file.
func (s *Systemd) Where(name string) string {
	return filepath.Join(s.dir(), UnitName(name)+".timer")
}

// unitMarker is the first line of co's units: Installed and Remove look
// for it, so a unit of that name that co did not write is left alone.
func unitMarker(name string) string {
	return "# Written by co for its schedule " + name + " (remove with: co schedule rm " + name + ")."
}

// unitQuote quotes a word for a unit file's command line and escapes
// specifiers (systemd.service(5) "Command lines", systemd.unit(5)
// "Specifiers": % is %%).
func unitQuote(s string) string {
	return quoteUnit(strings.ReplaceAll(s, "$", "$$")) // ExecStart= expands $VAR; $$ is a $
}

// quoteUnit quotes a word as unitQuote does but leaves $ alone
// (Environment= does not expand variables).
func quoteUnit(s string) string {
	s = strings.ReplaceAll(s, "%", "%%")
	if s != "" && !strings.ContainsAny(s, " \t\"'\\;$") {
		return s
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// Units returns the service and timer files for e. The timer is
// Persistent= for a calendar: systemd.timer(5), "Persistent=: If true,
// the time when the service unit was last triggered is stored on disk.
// When the timer is activated, the service unit is triggered immediately
// if it would have been triggered at least once during the time when the
// timer was inactive" — a run missed while the machine was off runs at the
// next boot (or login).
func Units(e Entry) (service, timer string) {
	var sv strings.Builder
	sv.WriteString(unitMarker(e.Name) + "\n[Unit]\nDescription=co schedule " + e.Name + "\n\n[Service]\nType=oneshot\n")
	sv.WriteString("WorkingDirectory=" + strings.ReplaceAll(e.Dir, "%", "%%") + "\n")
	for _, kv := range e.Env {
		sv.WriteString("Environment=" + quoteUnit(kv[0]+"="+kv[1]) + "\n")
	}
	var args []string
	for _, a := range e.Args() {
		args = append(args, unitQuote(a))
	}
	sv.WriteString("ExecStart=" + strings.Join(args, " ") + "\n")
	// Exit 4: the run finished and a call waits for the user (co inbox): a
	// success, not a failed unit (systemd.service(5), SuccessExitStatus=).
	sv.WriteString("SuccessExitStatus=4\n")

	var tm strings.Builder
	tm.WriteString(unitMarker(e.Name) + "\n[Unit]\nDescription=co schedule " + e.Name + ": " +
		strings.ReplaceAll(strings.Join(strings.Fields(e.Spec.Text), " "), "%", "%%") + "\n\n[Timer]\n")
	for _, l := range e.Spec.TimerLines() {
		tm.WriteString(l + "\n")
	}
	if e.Spec.Interval() == 0 {
		tm.WriteString("Persistent=true\n")
	}
	tm.WriteString("Unit=" + UnitName(e.Name) + ".service\n\n[Install]\nWantedBy=timers.target\n")
	return sv.String(), tm.String()
}

func (s *Systemd) ours(name string) bool {
	b, err := os.ReadFile(s.Where(name))
	return err == nil && strings.HasPrefix(string(b), unitMarker(name)+"\n")
}

// Install writes the units, reloads the user manager and enables the
// timer.
func (s *Systemd) Install(ctx context.Context, e Entry) error {
	if _, err := os.Stat(s.Where(e.Name)); err == nil && !s.ours(e.Name) {
		return errors.New(s.Where(e.Name) + " exists and co did not write it: co leaves it alone; rename the schedule or remove that unit yourself")
	}
	if err := CheckLines(e); err != nil {
		return err
	}
	service, timer := Units(e)
	if err := os.MkdirAll(s.dir(), 0o755); err != nil {
		return err
	}
	base := filepath.Join(s.dir(), UnitName(e.Name))
	if err := os.WriteFile(base+".service", []byte(service), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(base+".timer", []byte(timer), 0o644); err != nil {
		return err
	}
	if _, err := run(ctx, "", "systemctl", "--user", "daemon-reload"); err != nil {
		return err
	}
	// restart: a replaced timer takes its new calendar now.
	if _, err := run(ctx, "", "systemctl", "--user", "enable", UnitName(e.Name)+".timer"); err != nil {
		return err
	}
	_, err := run(ctx, "", "systemctl", "--user", "restart", UnitName(e.Name)+".timer")
	return err
}

// Remove disables and stops the timer, removes co's two units and
// reloads the user manager.
func (s *Systemd) Remove(ctx context.Context, name string) (bool, error) {
	if !s.ours(name) {
		return false, nil
	}
	_, derr := run(ctx, "", "systemctl", "--user", "disable", "--now", UnitName(name)+".timer")
	base := filepath.Join(s.dir(), UnitName(name))
	for _, f := range []string{base + ".timer", base + ".service"} {
		if err := os.Remove(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return false, err
		}
	}
	if _, err := run(ctx, "", "systemctl", "--user", "daemon-reload"); err != nil {
		return true, err
	}
	return true, derr
}

// Installed lists the schedules whose timer co wrote.
func (s *Systemd) Installed(context.Context) ([]string, error) {
	files, _ := filepath.Glob(filepath.Join(s.dir(), "co-schedule-*.timer"))
	var names []string
	for _, f := range files {
		name := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "co-schedule-"), ".timer")
		if s.ours(name) {
			names = append(names, name)
		}
	}
	return sortedUnique(names), nil
}
