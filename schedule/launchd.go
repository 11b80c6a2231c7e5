package schedule

import (
	"context"
	"encoding/xml"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"maps"
)

// Launchd keeps schedules as launchd agents (launchd.plist(5)): a plist in
// ~/Library/LaunchAgents, loaded with `launchctl bootstrap gui/UID PLIST`
// and unloaded with `launchctl bootout gui/UID/LABEL` (launchctl(1)). It
// was written from those manual pages and its plist checked as XML here;
// it has not been run on a Mac (docs/scheduled-runs.md).
type Launchd struct{ sys System }

// Name is "launchd".
func (*Launchd) Name() string { return "launchd" }

// Label is the agent's label.
func Label(name string) string { return "dev.co-cli.schedule." + name }

func (l *Launchd) dir() string {
	return filepath.Join(l.sys.withDefaults().Home, "Library", "LaunchAgents")
}

// Where is the plist's path.
func (l *Launchd) Where(name string) string { return filepath.Join(l.dir(), Label(name)+".plist") }

func plistMarker(name string) string {
	return "<!-- Written by co for its schedule " + name + " (remove with: co schedule rm " + name + "). -->"
}

func xmlText(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

// Plist returns the agent's plist for e. A spec bound to one year (a once
// spec) runs through /bin/sh, which checks the year: launchd has none.
func Plist(e Entry) (string, error) {
	cal, interval, year, err := e.Spec.Launchd()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	b.WriteString(`<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">` + "\n")
	b.WriteString(plistMarker(e.Name) + "\n")
	b.WriteString("<plist version=\"1.0\">\n<dict>\n")
	str := func(k, v string) { b.WriteString("\t<key>" + k + "</key>\n\t<string>" + xmlText(v) + "</string>\n") }
	str("Label", Label(e.Name))
	b.WriteString("\t<key>ProgramArguments</key>\n\t<array>\n")
	args := e.Args()
	if year != 0 {
		args = []string{"/bin/sh", "-c", shellCommand(e, year)}
	}
	for _, a := range args {
		b.WriteString("\t\t<string>" + xmlText(a) + "</string>\n")
	}
	b.WriteString("\t</array>\n")
	str("WorkingDirectory", e.Dir)
	if len(e.Env) > 0 {
		b.WriteString("\t<key>EnvironmentVariables</key>\n\t<dict>\n")
		for _, kv := range e.Env {
			b.WriteString("\t\t<key>" + xmlText(kv[0]) + "</key>\n\t\t<string>" + xmlText(kv[1]) + "</string>\n")
		}
		b.WriteString("\t</dict>\n")
	}
	if interval > 0 {
		b.WriteString("\t<key>StartInterval</key>\n\t<integer>" + strconv.Itoa(interval) + "</integer>\n")
	} else {
		b.WriteString("\t<key>StartCalendarInterval</key>\n\t<array>\n")
		for _, d := range cal {
			b.WriteString("\t\t<dict>\n")
			for _, k := range slices.Sorted(maps.Keys(d)) {
				b.WriteString("\t\t\t<key>" + k + "</key>\n\t\t\t<integer>" + strconv.Itoa(d[k]) + "</integer>\n")
			}
			b.WriteString("\t\t</dict>\n")
		}
		b.WriteString("\t</array>\n")
	}
	b.WriteString("</dict>\n</plist>\n")
	return b.String(), nil
}

func (l *Launchd) ours(name string) bool {
	b, err := os.ReadFile(l.Where(name))
	return err == nil && strings.Contains(string(b), plistMarker(name))
}

func (l *Launchd) domain() string { return "gui/" + strconv.Itoa(l.sys.withDefaults().UID) }

// Install writes the plist and loads it (unloading co's earlier one).
func (l *Launchd) Install(ctx context.Context, e Entry) error {
	if _, err := os.Stat(l.Where(e.Name)); err == nil && !l.ours(e.Name) {
		return errors.New(l.Where(e.Name) + " exists and co did not write it: co leaves it alone")
	}
	p, err := Plist(e)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(l.dir(), 0o755); err != nil {
		return err
	}
	_, _ = run(ctx, "", "launchctl", "bootout", l.domain()+"/"+Label(e.Name)) // not loaded: fine
	if err := os.WriteFile(l.Where(e.Name), []byte(p), 0o644); err != nil {
		return err
	}
	_, err = run(ctx, "", "launchctl", "bootstrap", l.domain(), l.Where(e.Name))
	return err
}

// Remove unloads the agent and removes co's plist.
func (l *Launchd) Remove(ctx context.Context, name string) (bool, error) {
	if !l.ours(name) {
		return false, nil
	}
	_, _ = run(ctx, "", "launchctl", "bootout", l.domain()+"/"+Label(name))
	if err := os.Remove(l.Where(name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	return true, nil
}

// Installed lists the schedules whose plist co wrote.
func (l *Launchd) Installed(context.Context) ([]string, error) {
	files, _ := filepath.Glob(filepath.Join(l.dir(), Label("*")+".plist"))
	var names []string
	for _, f := range files {
		name := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), Label("")), ".plist")
		if l.ours(name) {
			names = append(names, name)
		}
	}
	return sortedUnique(names), nil
}
