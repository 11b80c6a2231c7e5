package sandbox

// These tests run against a real Docker engine and the co-cli-sandbox image (or the image named
// by CO_TEST_SANDBOX_IMAGE, e.g. one built from sandbox-image/Dockerfile). Without them they FAIL
// (run scripts/docker-up.sh as root to provide both), unless CO_TEST_NO_DOCKER=1 is set, in which
// case they skip. CI never sets it.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/client"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/co-cli/co/lib/testneeds"
	"github.com/co-cli/co/sandbox/sandboxtest"
)

// Environment of the helper child process (TestMain), which owns a sandbox the way co does.
const (
	childEnv          = "CO_SANDBOX_TEST_CHILD"           // "ready": wait for the container first; "now": don't; "sent": wait for the create request
	childWorkspaceEnv = "CO_SANDBOX_TEST_CHILD_WORKSPACE" //
	childRunEnv       = "CO_SANDBOX_TEST_CHILD_RUN"       //
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(childEnv); mode != "" {
		os.Exit(sandboxChild(mode))
	}
	code := m.Run()
	removeAddedUser()
	os.Exit(code)
}

// sandboxChild creates a Docker sandbox, prints "ready <container name>", and on SIGTERM calls
// Close and exits 0: what co's main does.
func sandboxChild(mode string) int {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM)
	ctx := context.Background()
	sb, _, err := New(ctx, Config{
		Backend:   BackendDocker,
		Image:     testImage(),
		Workspace: os.Getenv(childWorkspaceEnv),
		RunID:     os.Getenv(childRunEnv),
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 2
	}
	d := sb.(*Docker)
	if mode == "sent" {
		d.mu.Lock()
		c := d.cur
		d.mu.Unlock()
		for !c.sent.Load() {
			time.Sleep(time.Millisecond)
		}
	}
	if mode == "ready" {
		if err := d.Ready(ctx); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			return 2
		}
	}
	fmt.Println("ready", d.Name())
	<-sigs
	if err := sb.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "child: close:", err)
		return 1
	}
	return 0
}

// testImage is the sandbox image the tests use.
func testImage() string {
	if img := os.Getenv("CO_TEST_SANDBOX_IMAGE"); img != "" {
		return img
	}
	return DefaultImage
}

var docker struct {
	once sync.Once
	err  error
}

// needDocker fails the test (or skips it with CO_TEST_NO_DOCKER=1) when the engine or the image
// is missing, and returns a client for inspecting what the sandbox did.
func needDocker(t testing.TB) *client.Client {
	t.Helper()
	docker.once.Do(func() {
		cli, err := newClient("")
		if err != nil {
			docker.err = err
			return
		}
		defer cli.Close()
		ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
		defer cancel()
		if _, err := cli.Ping(ctx); err != nil {
			docker.err = err
			return
		}
		if _, err := cli.ImageInspect(ctx, testImage()); err != nil {
			docker.err = fmt.Errorf("image %s: %w", testImage(), err)
		}
	})
	if docker.err != nil {
		testneeds.Docker.Missing(t, docker.err)
	}
	cli, err := newClient("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	return cli
}

// testWorkspace is a workspace directory, owned by the test's user, that anyone may write to.
// testRunID is a run ID for a test's sandbox. The container's name keeps only the first 8
// characters of the run ID (ContainerName), so the randomness comes first and the kind after:
// "matrix"+randomHex(8) left 256 names for a table of parallel subtests, "test"+… 65,536, and CI
// met "Conflict. The container name "/co-runner-testb5ba" is already in use" (TestDockerMemoryLimit).
func testRunID(kind string) string {
	return randomHex(8) + "-" + kind
}

func testWorkspace(t testing.TB) string {
	t.Helper()
	ws := filepath.Join(t.TempDir(), "ws")
	if err := os.Mkdir(ws, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(ws, 0o777); err != nil { // umask
		t.Fatal(err)
	}
	return ws
}

// newTestDocker creates a Docker sandbox and registers its Close (and a check that the container
// is gone) for the end of the test.
func newTestDocker(t testing.TB, cfg Config) *Docker {
	t.Helper()
	cli := needDocker(t)
	cfg.Backend = BackendDocker
	if cfg.Image == "" {
		cfg.Image = testImage()
	}
	if cfg.Workspace == "" {
		cfg.Workspace = testWorkspace(t)
	}
	if cfg.RunID == "" {
		cfg.RunID = testRunID("test")
	}
	sb, sel, err := New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if sel != (Selection{Backend: BackendDocker, Isolation: Full}) || sb.Isolation() != Full {
		t.Fatalf("selection = %+v, isolation %s", sel, sb.Isolation())
	}
	d := sb.(*Docker)
	t.Cleanup(func() {
		if err := d.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		assertNoContainer(t, cli, d.Name())
	})
	return d
}

// assertNoContainer waits for the container to be gone: Close kills it and the engine removes it
// (AutoRemove) after Close has returned. The engine says when (a wait for "removed"); the deadline
// only detects a container that is never removed.
func assertNoContainer(t testing.TB, cli *client.Client, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	done, errc := cli.ContainerWait(ctx, name, container.WaitConditionRemoved)
	select {
	case <-done:
	case err := <-errc:
		if !cerrdefs.IsNotFound(err) {
			t.Errorf("container %s still there (%v)", name, err)
		}
	}
}

func mustRun(t testing.TB, sb Sandbox, cmd string, opts Options) Output {
	t.Helper()
	out, err := sb.Run(context.Background(), cmd, opts)
	if err != nil {
		t.Fatalf("Run(%q): %v", cmd, err)
	}
	return out
}

func TestDockerSandbox(t *testing.T) {
	t.Parallel()
	ws := testWorkspace(t)
	if err := os.MkdirAll(filepath.Join(ws, ".git", "hooks"), 0o777); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{".git", ".git/hooks"} { // writable but for the read-only mount
		if err := os.Chmod(filepath.Join(ws, dir), 0o777); err != nil {
			t.Fatal(err)
		}
	}
	hostSecret := filepath.Join(filepath.Dir(ws), "host-secret")
	if err := os.WriteFile(hostSecret, []byte("s3cret"), 0o644); err != nil {
		t.Fatal(err)
	}
	d := newTestDocker(t, Config{Workspace: ws, GitReadOnly: true, MaxTimeout: 3 * time.Second})
	cli := needDocker(t)
	ctx := context.Background()
	uid, gid := os.Getuid(), os.Getgid() // the workspace's owner

	// Each row: a command and what its output must be (exact) or contain.
	tests := []struct {
		name     string
		cmd      string
		exact    string
		contains []string
		exit     int
	}{
		{name: "workspace owner without capabilities", cmd: "id -u; id -g; grep -E '^Cap(Eff|Prm|Bnd)' /proc/self/status",
			exact: fmt.Sprintf("%d\n%d\n", uid, gid) + "CapPrm:\t0000000000000000\nCapEff:\t0000000000000000\nCapBnd:\t0000000000000000\n"},
		{name: "no privilege escalation", cmd: "grep NoNewPrivs /proc/self/status", exact: "NoNewPrivs:\t1\n"},
		{name: "only loopback", cmd: "ls /sys/class/net; tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '", exact: "lo\nlo\n"},
		{name: "network unreachable", cmd: "curl -sS -m 3 http://deb.debian.org/ >/dev/null", exit: 6, contains: []string{"Could not resolve host"}},
		{name: "pids limit", cmd: "cat /sys/fs/cgroup/pids/pids.max 2>/dev/null || cat /sys/fs/cgroup/pids.max", exact: "256\n"},
		{name: "workdir and env", cmd: "pwd; env | grep -v -e '^CO_RUN_ID=' -e '^PWD=' -e '^SHLVL=' -e '^_=' | sort",
			exact: "/workspace\nGIT_PAGER=cat\nHOME=/tmp\nHOSTNAME=sandbox\nLANG=C.UTF-8\nPAGER=cat\nPATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\n"},
		{name: "root fs read-only", cmd: "touch /etc/x", exit: 1, contains: []string{"Read-only file system"}},
		{name: "usr read-only", cmd: "echo x > /usr/bin/x", exit: 2, contains: []string{"Read-only file system"}},
		{name: "tmp writable", cmd: "echo x > /tmp/x && cat /tmp/x", exact: "x\n"},
		{name: "host file invisible", cmd: "cat " + hostSecret, exit: 1, contains: []string{"No such file or directory"}},
		{name: "host repo invisible", cmd: "ls /work /root 2>&1; true", contains: []string{"No such file or directory"}},
		{name: "git read-only", cmd: "touch /workspace/.git/hooks/x", exit: 1, contains: []string{"Read-only file system"}},
		{name: "workspace writable", cmd: "echo hello > /workspace/x && echo written", exact: "written\n"},
		{name: "exit code", cmd: "exit 42", exit: 42},
		{name: "stderr interleaved", cmd: "echo one; echo two >&2", contains: []string{"one\n", "two\n"}},
		{name: "tools present", cmd: "for c in git curl jq less tree file zip unzip python3 rg ps timeout; do command -v $c >/dev/null || echo missing $c; done"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := mustRun(t, d, tt.cmd, Options{})
			if out.ExitCode != tt.exit {
				t.Errorf("exit code %d, want %d; output:\n%s", out.ExitCode, tt.exit, out.Text)
			}
			if tt.contains == nil && out.Text != tt.exact {
				t.Errorf("output:\n%q\nwant\n%q", out.Text, tt.exact)
			}
			for _, s := range tt.contains {
				if !strings.Contains(out.Text, s) {
					t.Errorf("output lacks %q:\n%s", s, out.Text)
				}
			}
		})
	}
	if b, err := os.ReadFile(filepath.Join(ws, "x")); err != nil || string(b) != "hello\n" {
		t.Errorf("file written in /workspace: %q, %v on the host", b, err)
	}
	if _, err := os.Stat(filepath.Join(ws, ".git", "hooks", "x")); !os.IsNotExist(err) {
		t.Errorf(".git/hooks/x exists on the host: %v", err)
	}

	t.Run("container labels and config", func(t *testing.T) {
		info, err := cli.ContainerInspect(ctx, d.Name())
		if err != nil {
			t.Fatal(err)
		}
		l := info.Config.Labels
		if l[LabelSandbox] != "1" || l[LabelPID] != fmt.Sprint(os.Getpid()) || l[LabelRun] != d.cfg.RunID {
			t.Errorf("labels = %v", l)
		}
		hc := info.HostConfig
		// The container's own process runs as keepUser, which commands cannot signal; commands
		// run as the workspace's owner (the first row above).
		if !slices.Equal(hc.CapDrop, []string{"ALL"}) || !hc.ReadonlyRootfs || string(hc.NetworkMode) != "none" ||
			hc.PidsLimit == nil || *hc.PidsLimit != 256 || info.Config.User != keepUser {
			t.Errorf("host config: capdrop %v ro %v net %v pids %v user %q", hc.CapDrop, hc.ReadonlyRootfs, hc.NetworkMode, hc.PidsLimit, info.Config.User)
		}
		if len(hc.SecurityOpt) != 2 || hc.SecurityOpt[0] != "no-new-privileges" || !strings.HasPrefix(hc.SecurityOpt[1], "seccomp={") {
			t.Errorf("security options: %.100q", hc.SecurityOpt)
		}
	})

	t.Run("timeout", func(t *testing.T) {
		// sleep 301 outlives hangGuard: a Run that waited for it would trip the guard.
		out, err := returnsWithin(t, "Run with a 2s timeout", func() (Output, error) {
			return d.Run(ctx, "echo started; sleep 301", Options{Timeout: 2 * time.Second})
		})
		if err != nil || !out.TimedOut || out.ExitCode != 124 || !strings.HasPrefix(out.Text, "started\n") ||
			!strings.HasSuffix(out.Text, "[command timed out after 2s]") {
			t.Fatalf("got %+v, %v", out, err)
		}
		if out := mustRun(t, d, "ps -eo args | grep -c '^sleep 301' || true", Options{}); out.Text != "0\n" {
			t.Fatalf("sleep 301 still running: %q", out.Text)
		}
	})

	t.Run("timeout capped by MaxTimeout", func(t *testing.T) {
		out := mustRun(t, d, "sleep 60", Options{Timeout: time.Hour})
		if !out.TimedOut || !strings.HasSuffix(out.Text, "[command timed out after 3s]") {
			t.Fatalf("got %+v", out)
		}
	})

	t.Run("command ignoring TERM", func(t *testing.T) {
		out := mustRun(t, d, "trap '' TERM; sleep 30", Options{Timeout: time.Second})
		if !out.TimedOut || out.ExitCode != 124 {
			t.Fatalf("got %+v", out)
		}
	})

	t.Run("ctx cancel kills the command", func(t *testing.T) {
		cctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		_, err := returnsWithin(t, "Run after its context's deadline", func() (Output, error) {
			return d.Run(cctx, "sleep 302", Options{})
		})
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err = %v, want DeadlineExceeded", err)
		}
		if out := mustRun(t, d, "ps -eo args | grep -c '^sleep 302' || true", Options{}); out.Text != "0\n" {
			t.Fatalf("sleep 302 still running: %q", out.Text)
		}
	})

	t.Run("output truncated", func(t *testing.T) {
		out := mustRun(t, d, "head -c 100000 /dev/zero | tr '\\0' a", Options{MaxOutput: 1000})
		if !out.Truncated || out.Text != strings.Repeat("a", 250)+
			"\n[… output truncated: kept the first 250 and the last 750 of 100000 bytes; the 99000 between are left out …]\n"+strings.Repeat("a", 750) {
			t.Fatalf("Truncated=%v, text tail %q", out.Truncated, out.Text[max(0, len(out.Text)-80):])
		}
		out = mustRun(t, d, "head -c 1000 /dev/zero", Options{MaxOutput: 1000})
		if out.Truncated || len(out.Text) != 1000 {
			t.Fatalf("exactly MaxOutput bytes: Truncated=%v len=%d", out.Truncated, len(out.Text))
		}
	})

	t.Run("concurrent runs", func(t *testing.T) {
		// A barrier: each run ends only once all four have started, so runs
		// serialised by the sandbox never end (they time out) whatever the
		// machine's speed.
		var wg sync.WaitGroup
		for i := range 4 {
			wg.Go(func() {
				out, err := d.Run(ctx, fmt.Sprintf("mkdir -p /tmp/barrier && touch /tmp/barrier/%d && "+
					"while [ $(ls /tmp/barrier | wc -l) -lt 4 ]; do sleep 0.05; done; echo %d", i, i), Options{})
				if err != nil || out.Text != fmt.Sprintf("%d\n", i) {
					t.Errorf("run %d: %+v, %v (serialised?)", i, out, err)
				}
			})
		}
		wg.Wait()
	})
}

func TestDockerForkBomb(t *testing.T) {
	t.Parallel()
	d := newTestDocker(t, Config{})
	// Whether the bomb has hit the pids limit is read from the container's pids cgroup, whose
	// "max" event counts the forks it refused (cgroup v2 pids.events; v1 has the same file under
	// pids/), not guessed from how long it ran: a busy 2-core machine took more than 3 s to fork
	// 256 processes (CI on 2026-12-06). Shell built-ins only: a fork at the limit fails.
	const events = `co_ev=/sys/fs/cgroup/pids.events; [ -r "$co_ev" ] || co_ev=/sys/fs/cgroup/pids/pids.events
co_max() { co_v=0; while read -r co_k co_n; do [ "$co_k" = max ] && co_v=$co_n; done <"$co_ev"; }
co_max; co_before=$co_v
co_wait() { co_max; while [ "$co_v" = "$co_before" ]; do co_max; done; echo "limit hit"; }
`
	bombs := []struct {
		name, cmd string
		timedOut  bool
	}{
		// The shell returns once the bomb hit the limit, leaving it running in the background.
		{name: "background", cmd: events + "f() { f | f & }; f; co_wait"},
		// A loop that keeps forking at the limit until the timeout (bash, unlike dash, survives a
		// failed fork).
		{name: "until timeout", cmd: events + "bash -c 'while :; do sleep 30 & done' & co_wait; wait", timedOut: true},
	}
	for _, bomb := range bombs {
		t.Run(bomb.name, func(t *testing.T) {
			// The timeout must come after the bomb reached the limit; a machine too busy to get
			// there in time is given twice as long, up to about 90 s, rather than failing.
			var out Output
			for timeout := 3 * time.Second; ; timeout *= 2 {
				out = mustRun(t, d, bomb.cmd, Options{Timeout: timeout})
				t.Logf("fork bomb (timeout %s): exit %d, timed out %v, output %.120q", timeout, out.ExitCode, out.TimedOut, out.Text)
				// Done when the limit was hit and the run ended as it should; a "background" bomb
				// that hit the limit just as its timeout ran out is given the longer timeout too.
				if strings.Contains(out.Text, "limit hit") && out.TimedOut == bomb.timedOut || timeout > 45*time.Second {
					break
				}
				if !out.TimedOut {
					t.Fatalf("the bomb ended before its timeout without the end it should have: %+v", out)
				}
			}
			if !strings.Contains(out.Text, "limit hit") || out.TimedOut != bomb.timedOut {
				t.Errorf("the bomb never hit the pids limit, or timed out=%v: %.300q", out.TimedOut, out.Text)
			}
			// The bomb's processes are gone (only init, sleep and this command's are left), so the
			// next Run works normally. A killed shell may stay a zombie until docker-init reaps
			// it: look again until none is left, for at most a generous while.
			var n int
			for deadline := time.Now().Add(hangGuard); ; {
				out = mustRun(t, d, "echo still works; ps -e --no-headers -o pid,args", Options{})
				if !strings.HasPrefix(out.Text, "still works\n") || strings.Contains(out.Text, "fork") {
					t.Fatalf("after the fork bomb: %+v", out)
				}
				if n = strings.Count(out.Text, "\n") - 1; n <= 6 || time.Now().After(deadline) {
					break
				}
				time.Sleep(250 * time.Millisecond)
			}
			if n > 6 {
				t.Fatalf("%d processes left in the container:\n%s", n, out.Text)
			}
		})
	}
}

func TestDockerMemoryLimit(t *testing.T) {
	t.Parallel()
	d := newTestDocker(t, Config{MemLimit: "64m"})
	limit := mustRun(t, d, "cat /sys/fs/cgroup/memory/memory.limit_in_bytes 2>/dev/null || cat /sys/fs/cgroup/memory.max", Options{})
	if limit.Text != fmt.Sprintf("%d\n", 64<<20) {
		t.Errorf("memory limit in the container: %q", limit.Text)
	}
	out := mustRun(t, d, "head -c 200m /dev/zero | tail", Options{Timeout: 60 * time.Second})
	if out.ExitCode != 137 || out.TimedOut {
		t.Fatalf("allocating 200m under a 64m limit: %+v", out)
	}
	if out := mustRun(t, d, "echo ok", Options{}); out.Text != "ok\n" {
		t.Fatalf("after the OOM kill: %+v", out)
	}
}

func TestDockerCloseRemovesContainer(t *testing.T) {
	t.Parallel()
	cli := needDocker(t)
	sb, _, err := New(context.Background(), Config{Backend: BackendDocker, Image: testImage(), Workspace: testWorkspace(t), RunID: testRunID("close")})
	if err != nil {
		t.Fatal(err)
	}
	d := sb.(*Docker)
	mustRun(t, d, "true", Options{})
	if _, err := cli.ContainerInspect(context.Background(), d.Name()); err != nil {
		t.Fatalf("container missing before Close: %v", err)
	}

	// A Run in flight when Close comes must end with an error, promptly.
	running := make(chan error, 1)
	go func() {
		_, err := d.Run(context.Background(), "touch /tmp/running; sleep 300", Options{})
		running <- err
	}()
	// Close while the command runs: once it has said so, not after a guess.
	for deadline := time.Now().Add(hangGuard); mustRun(t, d, "test -e /tmp/running && echo yes || true", Options{}).Text != "yes\n"; {
		if time.Now().After(deadline) {
			t.Fatal("the command never started")
		}
		time.Sleep(20 * time.Millisecond)
	}

	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range errs {
		wg.Go(func() { errs[i] = d.Close() })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("concurrent Close %d: %v", i, err)
		}
	}
	select {
	case err := <-running:
		if !errors.Is(err, ErrClosed) {
			t.Errorf("Run in flight during Close: %v, want ErrClosed", err)
		}
	case <-time.After(hangGuard):
		t.Error("Run in flight did not end after Close")
	}
	assertNoContainer(t, cli, d.Name())
	if err := d.Close(); err != nil {
		t.Errorf("Close again: %v", err)
	}
	if _, err := d.Run(context.Background(), "true", Options{}); !errors.Is(err, ErrClosed) {
		t.Errorf("Run after Close: %v, want ErrClosed", err)
	}
}

// startChild starts the helper process (TestMain) owning a sandbox and waits for its "ready".
func startChild(t *testing.T, mode string, extraEnv ...string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), extraEnv...),
		childEnv+"="+mode,
		childWorkspaceEnv+"="+testWorkspace(t),
		childRunEnv+"="+testRunID("child"),
		"GORACE=atexit_sleep_ms=0", // under -race a process otherwise sleeps 1s on exit
	)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	name, ok := strings.CutPrefix(strings.TrimSpace(line), "ready ")
	if err != nil || !ok {
		t.Fatalf("child said %q, %v", line, err)
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	return cmd, name
}

func waitExit(t *testing.T, cmd *exec.Cmd, within time.Duration) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(within):
		t.Fatalf("child still running %v after the signal", within)
		return nil
	}
}

// Close does not wait for the container's removal (seconds with the vfs storage driver, with
// nothing on co's screen): it kills the container and the engine removes it afterwards. The
// sandbox talks to the engine through a proxy that holds every removal's answer until Close has
// returned: a Close waiting for a removal would wait until the deadline, a hang detector, fails
// the test. The container is gone all the same, soon after.
func TestDockerCloseDoesNotWaitForRemoval(t *testing.T) {
	t.Parallel()
	cli := needDocker(t)
	hold := sandboxtest.NewRemoveHold(t)
	sb, _, err := New(context.Background(), Config{Backend: BackendDocker, Image: testImage(), Workspace: testWorkspace(t),
		RunID: testRunID("norm"), DockerHost: hold.Host()})
	if err != nil {
		t.Fatal(err)
	}
	d := sb.(*Docker)
	mustRun(t, d, "true", Options{})
	hold.Arm()
	closed := make(chan error, 1)
	go func() { closed <- d.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Errorf("Close: %v", err)
		}
	case <-time.After(60 * time.Second):
		t.Error("Close waited for the container's removal")
	}
	hold.Release()
	assertNoContainer(t, cli, d.Name())
}

// With Config.Defer nothing is created until Start or the first Run: the front end starts the
// container after its first frame. Pending says a Run would wait; Ready waits for Start.
func TestDockerDeferStartsOnStart(t *testing.T) {
	t.Parallel()
	cli := needDocker(t)
	d := newTestDocker(t, Config{Defer: true})
	if _, _, err := d.Started(); !errors.Is(err, ErrNotReady) {
		t.Fatalf("Started before Start: %v, want ErrNotReady", err)
	}
	if !d.Pending() {
		t.Fatal("Pending before Start = false")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := d.Ready(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Ready before Start with a cancelled context: %v", err)
	}
	if _, err := cli.ContainerInspect(context.Background(), d.Name()); !cerrdefs.IsNotFound(err) {
		t.Fatalf("container %s exists before Start (%v)", d.Name(), err)
	}
	ready := make(chan error, 1)
	go func() { ready <- d.Ready(context.Background()) }()
	d.Start()
	d.Start() // once
	if err := <-ready; err != nil {
		t.Fatal(err)
	}
	if d.Pending() {
		t.Error("Pending after Ready = true")
	}
	if out := mustRun(t, d, "echo ok", Options{}); out.Text != "ok\n" {
		t.Errorf("Run: %+v", out)
	}
}

// Without Start, the first Run creates the container (co run, a !cmd before the first frame).
func TestDockerDeferStartsOnRun(t *testing.T) {
	t.Parallel()
	d := newTestDocker(t, Config{Defer: true})
	if out := mustRun(t, d, "echo ok", Options{}); out.Text != "ok\n" {
		t.Errorf("Run: %+v", out)
	}
}

// spanLedger records which spans started and which ended.
type spanLedger struct {
	mu    sync.Mutex
	open  map[trace.SpanID]string
	ended []sdktrace.ReadOnlySpan
}

func (l *spanLedger) OnStart(_ context.Context, s sdktrace.ReadWriteSpan) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.open[s.SpanContext().SpanID()] = s.Name()
}

func (l *spanLedger) OnEnd(s sdktrace.ReadOnlySpan) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.open, s.SpanContext().SpanID())
	l.ended = append(l.ended, s)
}
func (l *spanLedger) Shutdown(context.Context) error   { return nil }
func (l *spanLedger) ForceFlush(context.Context) error { return nil }

// Every span a command makes ends with it, and the only one is co's docker exec: the Docker
// client's own request spans (otelhttp) are not made; the hijacked exec start's used to stay open
// forever (the side panel's "◌ HTTP POST running"). Spans end synchronously in span.End, so once Run has returned,
// an open one will never end.
func TestDockerRunEndsEverySpan(t *testing.T) {
	t.Parallel()
	d := newTestDocker(t, Config{})
	if err := d.Ready(context.Background()); err != nil {
		t.Fatal(err)
	}
	ledger := &spanLedger{open: map[trace.SpanID]string{}}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(ledger))
	defer func() {
		if err := tp.Shutdown(context.Background()); err != nil {
			t.Error(err)
		}
	}()
	ctx, tool := tp.Tracer("test").Start(context.Background(), "execute_tool run_shell_command")
	out, err := d.Run(ctx, "echo ok; exit 3", Options{})
	if err != nil || out.ExitCode != 3 {
		t.Fatalf("Run: %+v, %v", out, err)
	}
	tool.End()
	ledger.mu.Lock()
	defer ledger.mu.Unlock()
	if len(ledger.open) > 0 {
		t.Errorf("spans never ended: %v", slices.Sorted(maps.Values(ledger.open)))
	}
	var exec sdktrace.ReadOnlySpan
	for _, s := range ledger.ended {
		if s.Name() == "docker exec" {
			exec = s
		}
	}
	if exec == nil {
		t.Fatalf("no docker exec span among %d ended spans", len(ledger.ended))
	}
	// The client's own HTTP spans (exec create, inspect) are not made:
	// co's docker exec says what they would (newClient).
	for _, s := range ledger.ended {
		if s.Name() != "docker exec" && s.Name() != "execute_tool run_shell_command" {
			t.Errorf("a span besides docker exec under the tool call: %q", s.Name())
		}
	}
	if exec.Parent().SpanID() != tool.SpanContext().SpanID() {
		t.Errorf("docker exec's parent = %v, want the tool call's span", exec.Parent().SpanID())
	}
	attrs := map[string]string{}
	for _, a := range exec.Attributes() {
		attrs[string(a.Key)] = a.Value.String()
	}
	if attrs["co.sandbox.exit_code"] != "3" || !strings.HasSuffix(attrs["url.path"], "/start") {
		t.Errorf("docker exec's attributes = %v", attrs)
	}
}

func TestDockerSIGTERMRemovesContainer(t *testing.T) {
	t.Parallel()
	cli := needDocker(t)
	for _, mode := range []string{"ready", "now", "sent"} {
		t.Run(map[string]string{"ready": "container running", "now": "container being created", "sent": "create request sent"}[mode], func(t *testing.T) {
			if mode == "ready" {
				cmd, name := startChild(t, mode)
				if _, err := cli.ContainerInspect(context.Background(), name); err != nil {
					t.Fatalf("child's container %s missing: %v", name, err)
				}
				if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
					t.Fatal(err)
				}
				if err := waitExit(t, cmd, 30*time.Second); err != nil {
					t.Fatalf("child exited with %v", err)
				}
				assertNoContainer(t, cli, name)
				return
			}
			// Exiting while the container is still being created must not wait for it: the
			// container is removed in the background once the engine has made it. The child
			// talks to the engine through a proxy that passes the create request on but holds
			// its answer until the child has exited, so the creation is under way for as long
			// as the child lives: it can only exit by not waiting for it (else waitExit's
			// deadline, a hang detector, fails the test).
			hold := sandboxtest.NewCreateHold(t)
			cmd, name := startChild(t, mode, "DOCKER_HOST="+hold.Host())
			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			err := waitExit(t, cmd, 60*time.Second)
			hold.Release()
			if err != nil {
				t.Fatalf("child exited with %v", err)
			}
			assertContainerGoesAway(t, cli, name, 2*time.Minute)
		})
	}
}

// assertContainerGoesAway waits for the container name to be gone and to stay gone: a creation
// the engine is still running may make it after the co that asked for it has exited.
func assertContainerGoesAway(t testing.TB, cli *client.Client, name string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	goneSince := time.Time{}
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, err := cli.ContainerInspect(ctx, name)
		cancel()
		switch {
		case !cerrdefs.IsNotFound(err):
			goneSince = time.Time{}
		case goneSince.IsZero():
			goneSince = time.Now()
		case time.Since(goneSince) > 15*time.Second: // longer than a vfs creation takes here
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("container %s still there (or came back) %v after its co exited", name, within)
}

func TestDockerSweepsStaleContainers(t *testing.T) {
	t.Parallel()
	cli := needDocker(t)
	cmd, stale := startChild(t, "ready")
	if err := cmd.Process.Kill(); err != nil { // SIGKILL: no chance to clean up
		t.Fatal(err)
	}
	_ = waitExit(t, cmd, 10*time.Second)
	if _, err := cli.ContainerInspect(context.Background(), stale); err != nil {
		t.Fatalf("the killed child's container %s should still exist: %v", stale, err)
	}
	// The next New sweeps it (in the background, before creating its own container).
	d := newTestDocker(t, Config{})
	if err := d.Ready(context.Background()); err != nil {
		t.Fatal(err)
	}
	assertNoContainer(t, cli, stale)
	// Containers whose owner lives are kept: ours, and those of the other tests running in parallel.
	if _, err := cli.ContainerInspect(context.Background(), d.Name()); err != nil {
		t.Fatalf("own container swept: %v", err)
	}
}

func TestDockerRefusesForeignContainerName(t *testing.T) {
	t.Parallel()
	cli := needDocker(t)
	ctx := context.Background()

	t.Run("not made by co", func(t *testing.T) {
		run := testRunID("foreign")
		name := ContainerName(run)
		if _, err := cli.ContainerCreate(ctx, &container.Config{Image: testImage(), Cmd: []string{"true"}}, nil, nil, nil, name); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cli.ContainerRemove(ctx, name, container.RemoveOptions{Force: true}) })
		sb, _, err := New(ctx, Config{Backend: BackendDocker, Image: testImage(), Workspace: testWorkspace(t), RunID: run})
		if err != nil {
			t.Fatal(err)
		}
		defer sb.Close()
		if err := sb.(*Docker).Ready(ctx); err == nil || !strings.Contains(err.Error(), "co did not create it") {
			t.Fatalf("Ready: %v, want a refusal", err)
		}
		if _, err := cli.ContainerInspect(ctx, name); err != nil {
			t.Fatalf("the foreign container was removed: %v", err)
		}
	})

	t.Run("in use by a live co", func(t *testing.T) {
		cmd, name := startChild(t, "ready")
		run := strings.TrimPrefix(name, "co-runner-")
		sb, _, err := New(ctx, Config{Backend: BackendDocker, Image: testImage(), Workspace: testWorkspace(t), RunID: run})
		if err != nil {
			t.Fatal(err)
		}
		if err := sb.(*Docker).Ready(ctx); err == nil || !strings.Contains(err.Error(), "in use by co process") {
			t.Fatalf("Ready: %v, want a refusal", err)
		}
		if err := sb.Close(); err != nil {
			t.Fatal(err)
		}
		// Close removes only a container it may own: the child's is still there, until the child
		// closes its own sandbox.
		if _, err := cli.ContainerInspect(ctx, name); err != nil {
			t.Fatalf("the live child's container was removed: %v", err)
		}
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = waitExit(t, cmd, 30*time.Second)
		assertNoContainer(t, cli, name)
	})
}

func TestDockerRecreatesVanishedContainer(t *testing.T) {
	t.Parallel()
	cli := needDocker(t)
	d := newTestDocker(t, Config{})
	ctx := context.Background()
	for _, how := range []string{"removed", "stopped"} {
		t.Run(how, func(t *testing.T) {
			mustRun(t, d, "echo before > /tmp/marker", Options{})
			before, err := cli.ContainerInspect(ctx, d.Name())
			if err != nil {
				t.Fatal(err)
			}
			if how == "removed" {
				err = cli.ContainerRemove(ctx, d.Name(), container.RemoveOptions{Force: true})
			} else {
				err = cli.ContainerKill(ctx, d.Name(), "KILL")
			}
			if err != nil {
				t.Fatal(err)
			}
			out := mustRun(t, d, "cat /tmp/marker 2>/dev/null || echo fresh", Options{})
			if out.Text != "fresh\n" || out.ExitCode != 0 {
				t.Fatalf("after the container was %s: %+v", how, out)
			}
			after, err := cli.ContainerInspect(ctx, d.Name())
			if err != nil || after.ID == before.ID || !after.State.Running {
				t.Fatalf("no new running container: %v (IDs %.12s → %.12s)", err, before.ID, after.ID)
			}
		})
	}
}

// freezeProxy forwards a unix socket to the Docker engine's and can stop forwarding, to play an
// engine that hangs.
type freezeProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	cond   *sync.Cond
	frozen bool
}

func newFreezeProxy(t *testing.T, target string) *freezeProxy {
	dir, err := os.MkdirTemp("", "co-proxy")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	ln, err := net.Listen("unix", filepath.Join(dir, "docker.sock"))
	if err != nil {
		t.Fatal(err)
	}
	p := &freezeProxy{ln: ln, target: target}
	p.cond = sync.NewCond(&p.mu)
	var conns sync.WaitGroup
	var open []net.Conn
	t.Cleanup(func() {
		p.setFrozen(false)
		ln.Close()
		p.mu.Lock()
		for _, c := range open {
			c.Close()
		}
		p.mu.Unlock()
		conns.Wait()
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("unix", target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			open = append(open, c, up)
			p.mu.Unlock()
			conns.Add(2)
			go func() { defer conns.Done(); p.pump(up, c) }()
			go func() { defer conns.Done(); p.pump(c, up) }()
		}
	}()
	return p
}

func (p *freezeProxy) host() string { return "unix://" + p.ln.Addr().String() }

func (p *freezeProxy) setFrozen(f bool) {
	p.mu.Lock()
	p.frozen = f
	p.mu.Unlock()
	p.cond.Broadcast()
}

func (p *freezeProxy) pump(dst, src net.Conn) {
	defer dst.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		p.mu.Lock()
		for p.frozen {
			p.cond.Wait()
		}
		p.mu.Unlock()
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func TestDockerHungEngineFailsFast(t *testing.T) {
	t.Parallel()
	needDocker(t)
	target := "/var/run/docker.sock"
	if h := os.Getenv("DOCKER_HOST"); h != "" {
		var ok bool
		if target, ok = strings.CutPrefix(h, "unix://"); !ok {
			t.Skipf("DOCKER_HOST %s is not a unix socket", h)
		}
	}
	p := newFreezeProxy(t, target)
	d := newTestDocker(t, Config{DockerHost: p.host()})
	mustRun(t, d, "true", Options{})

	p.setFrozen(true)
	// The engine never answers while frozen: Run ends on its own bound
	// (apiTimeout) with an error, or trips the hang guard.
	_, err := returnsWithin(t, "Run against a hung engine", func() (Output, error) {
		return d.Run(context.Background(), "echo hi", Options{})
	})
	p.setFrozen(false)
	t.Logf("Run against a hung engine: %v", err)
	if err == nil {
		t.Fatal("Run against a hung engine succeeded")
	}
	mustRun(t, d, "true", Options{}) // the engine answers again: so does the sandbox
}

func TestNewFallbackMatrix(t *testing.T) {
	t.Parallel()
	ws := testWorkspace(t)
	noDocker := "unix://" + filepath.Join(t.TempDir(), "no-such-docker.sock")

	// A socket that accepts connections and never answers: the probe must still be bounded.
	silentDir, err := os.MkdirTemp("", "co-silent")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(silentDir) })
	silent, err := net.Listen("unix", filepath.Join(silentDir, "docker.sock"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { silent.Close() })
	go func() {
		var held []net.Conn
		for {
			c, err := silent.Accept()
			if err != nil {
				for _, c := range held {
					c.Close()
				}
				return
			}
			held = append(held, c)
		}
	}()

	tests := []struct {
		name      string
		backend   string
		fallback  string
		host      string // "" = the real engine
		image     string
		needs     bool   // needs the real engine
		want      string // backend chosen, or "" for an error
		warning   string
		errSubstr string
	}{
		{name: "auto warn docker", backend: "auto", fallback: "warn", needs: true, want: BackendDocker},
		{name: "auto warn no docker", backend: "auto", fallback: "warn", host: noDocker, want: BackendSubprocess,
			warning: "Docker is not available ("},
		{name: "auto error docker", backend: "auto", fallback: "error", needs: true, want: BackendDocker},
		{name: "auto error no docker", backend: "auto", fallback: "error", host: noDocker, errSubstr: "refusing to run commands unsandboxed"},
		{name: "docker docker", backend: "docker", fallback: "warn", needs: true, want: BackendDocker},
		{name: "docker no docker", backend: "docker", fallback: "warn", host: noDocker, errSubstr: "backend is \"docker\" but Docker is not available"},
		{name: "docker no docker fallback ignored", backend: "docker", fallback: "error", host: noDocker, errSubstr: "Docker is not available"},
		{name: "subprocess ignores docker", backend: "subprocess", fallback: "error", needs: true, want: BackendSubprocess},
		{name: "subprocess without docker", backend: "subprocess", fallback: "error", host: noDocker, want: BackendSubprocess},
		{name: "default is auto warn", host: noDocker, want: BackendSubprocess, warning: "UNSANDBOXED"},
		{name: "engine hangs", backend: "auto", fallback: "warn", host: "unix://" + silent.Addr().String(), want: BackendSubprocess,
			warning: "commands run UNSANDBOXED on this machine"},
		// Only the image is missing: not "Docker is not available", but how
		// to build the image (issue 27).
		{name: "image missing", backend: "auto", fallback: "warn", needs: true, image: "co-cli-sandbox-missing", want: BackendSubprocess,
			warning: "Docker is running but has no image co-cli-sandbox-missing: build it from co's source tree with `docker build -t co-cli-sandbox-missing sandbox-image`"},
		{name: "image missing docker", backend: "docker", needs: true, image: "co-cli-sandbox-missing",
			errSubstr: "backend is \"docker\": Docker is running but has no image co-cli-sandbox-missing: build it"},
		{name: "image missing fallback error", backend: "auto", fallback: "error", needs: true, image: "co-cli-sandbox-missing",
			errSubstr: "no image co-cli-sandbox-missing: build it from co's source tree with `docker build -t co-cli-sandbox-missing sandbox-image`, or offline, as root, with scripts/build-sandbox-image.sh; the fallback policy is \"error\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.needs {
				needDocker(t)
			}
			if tt.image == "" {
				tt.image = testImage()
			}
			cfg := Config{
				Backend: tt.backend, Fallback: tt.fallback, DockerHost: tt.host, Image: tt.image,
				Workspace: ws, RunID: testRunID("matrix"),
			}
			// Select reports the same choice without creating anything.
			// A probe of an engine that never answers ends on its own bound
			// (probeTimeout), or trips the hang guard.
			selOnly, selErr := returnsWithin(t, "Select", func() (Selection, error) { return Select(context.Background(), cfg) })
			if tt.want == "" && (selErr == nil || !strings.Contains(selErr.Error(), tt.errSubstr)) ||
				tt.want != "" && (selErr != nil || selOnly.Backend != tt.want) {
				t.Fatalf("Select = %+v, %v", selOnly, selErr)
			}
			type made struct {
				sb  Sandbox
				sel Selection
			}
			m, err := returnsWithin(t, "New", func() (made, error) {
				sb, sel, err := New(context.Background(), cfg)
				return made{sb, sel}, err
			})
			sb, sel := m.sb, m.sel
			if tt.want == "" {
				if err == nil || !strings.Contains(err.Error(), tt.errSubstr) {
					t.Fatalf("New: %v, want an error containing %q", err, tt.errSubstr)
				}
				if !errors.Is(err, ErrDockerUnavailable) {
					t.Errorf("error %v does not wrap ErrDockerUnavailable", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			defer sb.Close()
			if selOnly != sel {
				t.Errorf("Select = %+v, New chose %+v", selOnly, sel)
			}
			wantIso := map[string]Isolation{BackendDocker: Full, BackendSubprocess: None}[tt.want]
			if sel.Backend != tt.want || sel.Isolation != wantIso || sb.Isolation() != wantIso {
				t.Fatalf("selection %+v (sandbox isolation %s), want %s", sel, sb.Isolation(), tt.want)
			}
			if tt.warning == "" && sel.Warning != "" || !strings.Contains(sel.Warning, tt.warning) {
				t.Fatalf("warning %q, want one containing %q", sel.Warning, tt.warning)
			}
			if sel.Warning != "" {
				t.Logf("warning: %s", sel.Warning)
			}
			if out, err := sb.Run(context.Background(), "echo ok", Options{}); err != nil || out.Text != "ok\n" {
				t.Fatalf("Run: %+v, %v", out, err)
			}
		})
	}
}

func TestNewReturnsBeforeContainerIsReady(t *testing.T) {
	t.Parallel()
	needDocker(t)
	cfg := Config{Backend: BackendDocker, Image: testImage(), Workspace: testWorkspace(t), RunID: testRunID("bg")}
	start := time.Now()
	sb, _, err := New(context.Background(), cfg)
	newTook := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	d := sb.(*Docker)
	defer d.Close()
	_, _, startedErr := d.Started()
	if err := d.Ready(context.Background()); err != nil {
		t.Fatal(err)
	}
	readyTook := time.Since(start)
	begin, took, err := d.Started()
	if err != nil || begin.Before(start) || took <= 0 {
		t.Fatalf("Started() = %v, %v, %v", begin, took, err)
	}
	t.Logf("New returned after %v; container created and started %v after New began (creation took %v)", newTook, readyTook, took)
	if !errors.Is(startedErr, ErrNotReady) {
		t.Errorf("right after New, Started() error = %v, want ErrNotReady (creation in the background)", startedErr)
	}
	if newTook >= readyTook {
		t.Errorf("New (%v) waited for the container (%v)", newTook, readyTook)
	}
}

// BenchmarkDockerRunTrue measures a warm `true` round-trip in the run's container and reports
// the median as well as the mean.
func BenchmarkDockerRunTrue(b *testing.B) {
	d := newTestDocker(b, Config{})
	if err := d.Ready(context.Background()); err != nil {
		b.Fatal(err)
	}
	mustRun(b, d, "true", Options{}) // warm up
	var times []time.Duration
	for b.Loop() {
		start := time.Now()
		mustRun(b, d, "true", Options{})
		times = append(times, time.Since(start))
	}
	b.StopTimer()
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "median-ms")
	b.ReportMetric(float64(times[len(times)*9/10].Microseconds())/1000, "p90-ms")
}

// BenchmarkDockerNew measures how long New takes (it must not wait for the container) and how
// long the container then takes to be ready.
func BenchmarkDockerNew(b *testing.B) {
	needDocker(b)
	ws := testWorkspace(b)
	var newTotal, readyTotal time.Duration
	for b.Loop() {
		start := time.Now()
		sb, _, err := New(context.Background(), Config{Backend: BackendDocker, Image: testImage(), Workspace: ws, RunID: testRunID("bench")})
		if err != nil {
			b.Fatal(err)
		}
		newTotal += time.Since(start)
		d := sb.(*Docker)
		b.Cleanup(func() { d.Close() })
		if err := d.Ready(context.Background()); err != nil {
			b.Fatal(err)
		}
		readyTotal += time.Since(start)
		b.StopTimer()
		if err := d.Close(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(newTotal.Microseconds())/1000/float64(b.N), "new-ms")
	b.ReportMetric(float64(readyTotal.Microseconds())/1000/float64(b.N), "ready-ms")
}

// Commands run as the workspace's owner: they can write in it, and what they create belongs to
// that owner on the host, whoever it is (root, a CI user, a second user: not only uid 1000), with
// every hardening kept. The test runs as whoever runs the tests; TestDockerAsAnotherUser runs it
// again as a uid other than 0 and 1000.
func TestDockerWritesAsWorkspaceOwner(t *testing.T) {
	t.Parallel()
	ws := filepath.Join(t.TempDir(), "ws")
	if err := os.Mkdir(ws, 0o755); err != nil { // writable by its owner only
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(ws, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	uid, gid := os.Getuid(), os.Getgid()
	d := newTestDocker(t, Config{Workspace: ws, GitReadOnly: true})
	out := mustRun(t, d, "touch sb.txt && mkdir dir && echo x > dir/f && id -u && id -g && "+
		"grep -E '^(CapEff|CapBnd|NoNewPrivs)' /proc/self/status; touch .git/x /etc/x 2>&1 | sed 's/^.*: //'; "+
		"cat /sys/class/net/*/operstate 2>/dev/null | wc -l", Options{})
	want := fmt.Sprintf("%d\n%d\nCapEff:\t0000000000000000\nCapBnd:\t0000000000000000\nNoNewPrivs:\t1\n", uid, gid) +
		"Read-only file system\nRead-only file system\n1\n"
	if out.ExitCode != 0 || out.Text != want {
		t.Fatalf("exit %d, output:\n%s\nwant\n%s", out.ExitCode, out.Text, want)
	}
	for _, f := range []string{"sb.txt", "dir", "dir/f"} {
		fi, err := os.Stat(filepath.Join(ws, f))
		if err != nil {
			t.Fatal(err)
		}
		st := fi.Sys().(*syscall.Stat_t)
		if int(st.Uid) != uid || int(st.Gid) != gid {
			t.Errorf("%s is owned by %d:%d on the host, want %d:%d", f, st.Uid, st.Gid, uid, gid)
		}
	}
	if uid == 0 { // a workspace owned by someone else: its owner, not root, runs the commands
		other := filepath.Join(t.TempDir(), "other")
		if err := os.Mkdir(other, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(other, 4321, 4322); err != nil {
			t.Fatal(err)
		}
		d := newTestDocker(t, Config{Workspace: other})
		if out := mustRun(t, d, "touch sb.txt && id -u && id -g", Options{}); out.Text != "4321\n4322\n" {
			t.Fatalf("in a workspace owned by 4321:4322: %+v", out)
		}
		fi, err := os.Stat(filepath.Join(other, "sb.txt"))
		if err != nil {
			t.Fatal(err)
		}
		if st := fi.Sys().(*syscall.Stat_t); st.Uid != 4321 || st.Gid != 4322 {
			t.Errorf("sb.txt is owned by %d:%d, want 4321:4322", st.Uid, st.Gid)
		}
	}
}

// TestDockerAsAnotherUser runs TestDockerWritesAsWorkspaceOwner as a user made for it (uid 1234,
// neither root nor 1000), given the Docker socket's group for that process only. It needs root.
func TestDockerAsAnotherUser(t *testing.T) {
	t.Parallel()
	needDocker(t)
	if os.Getuid() != 0 {
		t.Skip("needs root to add a user and run as it; TestDockerWritesAsWorkspaceOwner ran as this user")
	}
	const uid, name = 1234, "cotest"
	if out, err := exec.Command("id", "-u", name).Output(); err != nil {
		if out, err := exec.Command("useradd", "-u", fmt.Sprint(uid), "-M", "-s", "/usr/sbin/nologin", name).CombinedOutput(); err != nil {
			t.Fatalf("useradd: %v\n%s", err, out)
		}
		t.Cleanup(func() { _ = exec.Command("userdel", name).Run() })
	} else if strings.TrimSpace(string(out)) != fmt.Sprint(uid) {
		t.Fatalf("user %s exists with uid %s, want %d", name, out, uid)
	}
	var sock syscall.Stat_t
	if err := syscall.Stat("/var/run/docker.sock", &sock); err != nil {
		t.Skipf("no /var/run/docker.sock to share with %s: %v", name, err)
	}
	// The test binary, where the new user can run it.
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	runTestAs(t, dir, name, uid, sock.Gid, "TestDockerWritesAsWorkspaceOwner")
}

// runTestAs runs this test binary's test named test as uid (with the Docker
// socket's group gid), copied into dir where that user can run it, and
// fails t unless the test passes there.
func runTestAs(t *testing.T, dir, name string, uid int, gid uint32, test string, env ...string) {
	t.Helper()
	bin := filepath.Join(dir, "sandbox.test")
	b, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("setpriv", "--reuid", fmt.Sprint(uid), "--regid", fmt.Sprint(uid),
		"--groups", fmt.Sprint(gid), bin, "-test.run=^"+test+"$", "-test.v", "-test.count=1")
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "HOME="+dir, "TMPDIR=/tmp"), env...)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: "+test) {
		t.Fatalf("as %s (uid %d): %v\n%s", name, uid, err, out)
	}
}

// TestTestRunIDsNameDistinctContainers keeps the tests' containers apart: a thousand test run IDs of
// one kind give a thousand container names (with the kind first, as before, a few hundred).
func TestTestRunIDsNameDistinctContainers(t *testing.T) {
	seen := map[string]bool{}
	for i := 0; i < 1000; i++ {
		name := ContainerName(testRunID("matrix"))
		if seen[name] {
			t.Fatalf("container name %s given twice in %d run IDs", name, i+1)
		}
		seen[name] = true
	}
}
