package sandbox

// Tests that no process a command leaves behind outlives it in the Docker sandbox (issue 38),
// whatever it does to itself, and that it cannot write a protected path after the guard's check.
// They run against the real engine, as docker_test.go's do.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/client"
)

// survivorLoop is the shell script of a planted process: it names itself name (written to
// /proc/self/comm: any bytes, up to 15), says it is running (planted.TAG), and then, for as long
// as it lives, writes two protected files and wrote.TAG whenever go.TAG exists. Its command line
// carries co-TAG, by which the container's process list shows it.
func survivorLoop(tag, name string) string {
	return fmt.Sprintf(`: co-%[1]s; printf '%[2]s' > /proc/self/comm; : > planted.%[1]s
while :; do
  if [ -e go.%[1]s ]; then echo pwned > AGENTS.md; echo x > .envrc; : > wrote.%[1]s; fi
  sleep 0.05
done`, tag, name)
}

// plantedAndWait ends a command once its planted process has said it runs: what it left
// behind must outlive the command's shell, or the test would prove nothing.
func plantedAndWait(tag string) string {
	return fmt.Sprintf("\nwhile [ ! -e planted.%[1]s ]; do sleep 0.01; done\n", tag)
}

// shellQuote quotes s for sh.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// survivorCases are commands that each leave a process behind that tries not to be found:
// every one renames itself with a newline in its name, which today's reaper could not parse,
// and adds a way out of one more of the older kills.
func survivorCases() []struct{ name, tag, cmd string } {
	type c = struct{ name, tag, cmd string }
	var cases []c
	add := func(name, tag, launch string) {
		cases = append(cases, c{name, tag, launch + plantedAndWait(tag)})
	}
	// Issue 38 as reported: a new session, the run id dropped, a newline in its name.
	add("setsid, no run id, newline in its name", "issue",
		"L="+shellQuote(survivorLoop("issue", `x\nsh`))+"\n"+
			`setsid env -u CO_RUN_ID sh -c "$L" > /dev/null 2>&1 &`)
	// A name whose first line reads as a zombie's fields, and whose second holds ") " and spaces.
	add("name with ) and spaces over two lines", "paren",
		"L="+shellQuote(survivorLoop("paren", `) Z 1 \n) S 9 (`))+"\n"+
			`setsid env -u CO_RUN_ID sh -c "$L" > /dev/null 2>&1 &`)
	// A double fork: its parent exits at once, it belongs to init.
	add("double fork", "fork2",
		"L="+shellQuote(survivorLoop("fork2", `x\n`))+"\n"+
			`( ( exec setsid env -u CO_RUN_ID sh -c "$L" > /dev/null 2>&1 ) & )`)
	// A new process group in the same session: out of reach of the group kill.
	add("new process group", "pgrp",
		"L="+shellQuote(survivorLoop("pgrp", `x\n`))+"\n"+
			`env -u CO_RUN_ID perl -e 'setpgrp(0, 0); exec "sh", "-c", $ARGV[0]' "$L" > /dev/null 2>&1 &`)
	// A subreaper (prctl PR_SET_CHILD_SUBREAPER, 36) in its own session, renamed (PR_SET_NAME,
	// 15) with a newline; its grandchild, whose parent exited, is re-parented to it, not to init.
	add("subreaper re-parent", "reaper",
		"L="+shellQuote(survivorLoop("reaper", `sub`))+"\n"+
			`env -u CO_RUN_ID python3 -c '
import ctypes, os, signal, sys
libc = ctypes.CDLL(None)
libc.prctl(36, 1, 0, 0, 0)
os.setsid()
libc.prctl(15, b"x\n) Z 1 (", 0, 0, 0)
if os.fork() == 0:
    if os.fork() == 0:
        os.execvp("sh", ["sh", "-c", sys.argv[1]])
    os._exit(0)
while True:
    try:
        os.wait()
    except ChildProcessError:
        signal.pause()
' "$L" > /dev/null 2>&1 &`)
	// The main thread exits (exit, not exit_group) and another thread runs on: /proc/PID/stat then
	// says Z, a zombie, although the process lives; a reaper that spares zombies spares it.
	add("main thread gone, a thread runs on", "thread",
		"L="+shellQuote(survivorLoop("thread", `x\n`))+"\n"+
			`setsid env -u CO_RUN_ID python3 -c '
import ctypes, subprocess, sys, threading
threading.Thread(target=lambda: subprocess.run(["sh", "-c", sys.argv[1]])).start()
ctypes.CDLL(None).syscall(60, 0)
' "$L" > /dev/null 2>&1 &`)
	return cases
}

// liveProcs lists the container's processes of uid that are alive (a zombie is not: it cannot
// write) and whose command line holds token ("" for any), as the engine sees them (ps on the
// host, reading the container's cgroup: no process can leave it or hide from it).
func liveProcs(t *testing.T, cli *client.Client, name string, uid int, token string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	top, err := cli.ContainerTop(ctx, name, []string{"-o", "pid,uid,stat,nlwp,args"})
	if err != nil {
		t.Fatal(err)
	}
	var live []string
	for _, p := range top.Processes {
		if len(p) < 5 || p[1] != fmt.Sprint(uid) {
			continue
		}
		// A zombie whose other threads still run is not dead (nlwp > 1).
		if strings.HasPrefix(p[2], "Z") && p[3] == "1" {
			continue
		}
		if token == "" || strings.Contains(p[4], token) {
			live = append(live, strings.Join(p, " "))
		}
	}
	return live
}

// ownedWorkspace is a workspace owned by uid (the container's commands run as its owner).
func ownedWorkspace(t *testing.T, uid int) string {
	t.Helper()
	ws := filepath.Join(t.TempDir(), "ws")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(ws, uid, uid); err != nil {
		t.Fatal(err)
	}
	return ws
}

// owners are the workspace owners the tests run commands as: the test's user and, as root, a
// user that is neither root nor 1000.
func owners(t *testing.T) []int {
	us := []int{os.Getuid()}
	if os.Getuid() == 0 {
		us = append(us, otherUser(t))
	}
	return us
}

// No process of a finished command is left in the container, whatever it did to itself: by the
// time Run returns, each planted process is gone (the container's process list), and when the
// test then tells it to write (go.TAG), nothing is written — it would write within 50 ms of
// go.TAG for as long as it lived, and the process list read after go.TAG shows it did not live.
func TestDockerNoProcessOutlivesItsCommand(t *testing.T) {
	t.Parallel()
	cli := needDocker(t)
	for _, uid := range owners(t) {
		t.Run(fmt.Sprint("owner ", uid), func(t *testing.T) {
			t.Parallel()
			ws := ownedWorkspace(t, uid)
			d := newTestDocker(t, Config{Workspace: ws})
			for _, tc := range survivorCases() {
				t.Run(tc.name, func(t *testing.T) {
					out := mustRun(t, d, tc.cmd, Options{Timeout: time.Minute})
					if out.ExitCode != 0 || len(out.Protected) != 0 {
						t.Fatalf("the command: %+v", out)
					}
					write(t, ws, "go."+tc.tag, "")
					if live := liveProcs(t, cli, d.Name(), uid, ""); len(live) > 0 {
						t.Errorf("processes of uid %d left after the command:\n%s", uid, strings.Join(live, "\n"))
					}
					for _, f := range []string{"wrote." + tc.tag, "AGENTS.md", ".envrc"} {
						mustNotExist(t, ws, f)
					}
				})
			}
			// The container's own process (keepUser) is not the commands' user's to kill, even
			// when that user is root (no capability): the container still runs commands.
			if out := mustRun(t, d, "echo alive", Options{}); out.Text != "alive\n" {
				t.Fatalf("after the kills: %+v", out)
			}
		})
	}
}

// A command still running is not killed when another ends; what the one that ended left behind
// is killed when it ends (an orphan, by the reaper) and at the latest when the last running
// command ends, before that command's check of protected paths, so nothing it wrote stays.
func TestDockerConcurrentCommandSurvivors(t *testing.T) {
	t.Parallel()
	cli := needDocker(t)
	for _, uid := range owners(t) {
		t.Run(fmt.Sprint("owner ", uid), func(t *testing.T) {
			t.Parallel()
			ws := ownedWorkspace(t, uid)
			d := newTestDocker(t, Config{Workspace: ws})
			ctx := context.Background()

			// B runs until b.go, with a child of its own that writes protected files (once
			// go.b exists) and that only its end can stop: it is B's, not an orphan.
			b := make(chan Output, 1)
			go func() {
				out, err := d.Run(ctx, "L="+shellQuote(survivorLoop("b", `x\n) Z 1 (`))+"\n"+
					`setsid env -u CO_RUN_ID sh -c "$L" > /dev/null 2>&1 &`+plantedAndWait("b")+
					"while [ ! -e b.go ]; do sleep 0.05; done; echo b-done", Options{Timeout: hangGuard})
				if err != nil {
					t.Error(err)
				}
				b <- out
			}()
			waitFor(t, ws, "planted.b")

			// A leaves a renamed orphan (new session, no run id) and one that lives on in a
			// thread behind a main thread that looks like a zombie.
			for _, tc := range survivorCases() {
				if tc.tag != "issue" && tc.tag != "thread" {
					continue
				}
				if out := mustRun(t, d, tc.cmd, Options{Timeout: time.Minute}); out.ExitCode != 0 {
					t.Fatalf("%s: %+v", tc.name, out)
				}
				// Orphans: killed when A ends, although B still runs.
				if live := liveProcs(t, cli, d.Name(), uid, "co-"+tc.tag); len(live) > 0 {
					t.Errorf("%s: left running while B runs:\n%s", tc.name, strings.Join(live, "\n"))
				}
			}
			select {
			case out := <-b:
				t.Fatalf("B ended when A did: %+v", out)
			default:
			}
			if live := liveProcs(t, cli, d.Name(), uid, "co-b"); len(live) == 0 {
				t.Fatal("B's own process was killed when A ended")
			}

			// B's child writes protected files now, while B runs; then B ends.
			write(t, ws, "go.b", "")
			write(t, ws, "go.issue", "")
			write(t, ws, "go.thread", "")
			waitFor(t, ws, "wrote.b")
			write(t, ws, "b.go", "")
			out := <-b
			if out.ExitCode != 0 || !strings.HasPrefix(out.Text, "b-done\n") {
				t.Fatalf("B: %+v", out)
			}
			// B's check came after the kill: it saw what the child wrote and undid it, and
			// the child wrote nothing after it.
			if !reported(out, "AGENTS.md", "created") || !reported(out, ".envrc", "created") {
				t.Errorf("B's check did not report the writes of what B left running: %+v", out.Protected)
			}
			if live := liveProcs(t, cli, d.Name(), uid, ""); len(live) > 0 {
				t.Errorf("processes of uid %d left after the last command:\n%s", uid, strings.Join(live, "\n"))
			}
			for _, f := range []string{"AGENTS.md", ".envrc", "wrote.issue", "wrote.thread"} {
				mustNotExist(t, ws, f)
			}
		})
	}
}

// The last command's end kills every process of the commands' user, not only the orphans the
// reaper finds. Here the survivor is one the reaper cannot tell from a running command's: a
// detached exec starts it, as the engine starts a command's shell, so its parent is outside the
// container. It writes protected files while the command runs; when the command ends it is dead
// before the command's check, which undoes what it wrote, and nothing is written after.
func TestDockerLastCommandKillsEveryProcessOfItsUser(t *testing.T) {
	t.Parallel()
	cli := needDocker(t)
	for _, uid := range owners(t) {
		t.Run(fmt.Sprint("owner ", uid), func(t *testing.T) {
			t.Parallel()
			ws := ownedWorkspace(t, uid)
			d := newTestDocker(t, Config{Workspace: ws})
			ctx := context.Background()
			if err := d.Ready(ctx); err != nil {
				t.Fatal(err)
			}
			created, err := cli.ContainerExecCreate(ctx, d.Name(), container.ExecOptions{
				User:       fmt.Sprintf("%d:%d", uid, uid),
				WorkingDir: workdir,
				Cmd:        []string{"sh", "-c", survivorLoop("detached", `x\n) Z 1 (`)},
			})
			if err != nil {
				t.Fatal(err)
			}
			if err := cli.ContainerExecStart(ctx, created.ID, container.ExecStartOptions{Detach: true}); err != nil {
				t.Fatal(err)
			}
			waitFor(t, ws, "planted.detached")
			out := mustRun(t, d, ": > go.detached; while [ ! -e wrote.detached ]; do sleep 0.01; done", Options{Timeout: time.Minute})
			if !reported(out, "AGENTS.md", "created") || !reported(out, ".envrc", "created") {
				t.Errorf("the check did not see the writes: %+v", out)
			}
			if live := liveProcs(t, cli, d.Name(), uid, ""); len(live) > 0 {
				t.Errorf("processes of uid %d left after the command:\n%s", uid, strings.Join(live, "\n"))
			}
			mustNotExist(t, ws, "AGENTS.md")
			mustNotExist(t, ws, ".envrc")
		})
	}
}

// waitFor waits for rel to appear in ws (written by a process in the container).
func waitFor(t *testing.T, ws, rel string) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for {
		if _, err := os.Lstat(filepath.Join(ws, rel)); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never appeared", rel)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// BenchmarkDockerUserKill measures what the kill of the commands' user after the last command
// costs: a warm `true` on the 10,000-file workspace with the guard and the reaper, alternating
// without the kill (noUserKill) and with it, in one container, and reports both medians and
// their difference.
func BenchmarkDockerUserKill(b *testing.B) {
	ws := benchWorkspace(b)
	d := newTestDocker(b, Config{Workspace: ws, GitReadOnly: true})
	if err := d.Ready(context.Background()); err != nil {
		b.Fatal(err)
	}
	mustRun(b, d, "true", Options{}) // warm up both
	d.noUserKill = true
	mustRun(b, d, "true", Options{})
	var without, with []time.Duration
	for b.Loop() {
		for _, no := range []bool{true, false} {
			d.noUserKill = no
			start := time.Now()
			mustRun(b, d, "true", Options{})
			took := time.Since(start)
			if no {
				without = append(without, took)
			} else {
				with = append(with, took)
			}
		}
	}
	b.StopTimer()
	d.noUserKill = false
	mw, mk := median(without), median(with)
	b.ReportMetric(mw, "without-ms")
	b.ReportMetric(mk, "with-ms")
	b.ReportMetric(mk-mw, "userkill-ms")
}

// A command's process cannot tamper with the killer (killerUser): it may not ptrace it nor write
// its memory, as it may a process of its own uid and gid. Shown with a process started by the
// engine as the killer would be, and, as a control, one as the commands' user.
func TestDockerCommandsCannotTamperWithTheKiller(t *testing.T) {
	t.Parallel()
	cli := needDocker(t)
	for _, uid := range owners(t) {
		t.Run(fmt.Sprint("owner ", uid), func(t *testing.T) {
			t.Parallel()
			ws := ownedWorkspace(t, uid)
			d := newTestDocker(t, Config{Workspace: ws})
			ctx := context.Background()
			if err := d.Ready(ctx); err != nil {
				t.Fatal(err)
			}
			d.mu.Lock()
			c := d.cur
			d.mu.Unlock()
			for _, as := range []struct{ name, user string }{{"killer", killerUser(c.user)}, {"peer", c.user}} {
				created, err := cli.ContainerExecCreate(ctx, c.id, container.ExecOptions{
					User: as.user,
					Cmd:  []string{"sh", "-c", "echo $$ > /tmp/" + as.name + ".pid; exec sleep 300"},
				})
				if err != nil {
					t.Fatal(err)
				}
				if err := cli.ContainerExecStart(ctx, created.ID, container.ExecStartOptions{Detach: true}); err != nil {
					t.Fatal(err)
				}
			}
			// PTRACE_ATTACH (16) and a write to /proc/PID/mem, from a command, to each.
			out := mustRun(t, d, `while [ ! -s /tmp/killer.pid ] || [ ! -s /tmp/peer.pid ]; do sleep 0.01; done
python3 -c '
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
for name in ("killer", "peer"):
    pid = int(open("/tmp/" + name + ".pid").read())
    r = libc.ptrace(16, pid, None, None)
    e = ctypes.get_errno()
    if r == 0:
        os.waitpid(pid, 0)
        libc.ptrace(17, pid, None, None)
    try:
        os.close(os.open("/proc/%d/mem" % pid, os.O_RDWR))
        m = "mem ok"
    except OSError as x:
        m = "mem " + os.strerror(x.errno)
    print(name, "ptrace ok" if r == 0 else "ptrace " + os.strerror(e), m)
'`, Options{Timeout: time.Minute})
			want := "killer ptrace Operation not permitted mem Permission denied\npeer ptrace ok mem ok\n"
			if out.Text != want {
				t.Errorf("got\n%s\nwant\n%s", out.Text, want)
			}
		})
	}
}
