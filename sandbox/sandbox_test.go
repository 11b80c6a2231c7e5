package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"
)

func TestParseBytes(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		bad  bool
	}{
		{in: "65536", want: 65536},
		{in: "512m", want: 512 << 20},
		{in: "1g", want: 1 << 30},
		{in: "1G", want: 1 << 30},
		{in: "1.5GiB", want: 3 << 29},
		{in: "64MB", want: 64 << 20},
		{in: " 2k ", want: 2048},
		{in: "10b", want: 10},
		{in: "", bad: true},
		{in: "m", bad: true},
		{in: "-1g", bad: true},
		{in: "1e9", bad: true},
		{in: "inf", bad: true},
		{in: "nan", bad: true},
		{in: "0", bad: true},
		{in: "1x", bad: true},
		{in: "99999999999t", bad: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := parseBytes(tt.in)
			if tt.bad {
				if err == nil {
					t.Fatalf("parseBytes(%q) = %d, want an error", tt.in, got)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("parseBytes(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
			}
		})
	}
}

func FuzzParseBytes(f *testing.F) {
	for _, s := range []string{"512m", "1g", "1.5GiB", "0", "-1", "1e3", "inf", "0x10p2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := parseBytes(s)
		if err == nil && n < 1 {
			t.Fatalf("parseBytes(%q) = %d without error", s, n)
		}
	})
}

func TestCaptureText(t *testing.T) {
	tests := []struct {
		name      string
		max       int
		writes    []string
		timedOut  bool
		want      string
		truncated bool
	}{
		{name: "fits", max: 10, writes: []string{"abc", "def"}, want: "abcdef"},
		{name: "exact", max: 6, writes: []string{"abc", "def"}, want: "abcdef"},
		// The head (a quarter) and the tail (the rest) are kept, the
		// middle dropped: errors are usually at the end (issue 27).
		{name: "truncated", max: 4, writes: []string{"abc", "def\n"}, want: "a\n[… output truncated: kept the first 1 and the last 3 of 7 bytes; the 3 between are left out …]\nef\n", truncated: true},
		{name: "head and tail across writes", max: 8, writes: []string{"start\n", "noise\n", "noise\n", "error: x\n"},
			want: "st\n[… output truncated: kept the first 2 and the last 6 of 27 bytes; the 19 between are left out …]\nor: x\n", truncated: true},
		{name: "utf8 boundary", max: 8, writes: []string{"aé", "0123456", "é12345"}, want: "a\n[… output truncated: kept the first 1 and the last 5 of 17 bytes; the 11 between are left out …]\n12345", truncated: true},
		{name: "timed out", max: 10, writes: []string{"x\n"}, timedOut: true, want: "x\n[command timed out after 7s]"},
		{name: "timed out silent", max: 10, timedOut: true, want: "[command timed out after 7s]"},
		{name: "both", max: 1, writes: []string{"xy"}, timedOut: true, want: "[… output truncated: kept the first 0 and the last 1 of 2 bytes; the 1 between are left out …]\ny\n[command timed out after 7s]", truncated: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCapture(tt.max)
			for _, w := range tt.writes {
				if n, err := c.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write = %d, %v", n, err)
				}
			}
			got, truncated := c.text(tt.timedOut, 7)
			if got != tt.want || truncated != tt.truncated {
				t.Fatalf("text = %q, %v; want %q, %v", got, truncated, tt.want, tt.truncated)
			}
			if !utf8.ValidString(got) {
				t.Fatalf("text is not valid UTF-8: %q", got)
			}
		})
	}
}

func TestEffectiveTimeout(t *testing.T) {
	tests := []struct {
		name           string
		requested, max time.Duration
		want           int
	}{
		{name: "default", max: time.Hour, want: 120},
		{name: "requested", requested: 5 * time.Second, max: time.Hour, want: 5},
		{name: "capped", requested: time.Hour, max: 30 * time.Second, want: 30},
		{name: "default capped", max: 10 * time.Second, want: 10},
		{name: "rounded up", requested: 1500 * time.Millisecond, max: time.Hour, want: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := effectiveTimeout(tt.requested, tt.max); got != tt.want {
				t.Fatalf("effectiveTimeout(%v, %v) = %d, want %d", tt.requested, tt.max, got, tt.want)
			}
		})
	}
}

func TestContainerName(t *testing.T) {
	tests := []struct{ run, want string }{
		{"0123456789abcdef", "co-runner-01234567"},
		{"abc", "co-runner-abc"},
		{"a/b c:d;e$f_g.h-i", "co-runner-abcdef_g"},
	}
	for _, tt := range tests {
		if got := ContainerName(tt.run); got != tt.want {
			t.Errorf("ContainerName(%q) = %q, want %q", tt.run, got, tt.want)
		}
	}
	if got := ContainerName("///"); len(got) != len("co-runner-")+8 {
		t.Errorf("ContainerName of an unusable id = %q, want a random 8-char suffix", got)
	}
}

func TestNormalize(t *testing.T) {
	ws := t.TempDir()
	tests := []struct {
		name string
		cfg  Config
		err  string
	}{
		{name: "defaults", cfg: Config{Workspace: ws}},
		{name: "bad fallback", cfg: Config{Workspace: ws, Fallback: "maybe"}, err: "fallback"},
		{name: "host network", cfg: Config{Workspace: ws, Network: "host"}, err: "network"},
		{name: "bad memory", cfg: Config{Workspace: ws, MemLimit: "lots"}, err: "memory"},
		{name: "negative cpus", cfg: Config{Workspace: ws, CPUs: -1}, err: "CPU"},
		{name: "missing workspace", cfg: Config{Workspace: filepath.Join(ws, "nope")}, err: "workspace"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := normalize(tt.cfg)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("normalize error = %v, want one mentioning %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Backend != BackendAuto || got.Fallback != FallbackWarn || got.Image != DefaultImage ||
				got.Network != "none" || got.MaxTimeout != DefaultMaxTimeout || got.RunID == "" {
				t.Fatalf("defaults not applied: %+v", got)
			}
		})
	}
	if _, _, err := New(context.Background(), Config{Backend: "podman", Workspace: ws}); err == nil {
		t.Fatal("New accepted an unknown backend")
	}
}

func TestSubprocessEnv(t *testing.T) {
	got := subprocessEnv([]string{
		"PATH=/usr/bin", "HOME=/home/u", "USER=u", "LANG=C.UTF-8", "LC_ALL=C", "TERM=xterm",
		"SHELL=/bin/bash", "TMPDIR=/tmp", "FOO_TOKEN=t", "OPENAI_API_KEY=k", "AWS_SECRET_ACCESS_KEY=s",
		"DB_PASSWORD=p", "EDITOR=vi", "PAGER=less", "malformed",
	})
	want := []string{
		"PATH=/usr/bin", "HOME=/home/u", "USER=u", "LANG=C.UTF-8", "LC_ALL=C", "TERM=xterm",
		"SHELL=/bin/bash", "TMPDIR=/tmp", "PAGER=cat", "GIT_PAGER=cat",
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("subprocessEnv =\n%q\nwant\n%q", got, want)
	}
	for _, name := range []string{"FOO_TOKEN", "api_key", "Secret", "DB_PASSWORD", "KEYRING"} {
		if !looksSecret(name) {
			t.Errorf("looksSecret(%q) = false", name)
		}
	}
	for name := range envAllowed {
		if looksSecret(name) {
			t.Errorf("allowlisted %s looks secret: it would never be passed", name)
		}
	}
}

func newTestSubprocess(t *testing.T, cfg Config) (Sandbox, string) {
	t.Helper()
	if cfg.Workspace == "" {
		cfg.Workspace = t.TempDir()
	}
	cfg.Backend = BackendSubprocess
	sb, sel, err := New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if sel != (Selection{Backend: BackendSubprocess, Isolation: None}) || sb.Isolation() != None {
		t.Fatalf("selection = %+v, isolation %s", sel, sb.Isolation())
	}
	t.Cleanup(func() { sb.Close() })
	return sb, cfg.Workspace
}

// processGone reports whether pid no longer runs (absent, or a zombie nobody reaped yet).
func processGone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	i := strings.LastIndexByte(string(b), ')')
	return i > 0 && strings.HasPrefix(string(b[i+1:]), " Z")
}

func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for !processGone(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d still running", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestSubprocessRun(t *testing.T) {
	t.Setenv("FOO_TOKEN", "hunter2")
	t.Setenv("CO_TEST_UNLISTED", "1")
	t.Setenv("HOME", "/home/tester")
	sb, ws := newTestSubprocess(t, Config{MaxTimeout: 3 * time.Second})
	ctx := context.Background()

	t.Run("output, exit code and workdir", func(t *testing.T) {
		out, err := sb.Run(ctx, "pwd; echo to-stderr >&2; exit 3", Options{})
		if err != nil {
			t.Fatal(err)
		}
		real, _ := filepath.EvalSymlinks(ws)
		if out.ExitCode != 3 || !strings.Contains(out.Text, real+"\n") || !strings.Contains(out.Text, "to-stderr") {
			t.Fatalf("got %+v", out)
		}
		if out.TimedOut || out.Truncated || out.Duration <= 0 {
			t.Fatalf("flags wrong: %+v", out)
		}
	})

	t.Run("environment allowlist", func(t *testing.T) {
		out, err := sb.Run(ctx, "env", Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, absent := range []string{"FOO_TOKEN", "hunter2", "CO_TEST_UNLISTED"} {
			if strings.Contains(out.Text, absent) {
				t.Errorf("environment leaks %s:\n%s", absent, out.Text)
			}
		}
		for _, present := range []string{"HOME=/home/tester\n", "PAGER=cat\n", "GIT_PAGER=cat\n", "PATH="} {
			if !strings.Contains(out.Text, present) {
				t.Errorf("environment lacks %q:\n%s", present, out.Text)
			}
		}
	})

	t.Run("timeout kills the process group", func(t *testing.T) {
		// The command outlives hangGuard: a Run that waited for it (or for
		// the background sleep holding its output) would trip the guard.
		out, err := returnsWithin(t, "Run with a 1s timeout", func() (Output, error) {
			return sb.Run(ctx, "sleep 300 & echo $!; sleep 200", Options{Timeout: time.Second})
		})
		if err != nil {
			t.Fatal(err)
		}
		if !out.TimedOut || out.ExitCode != 124 || !strings.HasSuffix(out.Text, "[command timed out after 1s]") {
			t.Fatalf("got %+v", out)
		}
		pid, err := strconv.Atoi(strings.Fields(out.Text)[0])
		if err != nil {
			t.Fatalf("no pid in %q", out.Text)
		}
		waitGone(t, pid)
	})

	t.Run("timeout capped by MaxTimeout", func(t *testing.T) {
		out, err := sb.Run(ctx, "sleep 60", Options{Timeout: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		if !out.TimedOut || !strings.Contains(out.Text, "[command timed out after 3s]") {
			t.Fatalf("got %+v", out)
		}
	})

	t.Run("background child does not outlive the shell", func(t *testing.T) {
		out, err := sb.Run(ctx, "sleep 300 >/dev/null 2>&1 & echo $!", Options{})
		if err != nil || out.ExitCode != 0 {
			t.Fatalf("got %+v, %v", out, err)
		}
		pid, _ := strconv.Atoi(strings.TrimSpace(out.Text))
		waitGone(t, pid)
	})

	t.Run("ctx cancel", func(t *testing.T) {
		cctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		defer cancel()
		out, err := returnsWithin(t, "Run after its context's deadline", func() (Output, error) {
			return sb.Run(cctx, "echo $$; sleep 300", Options{})
		})
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err = %v, want DeadlineExceeded", err)
		}
		pid, _ := strconv.Atoi(strings.TrimSpace(out.Text))
		if pid == 0 {
			t.Fatalf("partial output lost: %q", out.Text)
		}
		waitGone(t, pid)
	})

	t.Run("output truncated", func(t *testing.T) {
		out, err := sb.Run(ctx, "i=0; while [ $i -lt 2000 ]; do echo 0123456789; i=$((i+1)); done", Options{MaxOutput: 1000})
		if err != nil {
			t.Fatal(err)
		}
		if !out.Truncated || !strings.Contains(out.Text, "\n[… output truncated: kept the first 250 and the last 750 of 22000 bytes; the 21000 between are left out …]\n") {
			t.Fatalf("got Truncated=%v, text %q", out.Truncated, out.Text)
		}
		// A build's 100,000 lines of progress, then its error: the error is kept.
		out, err = sb.Run(ctx, "seq 1 100000; echo 'error: the build failed' >&2; exit 2", Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !out.Truncated || out.ExitCode != 2 || !strings.HasPrefix(out.Text, "1\n2\n3\n") || !strings.HasSuffix(out.Text, "100000\nerror: the build failed\n") {
			t.Fatalf("Truncated=%v exit %d, head %q, tail %q", out.Truncated, out.ExitCode, out.Text[:min(40, len(out.Text))], out.Text[max(0, len(out.Text)-80):])
		}
	})
}

func TestSubprocessClose(t *testing.T) {
	sb, ws := newTestSubprocess(t, Config{})
	done := make(chan error, 1)
	go func() {
		_, err := sb.Run(context.Background(), "touch running; sleep 300", Options{})
		done <- err
	}()
	// Close while the command runs: once it has said so, not after a guess.
	waitFile(t, filepath.Join(ws, "running"))
	if err := sb.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if !errors.Is(err, ErrClosed) {
			t.Fatalf("in-flight Run error = %v, want ErrClosed", err)
		}
	case <-time.After(hangGuard):
		t.Fatal("Close did not stop the running command")
	}
	if _, err := sb.Run(context.Background(), "true", Options{}); !errors.Is(err, ErrClosed) {
		t.Fatalf("Run after Close: %v, want ErrClosed", err)
	}
	if err := sb.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

func TestMounts(t *testing.T) {
	root := t.TempDir()
	mk := func(t *testing.T, setup func(ws string)) string {
		ws := filepath.Join(root, t.Name())
		if err := os.MkdirAll(ws, 0o755); err != nil {
			t.Fatal(err)
		}
		setup(ws)
		return ws
	}
	type mnt struct {
		target string
		ro     bool
	}
	tests := []struct {
		name   string
		setup  func(ws string)
		gitRO  bool
		want   []mnt
		source string // expected source of the .git mount, relative to ws
	}{
		{name: "no git", setup: func(string) {}, gitRO: true, want: []mnt{{"/workspace", false}}},
		{name: "git dir", setup: func(ws string) { noErr(t, os.Mkdir(filepath.Join(ws, ".git"), 0o755)) }, gitRO: true,
			want: []mnt{{"/workspace", false}, {"/workspace/.git", true}}, source: ".git"},
		{name: "git dir not protected", setup: func(ws string) { noErr(t, os.Mkdir(filepath.Join(ws, ".git"), 0o755)) },
			want: []mnt{{"/workspace", false}}},
		{name: "git file", setup: func(ws string) { noErr(t, os.WriteFile(filepath.Join(ws, ".git"), []byte("gitdir: /x\n"), 0o644)) }, gitRO: true,
			want: []mnt{{"/workspace", false}, {"/workspace/.git", true}}, source: ".git"},
		{name: "git symlink inside", setup: func(ws string) {
			if err := os.MkdirAll(filepath.Join(ws, "repo", "git"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("repo/git", filepath.Join(ws, ".git")); err != nil {
				t.Fatal(err)
			}
		}, gitRO: true, want: []mnt{{"/workspace", false}, {"/workspace/repo/git", true}}, source: "repo/git"},
		{name: "git symlink outside", setup: func(ws string) { noErr(t, os.Symlink(root, filepath.Join(ws, ".git"))) }, gitRO: true,
			want: []mnt{{"/workspace", false}}},
		// The other protected folders at the top, whatever the setting; .github whole; names without
		// case; files and ordinary folders are not mounted (the guard checks them).
		{name: "protected folders", setup: func(ws string) {
			for _, d := range []string{".VSCode", ".idea", ".co-cli", ".agents/skills", ".github/workflows", "src/.vscode", "docs"} {
				if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(filepath.Join(ws, ".envrc"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(ws, "AGENTS.md"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}, want: []mnt{{"/workspace", false}, {"/workspace/.VSCode", true}, {"/workspace/.agents", true}, {"/workspace/.co-cli", true},
			{"/workspace/.github", true}, {"/workspace/.idea", true}}},
		{name: "protected folder linked inside", setup: func(ws string) {
			if err := os.MkdirAll(filepath.Join(ws, "conf", "vscode"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("conf/vscode", filepath.Join(ws, ".vscode")); err != nil {
				t.Fatal(err)
			}
		}, want: []mnt{{"/workspace", false}, {"/workspace/conf/vscode", true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := mk(t, tt.setup)
			ms, _ := mounts(Config{Workspace: ws, GitReadOnly: tt.gitRO}, nil)
			var got []mnt
			for _, m := range ms {
				got = append(got, mnt{m.Target, m.ReadOnly})
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Fatalf("mounts = %v, want %v", got, tt.want)
			}
			if tt.source != "" {
				real, _ := filepath.EvalSymlinks(ws)
				if want := filepath.Join(real, tt.source); ms[1].Source != want {
					t.Fatalf(".git mount source %s, want %s", ms[1].Source, want)
				}
			}
		})
	}
}

// hangGuard bounds a call that must end on its own (a timeout, a cancel, Close, an engine that
// does not answer): a hang detector, never a measure. The commands such a call interrupts run
// longer than this, so a call that waited for its command would trip it; a loaded machine
// never comes near it.
const hangGuard = 2 * time.Minute

// returnsWithin runs f and fails the test if it has not returned within hangGuard.
func returnsWithin[T any](t testing.TB, what string, f func() (T, error)) (T, error) {
	t.Helper()
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := f()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-time.After(hangGuard):
		t.Fatalf("%s did not return within %v", what, hangGuard)
		var zero T
		return zero, nil
	}
}

// waitFile waits until path exists (a command's sign that it is running).
func waitFile(t testing.TB, path string) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never appeared", path)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// noErr fails the test at once on a set-up step's error.
func noErr(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
