package schedule

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// cronJob is one entry as cron reads it: its five time fields, the
// command /bin/sh runs and the text given to it on standard input.
type cronJob struct{ fields, cmd, stdin string }

// parseCrontab reads a crontab as cron does (crontab(5)): one entry a line;
// blank lines, comments and NAME=value lines are not entries; an entry is
// five time fields (or an @keyword) and the rest of the line, the command.
// In the command, \% is a %, and the first bare % ends it: what follows,
// its other bare %s made newlines, is the command's standard input.
func parseCrontab(text string) []cronJob {
	var jobs []cronJob
	for _, line := range strings.Split(text, "\n") {
		l := strings.TrimLeft(line, " \t")
		if l == "" || l[0] == '#' {
			continue
		}
		if name, _, ok := strings.Cut(l, "="); ok && !strings.ContainsAny(name, " \t") {
			continue
		}
		n := 5
		if l[0] == '@' {
			n = 1
		}
		f := strings.Fields(l)
		if len(f) <= n {
			jobs = append(jobs, cronJob{fields: l}) // cron refuses it: still a line of its own
			continue
		}
		rest := l
		for range n {
			rest = strings.TrimLeft(rest, " \t")
			rest = rest[strings.IndexAny(rest+" ", " \t"):]
		}
		rest = strings.TrimLeft(rest, " \t")
		var cmd strings.Builder
		stdin, inStdin := strings.Builder{}, false
		for i := 0; i < len(rest); i++ {
			c := rest[i]
			switch {
			case inStdin && c == '%':
				stdin.WriteByte('\n')
			case inStdin:
				stdin.WriteByte(c)
			case c == '\\' && i+1 < len(rest) && rest[i+1] == '%':
				cmd.WriteByte('%')
				i++
			case c == '%':
				inStdin = true
			default:
				cmd.WriteByte(c)
			}
		}
		jobs = append(jobs, cronJob{fields: strings.Join(f[:n], " "), cmd: cmd.String(), stdin: stdin.String()})
	}
	return jobs
}

// A workspace whose name has a % in it: the crontab holds exactly one
// entry for the schedule, and the command cron hands to /bin/sh runs co in
// that folder with nothing on its standard input.
func TestCronWorkspaceWithPercent(t *testing.T) {
	ctx := context.Background()
	table := fakeCrontab(t, nil)
	base := t.TempDir()
	dir := filepath.Join(base, "50% done %s %%")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// A stand-in for co that says where it ran and what it was given.
	exe := filepath.Join(base, "co")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\npwd > \"$REPORT\"\necho \"$@\" >> \"$REPORT\"\ncat >> \"$REPORT\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	report := filepath.Join(base, "report")
	e := Entry{Name: "brief", Spec: MustParse("weekdays 08:00"), Exe: exe, Dir: dir,
		Env: [][2]string{{"REPORT", report}, {"PATH", "/usr/bin:/bin"}}}
	if err := (&Cron{}).Install(ctx, e); err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(table)
	if err != nil {
		t.Fatal(err)
	}
	jobs := parseCrontab(string(text))
	if len(jobs) != 1 {
		t.Fatalf("cron reads %d entries, want 1:\n%s", len(jobs), text)
	}
	job := jobs[0]
	if job.fields != "0 8 * * 1,2,3,4,5" || job.stdin != "" {
		t.Fatalf("cron reads fields %q, stdin %q, want one command with no standard input:\n%s", job.fields, job.stdin, text)
	}
	cmd := exec.Command("/bin/sh", "-c", job.cmd)
	cmd.Stdin = strings.NewReader("")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", job.cmd, err, out)
	}
	got, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if want := dir + "\nschedule run brief\n"; string(got) != want {
		t.Errorf("co ran with\n%q\nwant\n%q", got, want)
	}
}

// A path that a crontab line cannot hold is refused with an error that
// names the character and what to do, and the crontab is left as it was.
func TestCronRefusesControlCharacters(t *testing.T) {
	ctx := context.Background()
	const mine = "0 9 * * * echo mine\n"
	tests := []struct {
		name  string
		edit  func(*Entry)
		wants []string
	}{
		{"newline in the workspace", func(e *Entry) { e.Dir = "/home/u/x\n* * * * * touch /tmp/pwned #" },
			[]string{"the workspace folder", `"/home/u/x\n* * * * * touch /tmp/pwned #"`, "a newline", "Rename the folder"}},
		{"carriage return in the workspace", func(e *Entry) { e.Dir = "/home/u/x\ry" },
			[]string{"the workspace folder", "a carriage return", "--workspace"}},
		{"tab in the workspace", func(e *Entry) { e.Dir = "/home/u/x\ty" }, []string{"a tab"}},
		{"escape in the workspace", func(e *Entry) { e.Dir = "/home/u/x\x1b[2Jy" }, []string{"U+001B"}},
		{"newline in co's path", func(e *Entry) { e.Exe = "/opt/x\n@reboot evil/co" }, []string{"co's own path", "a newline"}},
		{"newline in PATH", func(e *Entry) { e.Env = append(e.Env, [2]string{"PATH", "/bin\n@reboot evil"}) },
			[]string{"$PATH", "a newline", "with $PATH set without it"}},
		{"backslash before a percent", func(e *Entry) { e.Dir = `/home/u/a\%b` }, []string{"a backslash just before a %", "Rename the folder"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := mine
			table := fakeCrontab(t, &before)
			e := entry(t, "brief", "weekdays 08:00")
			tc.edit(&e)
			err := (&Cron{}).Install(ctx, e)
			if err == nil {
				text, _ := os.ReadFile(table)
				t.Fatalf("Install wrote it; cron reads %d entries:\n%s", len(parseCrontab(string(text))), text)
			}
			for _, w := range tc.wants {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if got, _ := os.ReadFile(table); string(got) != mine {
				t.Errorf("the crontab changed:\n%s", got)
			}
			if _, err := CronEntry(e); err == nil {
				t.Error("CronEntry accepted it")
			}
		})
	}
}

// systemd's unit files are read a line at a time too: a newline in the
// workspace would be a setting of its own (ExecStartPre=...).
func TestSystemdRefusesControlCharacters(t *testing.T) {
	e := entry(t, "brief", "weekdays 08:00")
	e.Dir = "/home/u/x\nExecStartPre=/bin/touch /tmp/pwned"
	s := &Systemd{sys: System{Home: t.TempDir(), ConfigHome: t.TempDir()}}
	err := s.Install(context.Background(), e)
	if err == nil || !strings.Contains(err.Error(), "a newline") {
		t.Fatalf("Install = %v, want a refusal naming the newline", err)
	}
}
