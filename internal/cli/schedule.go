package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/co-cli/co/config"
	"github.com/co-cli/co/deliver"
	"github.com/co-cli/co/internal/app"
	"github.com/co-cli/co/lib/cost"
	"github.com/co-cli/co/lib/safe"
	"github.com/co-cli/co/schedule"
	"github.com/co-cli/co/ui/headless"
	"github.com/co-cli/co/ui/present"
	"github.com/co-cli/co/ui/slash"
)

func newScheduleCmd(s env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "schedule",
		Short: "Runs of a prompt at set times, by the system's own scheduler",
		Long: `co schedule adds, lists and removes scheduled runs: a prompt that co runs
on its own at the times a SPEC says, started by the system's own scheduler
(a systemd user timer where a user manager runs, a crontab entry otherwise,
launchd on macOS). co runs no daemon. Each run is logged (co schedule logs)
and saved as a session (co sessions).

SPEC: ` + schedule.Examples + `.
Times are the machine's local time.`,
		Args: usageArgs(cobra.NoArgs),
	}
	cmd.AddCommand(newScheduleAddCmd(s), newScheduleListCmd(s), newScheduleRmCmd(s), newScheduleLogsCmd(s), newScheduleRunCmd(s))
	return cmd
}

// scheduleAddArgs is what co schedule add and /schedule add take.
type scheduleAddArgs struct {
	name, at, prompt, workspace string
	tools, approve, notify      []string
	replace                     bool
	// maxCost is the schedule's own max_cost (US dollars a run may
	// cost; 0: the max_cost setting's).
	maxCost float64
}

func newScheduleAddCmd(s env) *cobra.Command {
	var a scheduleAddArgs
	cmd := &cobra.Command{
		Use:   "add NAME --at SPEC PROMPT...",
		Short: "Add (or with --replace, replace) a scheduled run and install it in the system's scheduler",
		Long: `co schedule add saves the schedule in your user settings ("schedules") and
installs its entry in the system's scheduler, which runs
"co schedule run NAME" in the workspace (the current directory unless
--workspace) at the times SPEC says.

NAME: lower-case letters, digits, - and _. A NAME that exists is replaced
only after you say so (on a terminal) or with --replace.

SPEC: ` + schedule.Examples + `.`,
		Example: `  co schedule add brief --at "weekdays 08:00" Summarise today's mail and calendar
  co schedule add report --at "tomorrow 9am" Remind me to send the report
  co schedule add check --at "in 2h" Check whether the build went green
  co schedule add todos --at "monday 09:00" List last week's open todos`,
		Args: usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			a.name, a.prompt = args[0], strings.Join(args[1:], " ")
			// "desktop, mail": the flag splits at commas only.
			for _, l := range []*[]string{&a.tools, &a.approve, &a.notify} {
				*l = splitList(strings.Join(*l, ","))
			}
			if a.at == "" {
				return usageError{errors.New("no --at SPEC: say when, e.g. --at \"weekdays 08:00\""), cmd.CommandPath()}
			}
			if a.maxCost < 0 {
				return usageError{fmt.Errorf("--max-cost %g: want US dollars >= 0, e.g. --max-cost 0.50", a.maxCost), cmd.CommandPath()}
			}
			ask := func(q string) bool {
				if !isTerminal(s.In) {
					return false
				}
				fmt.Fprintf(s.Err, "%s [y/N] ", q)
				line, _ := bufio.NewReader(s.In).ReadString('\n')
				return strings.HasPrefix(strings.ToLower(strings.TrimSpace(line)), "y")
			}
			ctx, stop, _ := signalContext(syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			out, err := scheduleAdd(ctx, a, ask, isTerminal(s.In))
			if out != "" {
				fmt.Fprint(s.Out, out)
			}
			return err
		},
	}
	cmd.Flags().StringVar(&a.at, "at", "", "when to run: "+schedule.Examples)
	cmd.Flags().StringVar(&a.workspace, "workspace", "", "the directory the run works in (default: the current directory)")
	cmd.Flags().StringSliceVar(&a.tools, "tools", nil, "tool names the run may use (the unattended run's rules decide the rest)")
	cmd.Flags().StringSliceVar(&a.approve, "approve", nil, "tool names the run may call without asking")
	cmd.Flags().StringSliceVar(&a.notify, "notify", nil, "where the run's summary also goes: desktop, slack:MEMBER_ID, slack:#channel, mail (comma-separated)")
	cmd.Flags().BoolVar(&a.replace, "replace", false, "replace a schedule of the same name without asking")
	cmd.Flags().Float64Var(&a.maxCost, "max-cost", 0, "the most one run may cost, in US dollars (0: the max_cost setting's); a run that reaches it stops and says so in co inbox")
	return cmd
}

// scheduleSystem is the machine the schedules are installed on (tests of
// the CLI drive the real one: HOME and PATH say where).
var scheduleSystem = schedule.System{}

// scheduleAdd checks, saves and installs a schedule, and says what it did.
// ask asks a yes/no question (false when no one can answer); terminal says
// whether one could.
func scheduleAdd(ctx context.Context, a scheduleAddArgs, ask func(string) bool, terminal bool) (string, error) {
	if !schedule.NameOK(a.name) {
		return "", fmt.Errorf("%q is not a schedule name: use lower-case letters, digits, - and _, starting with a letter or digit (like morning-brief)", a.name)
	}
	zone, shellTZ := schedulerZone()
	// A time said from now ("tomorrow 9am") is saved as the date and
	// time it means; a once time that has passed is refused here.
	spec, err := schedule.ParseAt(a.at, time.Now().In(zone))
	if err != nil {
		return "", err
	}
	if _, ok := spec.Next(time.Now().In(zone), time.Time{}); !ok {
		return "", fmt.Errorf("%q never runs: read as %s, which no day from now on matches (a year that is past, or a day the month does not have, such as February 30): fix its date part, or write a repeating SPEC such as \"daily 09:00\"", a.at, spec.Describe())
	}
	a.at = spec.Text
	if strings.TrimSpace(a.prompt) == "" {
		return "", fmt.Errorf("no prompt: say what to run after the name, e.g. co schedule add %s --at %q Summarise today's mail", a.name, a.at)
	}
	if a.workspace == "" {
		if a.workspace, err = os.Getwd(); err != nil {
			return "", err
		}
	}
	if a.workspace, err = filepath.Abs(a.workspace); err != nil {
		return "", err
	}
	if st, err := os.Stat(a.workspace); err != nil || !st.IsDir() {
		return "", fmt.Errorf("the workspace %s is not a directory: give one that exists with --workspace", a.workspace)
	}
	l, err := loadSettings()
	if err != nil {
		return "", err
	}
	user, _, err := config.LoadFile(l.Paths.UserFile)
	if err != nil {
		return "", err
	}
	sch := config.Schedule{Name: a.name, At: a.at, Prompt: a.prompt, Workspace: a.workspace, Tools: a.tools, Approve: a.approve, Notify: a.notify, MaxCost: a.maxCost}
	if old, ok := user.FindSchedule(a.name); ok && !a.replace {
		q := fmt.Sprintf("A schedule named %s exists (at %q: %s). Replace it?", a.name, old.At, cell(old.Prompt))
		if !terminal {
			return "", fmt.Errorf("a schedule named %s exists (at %q): add --replace to replace it, or pick another name", a.name, old.At)
		}
		if !ask(q) {
			return "not replaced: the schedule " + a.name + " stays as it was\n", nil
		}
	}
	if err := checkScheduleTools(ctx, l, a.tools, a.approve); err != nil {
		return "", err
	}
	b, warn, err := schedule.Select(ctx, scheduleSystem)
	if err != nil {
		return "", err
	}
	entry, err := scheduleEntry(l, a.name, spec, a.workspace)
	if err != nil {
		return "", err
	}
	// What this scheduler cannot express is refused before anything is
	// saved.
	switch b.Name() {
	case "cron":
		_, err = schedule.CronEntry(entry)
	case "systemd":
		err = schedule.CheckLines(entry)
	case "launchd":
		_, err = schedule.Plist(entry)
	}
	if err != nil {
		return "", err
	}
	list := slices.DeleteFunc(slices.Clone(user.Schedules), func(x config.Schedule) bool { return x.Name == a.name })
	list = append(list, sch)
	slices.SortFunc(list, func(x, y config.Schedule) int { return strings.Compare(x.Name, y.Name) })
	if err := config.EditFile(l.Paths.UserFile, config.SchedulesChange(list)); err != nil {
		return "", err
	}
	if err := b.Install(ctx, entry); err != nil {
		return "", fmt.Errorf("saved the schedule %s in %s, but could not install it in %s: %w (co schedule list shows it as not installed; co schedule add %s --replace … tries again)",
			a.name, l.Paths.UserFile, b.Name(), err, a.name)
	}
	// An entry another session's scheduler holds would run it as well,
	// at the old times.
	moved, movedErr := removeElsewhere(ctx, b.Name(), a.name)
	now := time.Now().In(zone)
	st := readScheduleState(l.Paths.DataDir, a.name)
	st.Installed, st.Backend = now, b.Name()
	st.Last = nil
	_ = writeScheduleState(l.Paths.DataDir, a.name, st)

	var out strings.Builder
	fmt.Fprintf(&out, "added schedule %s: %s\n", a.name, spec.Describe())
	if next, ok := spec.Next(now, now); ok {
		fmt.Fprintf(&out, "next run: %s\n", next.Format("Mon 2006-01-02 15:04 MST"))
	} else {
		fmt.Fprintf(&out, "next run: none (%s is in the past)\n", a.at)
	}
	fmt.Fprintf(&out, "installed with %s: %s\n", b.Name(), b.Where(a.name))
	if shellTZ != "" {
		if next, ok := spec.Next(now, now); ok {
			fmt.Fprintf(&out, "WARNING: TZ=%s is set in this shell, but %s runs its entries in the machine's time zone (%s): the next run is at %s, which is %s here. Write the SPEC's times in %s\n",
				shellTZ, b.Name(), zone, next.Format("15:04 MST"), next.In(time.Local).Format("15:04 MST"), zone)
		}
	}
	for _, o := range moved {
		fmt.Fprintf(&out, "removed its old %s entry (added from a session whose scheduler was %s)\n", o, o)
	}
	if movedErr != nil {
		fmt.Fprintf(&out, "WARNING: %v\n", movedErr)
	}
	if len(a.notify) > 0 {
		fmt.Fprintf(&out, "after each run, its summary goes to: %s\n", strings.Join(a.notify, ", "))
	}
	if a.maxCost > 0 {
		fmt.Fprintf(&out, "each run stops at %s\n", cost.Format(a.maxCost))
	}
	// A place the summary cannot reach from here: said now, not only in
	// the log after the first run.
	for _, c := range deliveryChecks(l, []config.Schedule{sch}, os.Getenv) {
		if !c.ok {
			fmt.Fprintf(&out, "WARNING: %s\n", c.text)
		}
	}
	if warn != "" {
		fmt.Fprintf(&out, "WARNING: %s\n", warn)
	}
	if env := envSettings(l); len(env) > 0 {
		fmt.Fprintf(&out, "WARNING: %s set only in the environment (%s): the scheduler does not start co from your shell, so the run will not see it. Save it with co config set KEY VALUE\n",
			strings.Join(env, ", "), strings.Join(envVars(l, env), ", "))
	}
	return out.String(), nil
}

// schedulerZone is the time zone the system's scheduler reads a SPEC in:
// the machine's (/etc/localtime), which a TZ exported in the shell does
// not change for cron or a systemd timer. other is that TZ when it makes
// the shell's clock differ ("" otherwise): co's times are then given in
// the machine's zone.
func schedulerZone() (zone *time.Location, other string) {
	tz := os.Getenv("TZ")
	if tz == "" {
		return time.Local, ""
	}
	b, err := os.ReadFile("/etc/localtime")
	if err != nil {
		return time.Local, ""
	}
	name := "the machine's zone"
	if target, err := os.Readlink("/etc/localtime"); err == nil {
		if _, z, ok := strings.Cut(target, "zoneinfo/"); ok {
			name = z
		}
	}
	sys, err := time.LoadLocationFromTZData(name, b)
	if err != nil {
		return time.Local, ""
	}
	now := time.Now()
	_, a := now.In(sys).Zone()
	_, c := now.Zone()
	if a == c && sys.String() == time.Local.String() {
		return time.Local, ""
	}
	if a == c {
		return sys, "" // the same clock today
	}
	return sys, tz
}

// envSettings are the settings whose value comes from the environment.
func envSettings(l *config.Loaded) []string {
	var out []string
	for _, f := range config.Fields() {
		if src, ok := l.Sources[f.Key]; ok && src.Layer == config.LayerEnv {
			out = append(out, f.Key)
		}
	}
	return out
}

func envVars(l *config.Loaded, keys []string) []string {
	var out []string
	for _, k := range keys {
		out = append(out, "$"+l.Sources[k].Name)
	}
	return out
}

// scheduleEntry is the scheduler's entry: this co binary, in the
// workspace, with co's own directories and PATH (so a run finds the same
// settings and the same programs as the co that added it; nothing secret).
func scheduleEntry(l *config.Loaded, name string, spec *schedule.Spec, workspace string) (schedule.Entry, error) {
	exe, err := os.Executable()
	if err != nil {
		return schedule.Entry{}, fmt.Errorf("cannot find co's own binary for the scheduler: %w", err)
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		return schedule.Entry{}, fmt.Errorf("cannot find co's own binary for the scheduler: %w", err)
	}
	e := schedule.Entry{Name: name, Spec: spec, Exe: exe, Dir: workspace, Env: [][2]string{
		{"XDG_CONFIG_HOME", filepath.Dir(l.Paths.ConfigDir)},
		{"XDG_DATA_HOME", filepath.Dir(l.Paths.DataDir)},
	}}
	if p := os.Getenv("PATH"); p != "" {
		e.Env = append(e.Env, [2]string{"PATH", p})
	}
	return e, nil
}

// scheduleState is what co keeps of a schedule beside its log, in
// DATA_DIR/schedules/NAME.json: when and where it was installed, and the
// last run.
type scheduleState struct {
	Installed time.Time `json:"installed"`
	Backend   string    `json:"backend"`
	Last      *lastRun  `json:"last_run,omitempty"`
}

// lastRun is one run's record.
type lastRun struct {
	Start     time.Time `json:"start"`
	End       time.Time `json:"end"`
	Code      int       `json:"exit_code"`
	SessionID string    `json:"session_id,omitempty"`
	// Attempts is how many times the run tried to reach the model, when
	// more than once (runScheduledWith).
	Attempts int `json:"attempts,omitempty"`
}

func scheduleDir(dataDir string) string { return filepath.Join(dataDir, "schedules") }

func readScheduleState(dataDir, name string) scheduleState {
	var st scheduleState
	b, err := os.ReadFile(filepath.Join(scheduleDir(dataDir), name+".json"))
	if err == nil {
		_ = json.Unmarshal(b, &st)
	}
	return st
}

func writeScheduleState(dataDir, name string, st scheduleState) error {
	if err := os.MkdirAll(scheduleDir(dataDir), 0o700); err != nil {
		return err
	}
	b, _ := json.MarshalIndent(st, "", "  ")
	p := filepath.Join(scheduleDir(dataDir), name+".json")
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, p)
}

func newScheduleListCmd(s env) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the schedules: spec, next run, last run and its outcome, the scheduler",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			l, err := loadSettings()
			if err != nil {
				return err
			}
			ctx, stop, _ := signalContext(syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			zone, _ := schedulerZone()
			fmt.Fprint(s.Out, scheduleList(ctx, l, time.Now().In(zone), false))
			return nil
		},
	}
}

// scheduleList is the table of co schedule list, or with records the
// chat's /schedule: one schedule a few lines, one field a line's part, as
// the chat wraps a line wider than its pane and a table's rows broke
// mid-column at 80 columns.
func scheduleList(ctx context.Context, l *config.Loaded, now time.Time, records bool) string {
	var b strings.Builder
	backend, warn, selErr := schedule.Select(ctx, scheduleSystem)
	var installed []string
	var instErr error
	chosen := ""
	if selErr == nil {
		chosen = backend.Name()
		installed, instErr = backend.Installed(ctx)
	}
	// Entries another session's scheduler runs (cron under su, a timer
	// in the desktop): by name, the first scheduler that has it.
	elsewhere := map[string]string{}
	for _, o := range schedule.Elsewhere(scheduleSystem, chosen) {
		names, _ := o.Installed(ctx)
		for _, n := range names {
			if _, ok := elsewhere[n]; !ok {
				elsewhere[n] = o.Name()
			}
		}
	}
	if len(l.Settings.Schedules) == 0 && len(installed) == 0 {
		// Nothing to run yet, so nothing the scheduler's state could
		// keep from running: co schedule add says it when it matters.
		b.WriteString("no schedules yet (add one: co schedule add NAME --at \"tomorrow 9am\" PROMPT…)\n")
		return safe.Text(b.String())
	}
	var rows [][6]string // NAME, SPEC, NEXT, LAST RUN, NOTIFY, SCHEDULER
	for _, sch := range l.Settings.Schedules {
		st := readScheduleState(l.Paths.DataDir, sch.Name)
		next := "-"
		if spec, err := schedule.Parse(sch.At); err == nil {
			anchor := st.Installed
			if st.Last != nil {
				anchor = st.Last.Start
			}
			if t, ok := spec.Next(now, anchor); ok {
				next = t.Format("Mon 2006-01-02 15:04")
			} else {
				next = "none (past)"
			}
		}
		var where string
		switch {
		case selErr != nil:
			where = "no scheduler"
		case instErr != nil:
			where = backend.Name() + ": cannot read (" + instErr.Error() + ")"
		case slices.Contains(installed, sch.Name):
			where = backend.Name()
		case elsewhere[sch.Name] != "" && selErr == nil:
			where = fmt.Sprintf("in %s, not %s, this session's scheduler (co schedule add %s --replace … moves it)", elsewhere[sch.Name], backend.Name(), sch.Name)
		case st.Backend != "":
			where = "entry missing (co schedule add " + sch.Name + " --replace … reinstalls it)"
		default:
			where = "not installed (co schedule add " + sch.Name + " --replace … installs it)"
		}
		rows = append(rows, [6]string{sch.Name, sch.At, next, lastRunText(st.Last), notifyText(sch.Notify), where})
	}
	for _, name := range installed {
		if _, ok := l.Settings.FindSchedule(name); !ok {
			rows = append(rows, [6]string{name, "-", "-", "-", "-", backend.Name() + " entry without a setting (co schedule rm " + name + " removes it)"})
		}
	}
	if records {
		for _, r := range rows {
			fmt.Fprintf(&b, "• %s — %s\n    next: %s\n    last run: %s\n    notify: %s · scheduler: %s\n", r[0], r[1], r[2], r[3], r[4], r[5])
		}
	} else {
		w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(w, "NAME\tSPEC\tNEXT\tLAST RUN\tNOTIFY\tSCHEDULER")
		for _, r := range rows {
			fmt.Fprintln(w, strings.Join(r[:], "\t"))
		}
		_ = w.Flush() // a strings.Builder's writes do not fail
	}
	if selErr != nil {
		fmt.Fprintf(&b, "WARNING: %v\n", selErr)
	} else if warn != "" {
		fmt.Fprintf(&b, "WARNING: %s\n", warn)
	}
	return safe.Text(b.String())
}

// notifyText is a schedule's notify for co schedule list: "-" for none.
func notifyText(n []string) string {
	if len(n) == 0 {
		return "-"
	}
	return strings.Join(n, ",")
}

func lastRunText(r *lastRun) string {
	if r == nil {
		return "never"
	}
	outcome := "ok"
	switch {
	case r.End.IsZero():
		outcome = "running or killed"
	case r.Code == headless.ExitWaiting:
		// Exit 4 is a run that finished with calls kept waiting for the
		// user (the systemd unit counts it as success): not a failure.
		outcome = "ok, calls waiting (co inbox)"
	case r.Code != 0:
		outcome = fmt.Sprintf("failed (exit %d)", r.Code)
	}
	if r.Attempts > 1 {
		outcome += fmt.Sprintf(" after %d attempts", r.Attempts)
	}
	return r.Start.Format("2006-01-02 15:04") + " " + outcome
}

func newScheduleRmCmd(s env) *cobra.Command {
	return &cobra.Command{
		Use:   "rm NAME",
		Short: "Remove a schedule and its entry in the system's scheduler",
		Args:  usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop, _ := signalContext(syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			out, err := scheduleRm(ctx, args[0])
			fmt.Fprint(s.Out, out)
			return err
		},
	}
}

// scheduleRm removes co's entry and the setting; the log stays.
func scheduleRm(ctx context.Context, name string) (string, error) {
	l, err := loadSettings()
	if err != nil {
		return "", err
	}
	user, _, err := config.LoadFile(l.Paths.UserFile)
	if err != nil {
		return "", err
	}
	_, inSettings := user.FindSchedule(name)
	removed := false
	var rmErr error
	b, _, selErr := schedule.Select(ctx, scheduleSystem)
	chosen := ""
	if selErr == nil {
		chosen = b.Name()
		removed, rmErr = b.Remove(ctx, name)
	}
	moved, movedErr := removeElsewhere(ctx, chosen, name)
	if !inSettings && !removed && len(moved) == 0 {
		if rmErr != nil {
			return "", rmErr
		}
		return "", fmt.Errorf("no schedule named %s (co schedule list shows them)", name)
	}
	if inSettings {
		list := slices.DeleteFunc(slices.Clone(user.Schedules), func(x config.Schedule) bool { return x.Name == name })
		if err := config.EditFile(l.Paths.UserFile, config.SchedulesChange(list)); err != nil {
			return "", err
		}
	}
	_ = os.Remove(filepath.Join(scheduleDir(l.Paths.DataDir), name+".json"))
	var out strings.Builder
	fmt.Fprintf(&out, "removed schedule %s", name)
	switch {
	case removed:
		fmt.Fprintf(&out, " and its %s entry", b.Name())
	case rmErr != nil:
		fmt.Fprintf(&out, "; its %s entry could not be removed: %v", b.Name(), rmErr)
	case selErr != nil:
		fmt.Fprintf(&out, " (no scheduler to remove an entry from: %v)", selErr)
	case len(moved) == 0:
		fmt.Fprintf(&out, " (it had no %s entry)", b.Name())
	}
	for _, o := range moved {
		fmt.Fprintf(&out, " and its %s entry (added from a session whose scheduler was %s)", o, o)
	}
	fmt.Fprintf(&out, "; its log stays in %s\n", scheduleLogPath(l.Paths.DataDir, name))
	if movedErr != nil {
		fmt.Fprintf(&out, "WARNING: %v\n", movedErr)
	}
	return out.String(), rmErr
}

// removeElsewhere removes co's entry for name from the system's schedulers
// other than chosen (schedule.Elsewhere), and says which it removed.
func removeElsewhere(ctx context.Context, chosen, name string) (removed []string, err error) {
	var errs []error
	for _, o := range schedule.Elsewhere(scheduleSystem, chosen) {
		ok, rerr := o.Remove(ctx, name)
		if ok {
			removed = append(removed, o.Name())
		}
		// A crontab that cannot be read here (cron.deny) holds no entry
		// this user could have written: nothing to say on every add.
		if rerr == nil || !ok {
			continue
		}
		if o.Name() == "systemd" {
			errs = append(errs, fmt.Errorf("its systemd timer (%s) is removed, but the user manager could not be told from this session: %w; run systemctl --user daemon-reload where it runs (or log out and in)",
				o.Where(name), rerr))
		} else {
			errs = append(errs, fmt.Errorf("its %s entry could not be removed: %w; remove it yourself (%s)", o.Name(), rerr, o.Where(name)))
		}
	}
	return removed, errors.Join(errs...)
}

func scheduleLogPath(dataDir, name string) string {
	return filepath.Join(scheduleDir(dataDir), name+".log")
}

func newScheduleLogsCmd(s env) *cobra.Command {
	return &cobra.Command{
		Use:   "logs NAME",
		Short: "Print a schedule's run log",
		Args:  usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !schedule.NameOK(args[0]) {
				return fmt.Errorf("%q is not a schedule name (lower-case letters, digits, - and _): co schedule list shows them", args[0])
			}
			l, err := loadSettings()
			if err != nil {
				return err
			}
			p := scheduleLogPath(l.Paths.DataDir, args[0])
			for _, old := range []string{p + ".1", p} {
				b, err := os.ReadFile(old)
				if errors.Is(err, os.ErrNotExist) {
					continue
				}
				if err != nil {
					return err
				}
				// What a run wrote came from the model and tools: no
				// escape sequence reaches the terminal raw.
				fmt.Fprint(s.Out, safe.Text(string(b)))
			}
			// Runs skipped while the last one still runs: its log gets
			// them when it ends.
			if b, err := os.ReadFile(skippedPath(l.Paths.DataDir, args[0])); err == nil {
				if log, _ := os.ReadFile(p); len(log) > 0 && log[len(log)-1] != '\n' {
					fmt.Fprintln(s.Out) // the running run's answer stops mid-line
				}
				fmt.Fprint(s.Out, safe.Text(string(b)))
			}
			if _, err := os.Stat(p); errors.Is(err, os.ErrNotExist) {
				if _, ok := l.Settings.FindSchedule(args[0]); !ok {
					return fmt.Errorf("no schedule named %s and no log of one (co schedule list shows them)", args[0])
				}
				fmt.Fprintf(s.Out, "%s has not run yet (its log will be %s)\n", args[0], p)
			}
			return nil
		},
	}
}

// scheduleLogMax bounds a log: past it, the log becomes NAME.log.1 (the
// one before is dropped) and a new one starts.
const scheduleLogMax = 1 << 20

func openScheduleLog(dataDir, name string) (*os.File, error) {
	if err := os.MkdirAll(scheduleDir(dataDir), 0o700); err != nil {
		return nil, err
	}
	p := scheduleLogPath(dataDir, name)
	if st, err := os.Stat(p); err == nil && st.Size() > scheduleLogMax {
		_ = os.Rename(p, p+".1")
	}
	return os.OpenFile(p, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
}

func newScheduleRunCmd(s env) *cobra.Command {
	return &cobra.Command{
		Use:   "run NAME",
		Short: "Run a schedule now, exactly as the scheduler does (its entry runs this)",
		Args:  usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			return scheduleRun(s, args[0], wallClock())
		},
	}
}

// scheduleRun is co schedule run NAME, on clock (its waits between
// attempts: runScheduledWith).
func scheduleRun(s env, name string, clock runClock) error {
	l, err := loadSettings()
	if err != nil {
		logEarlyFailure(name, err)
		return err
	}
	sch, ok := l.Settings.FindSchedule(name)
	if !ok {
		return fmt.Errorf("no schedule named %s in %s (co schedule list shows them)", name, l.Paths.UserFile)
	}
	log, err := openScheduleLog(l.Paths.DataDir, name)
	if err != nil {
		return err
	}
	defer log.Close()
	// One run of a schedule at a time: cron starts the next even
	// while the last still runs (a systemd timer does not).
	unlock, err := lockSchedule(l.Paths.DataDir, name)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		now := time.Now()
		msg := fmt.Sprintf("the previous run of %s%s is still running: this one is skipped", name, startedText(readScheduleState(l.Paths.DataDir, name).Last))
		var note strings.Builder
		fmt.Fprintf(&note, "=== %s: %s\n", now.Format(time.RFC3339), msg)
		// A stuck run is news for the schedule's notify: once, at
		// the first skip (a later one finds the first noted).
		if _, err := os.Stat(skippedPath(l.Paths.DataDir, name)); errors.Is(err, os.ErrNotExist) {
			deliverRun(context.Background(), l, sch, deliver.Run{Schedule: name, Start: now,
				Outcome: "skipped: the previous run" + startedText(readScheduleState(l.Paths.DataDir, name).Last) + " is still running (co schedule logs " + name + ")"}, nil, &note)
		}
		note.WriteString("\n")
		// Not into the log: the running run writes its answer
		// there, and a line of ours would land mid-sentence.
		noteSkipped(l.Paths.DataDir, name, note.String())
		return errors.New(msg)
	}
	if err != nil {
		// Run by the scheduler, stderr goes nowhere the user looks:
		// the log says it too.
		dir := scheduleDir(l.Paths.DataDir)
		err = fmt.Errorf("cannot take the lock of the schedule %s, so it did not run: %w; co writes its lock in %s: check that the folder exists and that you can write in it (ls -ld %s)", name, err, dir, dir)
		fmt.Fprintf(log, "=== %s: co: %v\n\n", time.Now().Format(time.RFC3339), err)
		return err
	}
	defer unlock()
	// Skips noted since the last run ended (or while it ran),
	// before this run's lines and after them, with the lock held.
	moveSkipped(l.Paths.DataDir, name, log)
	defer moveSkipped(l.Paths.DataDir, name, log)
	ctx, stop, received := signalContext(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	st := readScheduleState(l.Paths.DataDir, name)
	start := time.Now()
	st.Last = &lastRun{Start: start}
	_ = writeScheduleState(l.Paths.DataDir, name, st)
	fmt.Fprintf(log, "=== %s: run of %s (at %q) in %s\n", start.Format(time.RFC3339), name, sch.At, sch.Workspace)
	if err := os.Chdir(sch.Workspace); err != nil {
		// Run by the scheduler, stderr goes nowhere the user
		// looks: the failure is logged, recorded for co schedule
		// list and saved as a failed run for co inbox.
		msg := fmt.Sprintf("the workspace of the schedule %s cannot be used: %v; give it one that exists: co schedule add %s --replace --workspace DIR --at %q PROMPT…",
			name, err, name, sch.At)
		fmt.Fprintf(log, "co: %s\n", msg)
		why := fmt.Sprintf("its workspace %s cannot be used (co schedule logs %s says how to fix it)", sch.Workspace, name)
		id := failedRunSession(l, sch, why)
		// The user asked to hear of each run: of this one too.
		deliverRun(ctx, l, sch, deliver.Run{Schedule: name, Outcome: deliver.Outcome(why, 0), Start: start, Session: id}, nil, log)
		end := time.Now()
		fmt.Fprintf(log, "=== %s: exit %d, session %s, %s\n\n", end.Format(time.RFC3339), exitError, id, end.Sub(start).Round(time.Millisecond))
		st.Last = &lastRun{Start: start, End: end, Code: exitError, SessionID: id}
		_ = writeScheduleState(l.Paths.DataDir, name, st)
		return errors.New(msg)
	}
	// The terminal, when run by hand, sees the same as the log.
	var out io.Writer = log
	if isTerminal(s.Out) {
		out = io.MultiWriter(log, safeWriter{s.Out})
	}
	run := runScheduledWith(ctx, s, sch, out, clock)
	id, code := run.id, run.code
	if sig := received(); sig != 0 && code != 0 {
		code = sig
	}
	// co schedule rm removed the record while the run went on:
	// it is not brought back for a schedule that is gone.
	_, statErr := os.Stat(filepath.Join(scheduleDir(l.Paths.DataDir), name+".json"))
	removed := errors.Is(statErr, os.ErrNotExist)
	if removed {
		fmt.Fprintf(log, "co: the schedule %s was removed while it ran (co schedule rm): the run is not recorded for co schedule list; its session is %s\n", name, id)
	}
	end := time.Now()
	fmt.Fprintf(log, "=== %s: exit %d, session %s, %s\n\n", end.Format(time.RFC3339), code, id, end.Sub(start).Round(time.Millisecond))
	if !removed {
		st = readScheduleState(l.Paths.DataDir, name)
		st.Last = &lastRun{Start: start, End: end, Code: code, SessionID: id, Attempts: run.attempts}
		if err := writeScheduleState(l.Paths.DataDir, name, st); err != nil {
			fmt.Fprintf(s.Err, "co: cannot record the run: %v\n", err)
		}
	}
	// One line on stderr for a run that did not simply finish. A failure
	// goes there always: cron mails a job's output (crontab(5)) and the
	// journal keeps a unit's, so a failed run reaches the user however it
	// was started. A run that finished with calls waiting (or denied) is
	// a success (exit 4 is SuccessExitStatus of the systemd unit): it is
	// said only to a person watching (stderr a terminal). Under the
	// scheduler co inbox, the chat's start notice and the schedule's
	// notify tell it; a mail for each run of a schedule whose calls
	// always wait would be noise.
	if line, always := runEndLine(name, run, code); line != "" && (always || isTerminal(s.Err)) {
		fmt.Fprintln(s.Err, line)
	}
	if code != 0 {
		return exitCode(code)
	}
	return nil
}

// runEndLine is what co schedule run says on stderr of a run that ended
// with code: what it waits for and what to type, or why it failed; ""
// for a run that finished. always is false for a run that finished with
// calls waiting or denied, which only a person watching is told.
func runEndLine(name string, run scheduledRun, code int) (line string, always bool) {
	logs := "co schedule logs " + name
	switch code {
	case exitOK:
		return "", false
	case headless.ExitWaiting:
		switch w := run.waiting; len(w) {
		case 0:
			return fmt.Sprintf("co: the run of %s waits for your approval: co inbox lists what; approve it in the chat with /inbox approve ID", name), false
		case 1:
			what := clip(present.Call(w[0].Tool, w[0].Args), 100)
			if w[0].Reason != "" {
				what += " — " + clip(w[0].Reason, 60)
			}
			return fmt.Sprintf("co: the run of %s waits for your approval of %s: co inbox shows it; approve it in the chat with /inbox approve %d", name, what, w[0].ID), false
		default:
			var tools, ids []string
			for _, p := range w {
				if !slices.Contains(tools, p.Tool) {
					tools = append(tools, p.Tool)
				}
				ids = append(ids, strconv.FormatInt(p.ID, 10))
			}
			return fmt.Sprintf("co: the run of %s waits for your approval of %d calls (%s): co inbox shows them; approve each in the chat with /inbox approve ID (%s)",
				name, len(w), cell(strings.Join(tools, ", ")), strings.Join(ids, ", ")), false
		}
	case headless.ExitDenied:
		return fmt.Sprintf("co: the run of %s finished, but a call was denied (%s says which)", name, logs), false
	}
	why := ""
	if o := withoutWaiting(run.outcome); strings.HasPrefix(o, "failed: ") {
		why = ": " + clip(strings.TrimPrefix(o, "failed: "), 200)
	} else if o == "interrupted" || code == headless.ExitInterrupted || code > 128 {
		return fmt.Sprintf("co: the run of %s was stopped before it finished (exit %d; %s shows how far it got)", name, code, logs), true
	}
	return fmt.Sprintf("co: the run of %s failed (exit %d)%s; %s says more", name, code, why, logs), true
}

// startedText is ", started TIME" for the run r records, or "".
func startedText(r *lastRun) string {
	if r == nil || r.Start.IsZero() {
		return ""
	}
	return ", started " + r.Start.Format(time.RFC3339) + ","
}

// skippedPath keeps the runs skipped while another run of the schedule
// held its lock, until that run moves them into the log (moveSkipped).
func skippedPath(dataDir, name string) string {
	return filepath.Join(scheduleDir(dataDir), name+".skipped")
}

// noteSkipped appends note, whole, to the schedule's skipped runs.
func noteSkipped(dataDir, name, note string) {
	f, err := os.OpenFile(skippedPath(dataDir, name), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	_, _ = f.WriteString(note)
	_ = f.Close()
}

// moveSkipped moves the skipped runs noted so far into log. It is called
// with the schedule's lock held; a skip noted meanwhile lands in a new
// file, moved next time.
func moveSkipped(dataDir, name string, log io.Writer) {
	p := skippedPath(dataDir, name)
	taken := fmt.Sprintf("%s.%d", p, os.Getpid())
	if os.Rename(p, taken) != nil {
		return
	}
	b, _ := os.ReadFile(taken)
	_, _ = log.Write(b)
	_ = os.Remove(taken)
}

// logEarlyFailure records a run of an installed schedule that could not
// even read the settings (a malformed settings file): in its log and its
// record, which co schedule list shows, since the scheduler's stderr goes
// nowhere the user looks. Nothing is written for a name that never ran
// or was never added here.
func logEarlyFailure(name string, why error) {
	if !schedule.NameOK(name) {
		return
	}
	l, _ := loadReport()
	if l == nil {
		return
	}
	if _, err := os.Stat(filepath.Join(scheduleDir(l.Paths.DataDir), name+".json")); err != nil {
		return
	}
	log, err := openScheduleLog(l.Paths.DataDir, name)
	if err != nil {
		return
	}
	defer log.Close()
	now := time.Now()
	fmt.Fprintf(log, "=== %s: run of %s\nco: %s\n=== %s: exit %d, the settings could not be read: fix them (co config shows where)\n\n",
		now.Format(time.RFC3339), name, why, now.Format(time.RFC3339), exitError)
	st := readScheduleState(l.Paths.DataDir, name)
	st.Last = &lastRun{Start: now, End: now, Code: exitError}
	_ = writeScheduleState(l.Paths.DataDir, name, st)
}

// failedRunSession saves a scheduled run that could not start (its
// workspace is gone) as a session whose outcome says why, so co inbox
// and the chat's start notice show it; "" when it cannot be saved.
func failedRunSession(l *config.Loaded, sch config.Schedule, why string) string {
	st, err := app.OpenSessions(l)
	if err != nil {
		return ""
	}
	defer st.Close()
	rec := st.NewScheduled(sch.Workspace, sch.Name)
	if rec.SetOutcome("failed: "+why) != nil {
		return ""
	}
	return rec.ID()
}

// safeWriter passes text through lib/safe on its way to a terminal.
type safeWriter struct{ w io.Writer }

func (s safeWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(s.w, safe.Text(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// scheduleStatus is co status's schedules line: how many, the next run,
// and (probe) the scheduler.
func scheduleStatus(ctx context.Context, l *config.Loaded, now time.Time, probe bool) string {
	var sel *selectedScheduler
	if probe && len(l.Settings.Schedules) > 0 {
		b, warn, err := schedule.Select(ctx, scheduleSystem)
		sel = &selectedScheduler{warn: warn, err: err}
		if b != nil {
			sel.name = b.Name()
		}
	}
	return scheduleStatusText(l, now, sel)
}

// selectedScheduler is what schedule.Select found, for co status.
type selectedScheduler struct {
	name, warn string
	err        error
}

// scheduleStatusText is the schedules line; sel, when not nil, names
// the scheduler and, on a line of its own, what keeps it from running
// the entries (a cron daemon that is not running): the next run shown
// would not happen.
func scheduleStatusText(l *config.Loaded, now time.Time, sel *selectedScheduler) string {
	n := len(l.Settings.Schedules)
	if n == 0 {
		return "none (co schedule add)"
	}
	var nextName string
	var next time.Time
	for _, sch := range l.Settings.Schedules {
		spec, err := schedule.Parse(sch.At)
		if err != nil {
			continue
		}
		st := readScheduleState(l.Paths.DataDir, sch.Name)
		anchor := st.Installed
		if st.Last != nil {
			anchor = st.Last.Start
		}
		if t, ok := spec.Next(now, anchor); ok && (next.IsZero() || t.Before(next)) {
			next, nextName = t, sch.Name
		}
	}
	out := fmt.Sprintf("%d", n)
	if sel != nil {
		if sel.err != nil {
			out += " (no scheduler: co schedule list says how to get one)"
		} else {
			out += " with " + sel.name
		}
	}
	if nextName != "" {
		out += "; next: " + nextName + " at " + next.Format("Mon 2006-01-02 15:04")
	}
	if sel != nil && sel.err == nil && sel.warn != "" {
		out += "\n\tWARNING: " + sel.warn
	}
	return out
}

// scheduleSlash is /schedule: "" or "list" lists, "add NAME --at "SPEC"
// PROMPT" adds through scheduleAdd (a name that exists asks first), with
// co schedule add's --workspace, --notify, --tools and --approve.
func scheduleSlash(ctx context.Context, arg string) slash.Result {
	words, err := splitWords(arg)
	if err != nil {
		return slash.Result{Output: err.Error(), Err: true}
	}
	if len(words) == 0 || words[0] == "list" {
		l, err := loadSettings()
		if err != nil {
			return slash.Result{Output: err.Error(), Err: true}
		}
		zone, _ := schedulerZone()
		return slash.Result{Output: strings.TrimRight(scheduleList(ctx, l, time.Now().In(zone), true), "\n")}
	}
	usage := `usage: /schedule (lists), /schedule add NAME --at "SPEC" [--notify desktop,slack:#channel,mail] PROMPT; remove one with co schedule rm NAME`
	if words[0] != "add" || len(words) < 2 {
		return slash.Result{Output: usage, Err: true}
	}
	a := scheduleAddArgs{name: words[1]}
	var prompt []string
	for i := 2; i < len(words); i++ {
		switch w := words[i]; {
		case w == "--at" && i+1 < len(words):
			a.at = words[i+1]
			i++
		case strings.HasPrefix(w, "--at="):
			a.at = strings.TrimPrefix(w, "--at=")
		case w == "--replace":
			a.replace = true
		case w == "--workspace" && i+1 < len(words):
			a.workspace = words[i+1]
			i++
		case w == "--max-cost" && i+1 < len(words):
			v, err := strconv.ParseFloat(words[i+1], 64)
			if err != nil || v < 0 {
				return slash.Result{Output: fmt.Sprintf("--max-cost %q: want US dollars >= 0, e.g. --max-cost 0.50", safe.Text(words[i+1])), Err: true}
			}
			a.maxCost = v
			i++
		case (w == "--tools" || w == "--approve" || w == "--notify") && i+1 < len(words):
			// As co schedule add's: a comma-separated list.
			list := splitList(words[i+1])
			switch w {
			case "--tools":
				a.tools = append(a.tools, list...)
			case "--approve":
				a.approve = append(a.approve, list...)
			default:
				a.notify = append(a.notify, list...)
			}
			i++
		case len(prompt) == 0 && strings.HasPrefix(w, "--") && len(w) > 2:
			// A flag before the prompt that is none of these would
			// otherwise become the prompt's first word, silently.
			return slash.Result{Output: fmt.Sprintf("unknown option %q: /schedule add takes --at, --workspace, --tools, --approve, --notify, --max-cost and --replace before the prompt", safe.Text(w)), Err: true}
		default:
			prompt = append(prompt, w)
		}
	}
	if a.at == "" {
		return slash.Result{Output: `no --at "SPEC": say when, e.g. /schedule add brief --at "weekdays 08:00" Summarise today's mail`, Err: true}
	}
	a.prompt = strings.Join(prompt, " ")
	add := func(a scheduleAddArgs) slash.Result {
		out, err := scheduleAdd(ctx, a, func(string) bool { return false }, false)
		if err != nil {
			return slash.Result{Output: safe.Text(err.Error()), Err: true}
		}
		return slash.Result{Output: strings.TrimRight(safe.Text(out), "\n")}
	}
	if !a.replace {
		if l, err := loadSettings(); err == nil {
			if user, _, err := config.LoadFile(l.Paths.UserFile); err == nil {
				if old, ok := user.FindSchedule(a.name); ok {
					a.replace = true
					return slash.Result{
						Confirm:   safe.Text(fmt.Sprintf("A schedule named %s exists (at %q: %s). Replace it?", a.name, old.At, cell(old.Prompt))),
						OnConfirm: func() slash.Result { return add(a) },
					}
				}
			}
		}
	}
	return add(a)
}

// splitList splits a comma-separated list, as a string-slice flag does.
func splitList(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// splitWords splits a line into words as a shell would for quotes: "a b"
// and 'a b' are one word each.
func splitWords(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	inWord := false
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '"' || r == '\'':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("a quote (%c) is not closed", quote)
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out, nil
}

// lockSchedule takes NAME.lock (flock(2), released when the process
// ends however it ends), or fails when another run holds it.
func lockSchedule(dataDir, name string) (unlock func(), err error) {
	f, err := os.OpenFile(filepath.Join(scheduleDir(dataDir), name+".lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}

// scheduleRunGoing reports whether a run of the schedule name holds its
// lock now (lockSchedule). Probing takes the lock for an instant, so it is
// only asked about a run whose session says it has not ended.
func scheduleRunGoing(dataDir, name string) bool {
	if !schedule.NameOK(name) {
		return false
	}
	f, err := os.OpenFile(filepath.Join(scheduleDir(dataDir), name+".lock"), os.O_RDWR, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	return errors.Is(syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB), syscall.EWOULDBLOCK)
}

// checkScheduleTools refuses a name in a schedule's --tools or --approve
// that is no tool of co's, configured or not (a typo would otherwise
// change nothing, said only in the run's log), nor mcp__SERVER__… of a
// configured server (an MCP server's tools are known once it connects).
func checkScheduleTools(ctx context.Context, l *config.Loaded, tools, approve []string) error {
	if len(tools)+len(approve) == 0 {
		return nil
	}
	a, err := app.New(ctx, l, app.Options{ReportOnly: true})
	if err != nil {
		return nil // the run says what it cannot start, and which names are no tool
	}
	defer a.Close()
	known := a.Tools.Names()
	for _, u := range a.Unconfigured {
		known = append(known, u.Tools...)
	}
	for _, set := range []struct {
		flag  string
		names []string
	}{{"--tools", tools}, {"--approve", approve}} {
		for _, n := range set.names {
			if slices.Contains(known, n) {
				continue
			}
			if server, _, ok := strings.Cut(strings.TrimPrefix(n, "mcp__"), "__"); ok && strings.HasPrefix(n, "mcp__") &&
				slices.ContainsFunc(l.Settings.MCPServers, func(m config.MCPServer) bool { return m.Name == server }) {
				continue
			}
			slices.Sort(known)
			return fmt.Errorf("%s names %q, which is no tool of co's: the tools are %s, and an MCP server's are mcp__SERVER__TOOL (co mcp list shows them)",
				set.flag, n, strings.Join(slices.Compact(known), ", "))
		}
	}
	return nil
}
