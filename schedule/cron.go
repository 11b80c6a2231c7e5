package schedule

import (
	"context"
	"fmt"
	"strings"
)

// Cron keeps schedules in the user's crontab (crontab(1): `crontab -l`
// reads it, `crontab -` replaces it). Each of co's entries is two lines:
// the marker comment naming co and the schedule, then the cron line. co
// removes and replaces only such pairs; every other line of the crontab
// stays byte for byte.
type Cron struct{}

// Name is "cron".
func (*Cron) Name() string { return "cron" }

// Where is "your crontab (crontab -l)".
func (*Cron) Where(string) string { return "your crontab (crontab -l)" }

// cronMarker is the comment line before co's entry for name.
func cronMarker(name string) string {
	return "# co schedule " + name + " (written by co; remove with: co schedule rm " + name + ")"
}

// CronEntry is the crontab's two lines for e (the marker and the line).
// crontab(5): "The entire command portion of the line, up to a newline or
// % character, will be executed by /bin/sh ... Percent-signs (%) in the
// command, unless escaped with backslash (\), will be changed into newline
// characters, and all data after the first % will be sent to the command as
// standard input." So every % is written \%, a path with a control character
// (a newline would end the line) is refused (CheckLines), and so is a
// backslash just before a %: cron reads "\\%" as a backslash and a bare %.
func CronEntry(e Entry) (string, error) {
	fields, year, err := e.Spec.CronLine()
	if err != nil {
		return "", err
	}
	if err := CheckLines(e); err != nil {
		return "", err
	}
	cmd := shellCommand(e, year)
	if i := strings.Index(cmd, `\%`); i >= 0 {
		return "", fmt.Errorf("cron cannot run co from %q: a backslash just before a %% (%q) cannot be written in a "+
			"crontab line, where \\%% stands for a %% (crontab(5)). Rename the folder, or give the schedule another workspace (--workspace)",
			e.Dir, cmd[max(0, i-10):min(len(cmd), i+10)])
	}
	cmd = strings.ReplaceAll(cmd, "%", `\%`)
	return cronMarker(e.Name) + "\n" + fields + " " + cmd + "\n", nil
}

func readCrontab(ctx context.Context) (string, error) {
	out, err := run(ctx, "", "crontab", "-l")
	if err != nil {
		// "no crontab for root": an empty crontab, not a failure.
		if strings.Contains(err.Error(), "no crontab for") {
			return "", nil
		}
		return "", err
	}
	return string(out), nil
}

func writeCrontab(ctx context.Context, text string) error {
	if text == "" {
		// `crontab -` with nothing would leave an empty crontab; -r
		// removes it, as it was before co wrote to it.
		_, err := run(ctx, "", "crontab", "-r")
		if err != nil && strings.Contains(err.Error(), "no crontab for") {
			return nil
		}
		return err
	}
	_, err := run(ctx, text, "crontab", "-")
	return err
}

// WithoutEntry returns text without co's entry for name (the marker line
// and the line after it), and whether there was one. Other lines are kept
// byte for byte.
func WithoutEntry(text, name string) (string, bool) {
	marker := cronMarker(name)
	lines := strings.SplitAfter(text, "\n")
	var b strings.Builder
	found := false
	for i := 0; i < len(lines); i++ {
		if strings.TrimRight(lines[i], "\n") == marker && i+1 < len(lines) &&
			strings.Contains(lines[i+1], " schedule run "+shQuote(name)) {
			found = true
			i++ // and the line it marks
			continue
		}
		b.WriteString(lines[i])
	}
	return b.String(), found
}

// Install replaces co's entry for e.Name in the crontab, or appends it.
func (c *Cron) Install(ctx context.Context, e Entry) error {
	entry, err := CronEntry(e)
	if err != nil {
		return err
	}
	text, err := readCrontab(ctx)
	if err != nil {
		return err
	}
	text, _ = WithoutEntry(text, e.Name)
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n" // cron needs every line ended
	}
	return writeCrontab(ctx, text+entry)
}

// Remove removes co's entry for name from the crontab.
func (c *Cron) Remove(ctx context.Context, name string) (bool, error) {
	text, err := readCrontab(ctx)
	if err != nil {
		return false, err
	}
	out, found := WithoutEntry(text, name)
	if !found {
		return false, nil
	}
	return true, writeCrontab(ctx, out)
}

// Installed lists the schedules with co's marker in the crontab.
func (c *Cron) Installed(ctx context.Context) ([]string, error) {
	text, err := readCrontab(ctx)
	if err != nil {
		return nil, err
	}
	var names []string
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		rest, ok := strings.CutPrefix(l, "# co schedule ")
		if !ok {
			continue
		}
		name, _, _ := strings.Cut(rest, " ")
		if l == cronMarker(name) && i+1 < len(lines) && strings.Contains(lines[i+1], " schedule run "+shQuote(name)) {
			names = append(names, name)
		}
	}
	return sortedUnique(names), nil
}
