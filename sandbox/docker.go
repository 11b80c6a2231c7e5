package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/mount"
	"github.com/docker/docker/client"
	"github.com/docker/docker/pkg/stdcopy"
)

// Labels put on every container co creates; SweepStale finds leftovers by them.
const (
	LabelSandbox  = "co-cli.sandbox"  // "1"
	LabelSession  = "co-cli.session"  // the full session id
	LabelHost     = "co-cli.host"     // hostname of the machine running co
	LabelPID      = "co-cli.pid"      // pid of the co process that owns the container
	LabelPIDStart = "co-cli.pidstart" // its start time (Linux /proc/<pid>/stat field 22), against pid reuse
)

// Limits and timeouts of the Docker backend.
const (
	workdir      = "/workspace"
	pidsLimit    = 256
	tmpfsOptions = "rw,exec,nosuid,nodev,size=64m,mode=1777"

	apiTimeout    = 5 * time.Second // small API calls: exec create/inspect, list, image inspect
	createTimeout = 2 * time.Minute // create copies the image's whole rootfs with the vfs storage driver: slow under load
	startTimeout  = 30 * time.Second
	removeTimeout = 30 * time.Second       // removing may delete a whole rootfs copy
	hostSlack     = 5 * time.Second        // the host gives an exec this much longer than `timeout` does
	killGrace     = "2"                    // seconds `timeout` waits after TERM before KILL
	reapPoll      = 250 * time.Millisecond // how often the background remover looks for the container
)

// execEnv is the whole environment of a command in the container.
var execEnv = []string{
	"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
	"HOME=/tmp",
	"LANG=C.UTF-8",
	"PAGER=cat",
	"GIT_PAGER=cat",
}

// runScript is what an exec runs, as `sh -c runScript co-run SECS CMD`: the command under
// `timeout` (which puts itself and the command in a new process group and, after SECS, sends TERM
// to that group, then KILL killGrace seconds later), then a SIGKILL to whatever is left in that
// group, so that nothing the command started in the background (a fork bomb, say) outlives the Run.
const runScript = `timeout -k ` + killGrace + ` "$1" sh -c "$2" sh &
t=$!
wait "$t"
rc=$?
kill -s KILL -- "-$t" 2>/dev/null
exit "$rc"`

// runIDVar tags every process of one Run (through its environment) so that a cancelled or
// abandoned Run can be killed in the container without touching concurrent Runs.
const runIDVar = "CO_RUN_ID"

// killScript, run in the container with the run id as $1, SIGKILLs every process carrying it.
// Two passes catch children forked while the first pass ran.
const killScript = `for pass in 1 2; do
  for p in /proc/[0-9]*; do
    grep -qxz "` + runIDVar + `=$1" "$p/environ" 2>/dev/null && kill -KILL "${p#/proc/}" 2>/dev/null
  done
done
true`

// errGone means the container is no longer there or no longer running.
var errGone = errors.New("sandbox: container vanished")

// Docker runs commands in one hardened container per session (Isolation Full). It implements
// [Sandbox] and [Starter]. Create it with [New].
type Docker struct {
	cli    *client.Client
	cfg    Config
	name   string
	labels map[string]string

	life     context.Context // done on Close: aborts Runs
	endLife  context.CancelFunc
	build    context.Context // done when Close gives up waiting for a creation
	endBuild context.CancelFunc
	wg       sync.WaitGroup // the creation goroutine

	mu     sync.Mutex
	closed bool
	cur    *creation // the latest container creation
	swept  bool

	closeOnce sync.Once
	closeErr  error
}

// creation is one attempt to create and start the session container.
type creation struct {
	done  chan struct{} // closed when the fields below are final
	begin time.Time
	took  time.Duration
	id    string
	user  string // uid:gid the container and its execs run as; see runAs
	err   error
	sent  atomic.Bool // the create request went to the engine, which may finish it whatever we do
}

func (c *creation) finished() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// probeDocker checks, within probeTimeout, that the engine answers and has the image. Errors
// meaning "Docker cannot be used" wrap ErrDockerUnavailable.
func probeDocker(ctx context.Context, cfg Config) (*client.Client, error) {
	cli, err := newClient(cfg.DockerHost)
	if err != nil {
		return nil, unavailable(err)
	}
	pctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	ping, err := cli.Ping(pctx)
	if err != nil {
		cli.Close()
		return nil, unavailable(err)
	}
	cli.NegotiateAPIVersionPing(ping)
	if _, err := cli.ImageInspect(pctx, cfg.Image); err != nil {
		cli.Close()
		if cerrdefs.IsNotFound(err) {
			err = fmt.Errorf("image %s not found; build it with scripts/build-sandbox-image.sh, or docker build -t %s sandbox-image", cfg.Image, cfg.Image)
		}
		return nil, unavailable(err)
	}
	return cli, nil
}

// newDocker starts creating the container in the background with the probed client.
func newDocker(cli *client.Client, cfg Config) *Docker {
	host, _ := os.Hostname()
	pid := os.Getpid()
	d := &Docker{
		cli:  cli,
		cfg:  cfg,
		name: ContainerName(cfg.SessionID),
		labels: map[string]string{
			LabelSandbox:  "1",
			LabelSession:  cfg.SessionID,
			LabelHost:     host,
			LabelPID:      strconv.Itoa(pid),
			LabelPIDStart: procStart(pid),
		},
	}
	d.life, d.endLife = context.WithCancel(context.Background())
	d.build, d.endBuild = context.WithCancel(context.Background())
	d.mu.Lock()
	d.startCreation()
	d.mu.Unlock()
	return d
}

func newClient(host string) (*client.Client, error) {
	opts := []client.Opt{client.FromEnv, client.WithAPIVersionNegotiation()}
	if host != "" {
		opts = append(opts, client.WithHost(host))
	}
	return client.NewClientWithOpts(opts...)
}

func unavailable(err error) error {
	return fmt.Errorf("%w (%v)", ErrDockerUnavailable, err)
}

// ContainerName is the name of the container for a session: co-runner-<first 8 of sessionID>,
// keeping only the characters Docker allows in names.
func ContainerName(sessionID string) string {
	var b strings.Builder
	for _, r := range sessionID {
		if b.Len() == 8 {
			break
		}
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '.' || r == '-' {
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		b.WriteString(randomHex(8))
	}
	return "co-runner-" + b.String()
}

// Name returns the container's name.
func (d *Docker) Name() string { return d.name }

// Isolation reports Full.
func (d *Docker) Isolation() Isolation { return Full }

// startCreation starts a new creation in the background. d.mu must be held.
func (d *Docker) startCreation() *creation {
	c := &creation{done: make(chan struct{}), begin: time.Now()}
	d.cur = c
	sweep := !d.swept
	d.swept = true
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		defer close(c.done)
		if sweep {
			_, _ = sweepStale(d.build, d.cli) // best effort: leftovers must not block this session
		}
		c.user = d.runAs(d.build)
		c.id, c.err = d.create(d.build, c)
		c.took = time.Since(c.begin)
	}()
	return c
}

// create replaces any container with our name by a fresh, started one.
func (d *Docker) create(ctx context.Context, c *creation) (string, error) {
	if err := d.checkNameFree(ctx); err != nil {
		return "", err
	}
	if err := d.remove(ctx); err != nil {
		return "", err
	}
	cfg := &container.Config{
		Image:      d.cfg.Image,
		Cmd:        []string{"sleep", "infinity"},
		User:       c.user,
		WorkingDir: workdir,
		Env:        execEnv,
		Hostname:   "sandbox",
		Labels:     d.labels,
	}
	init := true
	pids := int64(pidsLimit)
	hc := &container.HostConfig{
		NetworkMode:    container.NetworkMode(d.cfg.Network),
		CapDrop:        []string{"ALL"},
		SecurityOpt:    []string{"no-new-privileges"},
		ReadonlyRootfs: true,
		Tmpfs:          map[string]string{"/tmp": tmpfsOptions},
		Mounts:         mounts(d.cfg),
		Init:           &init, // an init reaps the orphans (and fork-bomb debris) of every exec
		LogConfig:      container.LogConfig{Type: "none"},
		Resources: container.Resources{
			PidsLimit: &pids,
			NanoCPUs:  int64(d.cfg.CPUs * 1e9),
		},
	}
	if d.cfg.MemLimit != "" {
		mem, _ := parseBytes(d.cfg.MemLimit) // validated by normalize
		hc.Memory = mem
		hc.MemorySwap = mem // no swap on top of the limit
	}

	cctx, cancel := context.WithTimeout(ctx, createTimeout)
	defer cancel()
	c.sent.Store(true)
	resp, err := d.cli.ContainerCreate(cctx, cfg, hc, nil, nil, d.name)
	if err != nil {
		return "", fmt.Errorf("sandbox: create container %s: %w", d.name, err)
	}
	sctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	if err := d.cli.ContainerStart(sctx, resp.ID, container.StartOptions{}); err != nil {
		return "", fmt.Errorf("sandbox: start container %s: %w", d.name, err)
	}
	return resp.ID, nil
}

// runAs is the uid:gid commands run as: the owner of the workspace, so that commands can write
// where the user can and what they create belongs, on the host, to whoever owns the workspace —
// not to a fixed uid (1000) that only matches the first user of a typical desktop. The owner
// rather than co's own uid, because a co run as root (sudo, CI) in a user's checkout must not
// leave root-owned files in it. uid 0 is used as is: every capability is still dropped, so root in
// the container can write only where the owner bits let it. With rootless Docker, uid 0 in the
// container is the engine's user on the host (any other uid maps to a subordinate id that owns
// nothing here), so 0:0 is used there.
func (d *Docker) runAs(ctx context.Context) string {
	if d.rootless(ctx) {
		return "0:0"
	}
	var st syscall.Stat_t
	if err := syscall.Stat(d.cfg.Workspace, &st); err != nil {
		return fmt.Sprintf("%d:%d", os.Getuid(), os.Getgid()) // create will fail on the mount anyway
	}
	return fmt.Sprintf("%d:%d", st.Uid, st.Gid)
}

// rootless says whether the engine runs rootless (it says so in its security options).
func (d *Docker) rootless(ctx context.Context) bool {
	ictx, cancel := context.WithTimeout(ctx, apiTimeout)
	defer cancel()
	info, err := d.cli.Info(ictx)
	if err != nil {
		return false
	}
	for _, o := range info.SecurityOptions {
		if strings.Contains(o, "name=rootless") {
			return true
		}
	}
	return false
}

// checkNameFree refuses to replace a container with our name that is not ours to replace: one
// co did not make, or one that another live co process on this machine (or any co process on
// another machine) uses. Ours from an earlier attempt, or a dead co's, may go.
func (d *Docker) checkNameFree(ctx context.Context) error {
	ictx, cancel := context.WithTimeout(ctx, apiTimeout)
	defer cancel()
	info, err := d.cli.ContainerInspect(ictx, d.name)
	if cerrdefs.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("sandbox: inspect container %s: %w", d.name, err)
	}
	var l map[string]string
	if info.Config != nil {
		l = info.Config.Labels
	}
	switch {
	case l[LabelSandbox] != "1":
		return fmt.Errorf("sandbox: a container named %s exists and co did not create it; remove it or use another session", d.name)
	case d.owns(l):
		return nil // ours, from an earlier attempt
	case l[LabelHost] != d.labels[LabelHost]:
		return fmt.Errorf("sandbox: container %s belongs to co on host %q; remove it or use another session", d.name, l[LabelHost])
	}
	if pid, err := strconv.Atoi(l[LabelPID]); err == nil && pid > 0 && processAlive(pid, l[LabelPIDStart]) {
		return fmt.Errorf("sandbox: container %s is in use by co process %d (session %s)", d.name, pid, l[LabelSession])
	}
	return nil
}

// mounts are the workspace at /workspace (rw) and, when asked for and present, its .git read-only
// on top. A .git that is a symlink is followed: if it leads inside the workspace, that target is
// mounted read-only at its place under /workspace; if it leads outside, the container cannot reach
// it anyway.
func mounts(cfg Config) []mount.Mount {
	ms := []mount.Mount{{Type: mount.TypeBind, Source: cfg.Workspace, Target: workdir}}
	if !cfg.GitReadOnly {
		return ms
	}
	ws, err := filepath.EvalSymlinks(cfg.Workspace)
	if err != nil {
		return ms
	}
	git, err := filepath.EvalSymlinks(filepath.Join(ws, ".git"))
	if err != nil {
		return ms // no .git
	}
	rel, err := filepath.Rel(ws, git)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return ms
	}
	return append(ms, mount.Mount{Type: mount.TypeBind, Source: git, Target: workdir + "/" + filepath.ToSlash(rel), ReadOnly: true})
}

// remove force-removes the container with our name; a missing one is not an error.
func (d *Docker) remove(ctx context.Context) error {
	rctx, cancel := context.WithTimeout(ctx, removeTimeout)
	defer cancel()
	err := d.cli.ContainerRemove(rctx, d.name, container.RemoveOptions{Force: true, RemoveVolumes: true})
	if err != nil && !cerrdefs.IsNotFound(err) && !isRemovalInProgress(err) {
		return fmt.Errorf("sandbox: remove container %s: %w", d.name, err)
	}
	return nil
}

// removeOurs force-removes the container with our name if this process made it (its labels say
// so): never a container that creation refused to replace.
func (d *Docker) removeOurs(ctx context.Context) error {
	ictx, cancel := context.WithTimeout(ctx, apiTimeout)
	defer cancel()
	info, err := d.cli.ContainerInspect(ictx, d.name)
	if cerrdefs.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("sandbox: inspect container %s: %w", d.name, err)
	}
	if info.Config == nil || !d.owns(info.Config.Labels) {
		return nil
	}
	rctx, cancel := context.WithTimeout(ctx, removeTimeout)
	defer cancel()
	err = d.cli.ContainerRemove(rctx, info.ID, container.RemoveOptions{Force: true, RemoveVolumes: true})
	if err != nil && !cerrdefs.IsNotFound(err) && !isRemovalInProgress(err) {
		return fmt.Errorf("sandbox: remove container %s: %w", d.name, err)
	}
	return nil
}

// owns says whether a container's labels are this sandbox's.
func (d *Docker) owns(l map[string]string) bool { return sameLabels(l, d.labels) }

func isRemovalInProgress(err error) bool {
	return cerrdefs.IsConflict(err) && strings.Contains(err.Error(), "already in progress")
}

// Ready waits for the container; see [Starter].
func (d *Docker) Ready(ctx context.Context) error {
	_, err := d.container(ctx)
	return err
}

// Started reports when the latest container creation began and how long it took to have the
// container running; see [Starter].
func (d *Docker) Started() (time.Time, time.Duration, error) {
	d.mu.Lock()
	c := d.cur
	d.mu.Unlock()
	if !c.finished() {
		return c.begin, 0, ErrNotReady
	}
	return c.begin, c.took, c.err
}

// container waits for the current container; a creation that already failed is retried.
func (d *Docker) container(ctx context.Context) (*creation, error) {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return nil, ErrClosed
	}
	c := d.cur
	if c.finished() && c.err != nil {
		c = d.startCreation()
	}
	d.mu.Unlock()
	return d.wait(ctx, c)
}

// replace starts a new container if gone is still the current one, and waits for it.
func (d *Docker) replace(ctx context.Context, gone string) (*creation, error) {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return nil, ErrClosed
	}
	c := d.cur
	if c.finished() && c.id == gone {
		c = d.startCreation()
	}
	d.mu.Unlock()
	return d.wait(ctx, c)
}

func (d *Docker) wait(ctx context.Context, c *creation) (*creation, error) {
	select {
	case <-c.done:
		return c, c.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Run runs cmd with `timeout N sh -c cmd` (see runScript) as the workspace's owner (see runAs) in /workspace of the session container,
// waiting first for the container if it is still being created. If the container vanished
// (removed or stopped behind co's back) it is recreated once, before the command starts.
// See the package documentation for the rest of the contract.
func (d *Docker) Run(ctx context.Context, cmd string, opts Options) (Output, error) {
	secs := effectiveTimeout(opts.Timeout, d.cfg.MaxTimeout)
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(d.life, cancel)()

	c, err := d.container(runCtx)
	if err == nil {
		var out Output
		out, err = d.exec(runCtx, c, cmd, secs, maxOutput(opts))
		if errors.Is(err, errGone) {
			if c, err = d.replace(runCtx, c.id); err == nil {
				out, err = d.exec(runCtx, c, cmd, secs, maxOutput(opts))
			}
		}
		if err == nil {
			return out, nil
		}
		return out, d.runError(ctx, err)
	}
	return Output{}, d.runError(ctx, err)
}

// runError tells the caller why a Run stopped: its own ctx, Close, or the engine.
func (d *Docker) runError(ctx context.Context, err error) error {
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case d.life.Err() != nil:
		return ErrClosed
	}
	return err
}

// exec runs one command in container c. It returns errGone (wrapped) when the container is not
// there or not running, in which case the command did not start.
func (d *Docker) exec(ctx context.Context, c *creation, cmd string, secs, max int) (Output, error) {
	id := c.id
	runID := randomHex(16)
	cctx, cancel := context.WithTimeout(ctx, apiTimeout)
	created, err := d.cli.ContainerExecCreate(cctx, id, container.ExecOptions{
		User:         c.user,
		WorkingDir:   workdir,
		Env:          append(execEnv[:len(execEnv):len(execEnv)], runIDVar+"="+runID),
		AttachStdout: true,
		AttachStderr: true,
		Cmd:          []string{"sh", "-c", runScript, "co-run", strconv.Itoa(secs), cmd},
	})
	cancel()
	if err != nil {
		if cerrdefs.IsNotFound(err) || cerrdefs.IsConflict(err) {
			return Output{}, fmt.Errorf("%w: %v", errGone, err)
		}
		return Output{}, fmt.Errorf("sandbox: docker exec create: %w", err)
	}

	// The host deadline: `timeout` ends the command after secs (+killGrace); if the engine has not
	// reported the end hostSlack later, the exec is abandoned.
	hostDeadline := time.Duration(secs)*time.Second + hostSlack
	hctx, hcancel := context.WithTimeout(ctx, hostDeadline)
	defer hcancel()
	start := time.Now()
	att, err := d.cli.ContainerExecAttach(hctx, created.ID, container.ExecAttachOptions{})
	if err != nil {
		if cerrdefs.IsNotFound(err) || cerrdefs.IsConflict(err) {
			return Output{}, fmt.Errorf("%w: %v", errGone, err)
		}
		if hctx.Err() != nil {
			d.kill(c, runID)
		}
		return Output{}, d.deadlineError(ctx, hctx, hostDeadline, fmt.Errorf("sandbox: docker exec start: %w", err))
	}
	stopClosing := context.AfterFunc(hctx, att.Close) // unblocks the read below
	capt := newCapture(max)
	_, copyErr := stdcopy.StdCopy(capt, capt, att.Reader)
	stopClosing()
	att.Close()
	elapsed := time.Since(start)

	if hctx.Err() != nil {
		d.kill(c, runID)
		out := Output{Duration: elapsed, ExitCode: -1}
		out.Text, out.Truncated = capt.text(false, secs)
		return out, d.deadlineError(ctx, hctx, hostDeadline, nil)
	}
	if copyErr != nil {
		out := Output{Duration: elapsed, ExitCode: -1}
		out.Text, out.Truncated = capt.text(false, secs)
		return out, fmt.Errorf("sandbox: reading command output: %w", copyErr)
	}

	code, err := d.exitCode(ctx, created.ID)
	out := Output{Duration: elapsed, ExitCode: code}
	// 124: `timeout` sent TERM; 137: it had to send KILL as well. Either only counts as a timeout
	// when the time was really up (the command itself may exit 124, or be OOM-killed: 137).
	if (code == 124 || code == 137) && elapsed >= time.Duration(secs)*time.Second {
		out.TimedOut, out.ExitCode = true, 124
	}
	out.Text, out.Truncated = capt.text(out.TimedOut, secs)
	return out, err
}

// deadlineError explains why an exec stopped early: the caller's ctx, or the host deadline.
func (d *Docker) deadlineError(ctx, hctx context.Context, hostDeadline time.Duration, err error) error {
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case hctx.Err() != nil:
		return fmt.Errorf("sandbox: the Docker engine did not report the end of the command within %s; abandoned it", hostDeadline)
	}
	return err
}

// exitCode asks the engine for an exec's exit code, waiting briefly for it to be recorded.
func (d *Docker) exitCode(ctx context.Context, execID string) (int, error) {
	ictx, cancel := context.WithTimeout(ctx, apiTimeout)
	defer cancel()
	for {
		insp, err := d.cli.ContainerExecInspect(ictx, execID)
		if err != nil {
			return -1, fmt.Errorf("sandbox: docker exec inspect: %w", err)
		}
		if !insp.Running {
			return insp.ExitCode, nil
		}
		select {
		case <-ictx.Done():
			return -1, fmt.Errorf("sandbox: docker exec inspect: command still running after its output ended: %w", ictx.Err())
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// kill SIGKILLs, best effort, the processes of one Run in the container. Not needed after Close,
// which removes the whole container.
func (d *Docker) kill(c *creation, runID string) {
	if d.life.Err() != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
	defer cancel()
	created, err := d.cli.ContainerExecCreate(ctx, c.id, container.ExecOptions{
		User:         c.user,
		Env:          execEnv,
		AttachStdout: true,
		AttachStderr: true,
		Cmd:          []string{"sh", "-c", killScript, "co-kill", runID},
	})
	if err != nil {
		return
	}
	att, err := d.cli.ContainerExecAttach(ctx, created.ID, container.ExecAttachOptions{})
	if err != nil {
		return
	}
	defer att.Close()
	defer context.AfterFunc(ctx, att.Close)()
	_, _ = io.Copy(io.Discard, att.Reader) // EOF when the kill script is done
}

// Close removes the container (force) if this sandbox made it, and releases the client. It cancels
// in-flight Runs, and is safe to call concurrently, repeatedly and from a signal handler's
// goroutine: every call returns the first call's result.
//
// A container creation still under way is cancelled rather than waited for (it takes seconds with
// the vfs storage driver, and co would sit on exit with nothing on screen). The engine may still
// finish a create it has received; that container is left to a detached remover process (see
// reapLater) and, should that fail, to the next start's sweep (its owner, this process, is gone).
func (d *Docker) Close() error {
	d.closeOnce.Do(func() {
		d.mu.Lock()
		d.closed = true
		c := d.cur
		d.mu.Unlock()
		d.endLife()
		under := !c.finished()
		d.endBuild() // cancels a creation under way: its API calls return at once
		d.wg.Wait()
		if under {
			if c.sent.Load() {
				d.reapLater()
			}
			d.cli.Close()
			return
		}
		d.closeErr = d.removeOurs(context.Background())
		d.cli.Close()
	})
	return d.closeErr
}

// Environment of the detached remover: this package's init runs it instead of the program.
const (
	reapNameEnv   = "CO_SANDBOX_REAP"        // the container's name
	reapLabelsEnv = "CO_SANDBOX_REAP_LABELS" // the labels it must carry (JSON), or it is left alone
	reapHostEnv   = "CO_SANDBOX_REAP_HOST"   // Config.DockerHost
)

func init() {
	if name := os.Getenv(reapNameEnv); name != "" {
		os.Exit(reapMain(name))
	}
}

// reapLater starts, detached (own session, no stdio), a copy of this executable that waits for the
// container a cancelled creation may still produce and removes it. Best effort: without it the
// next start's sweep removes the container.
func (d *Docker) reapLater() {
	exe, err := os.Executable()
	if err != nil {
		return
	}
	labels, _ := json.Marshal(d.labels)
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), reapNameEnv+"="+d.name, reapLabelsEnv+"="+string(labels), reapHostEnv+"="+d.cfg.DockerHost)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return
	}
	go func() { _ = cmd.Wait() }() // reaped if this process outlives it
}

// reapMain is the detached remover: it polls for the container name until the creation could have
// ended, and force-removes it once it appears, if its labels are the ones it was given.
func reapMain(name string) int {
	var labels map[string]string
	if err := json.Unmarshal([]byte(os.Getenv(reapLabelsEnv)), &labels); err != nil || labels[LabelSandbox] != "1" {
		return 2
	}
	cli, err := newClient(os.Getenv(reapHostEnv))
	if err != nil {
		return 1
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), createTimeout+startTimeout+removeTimeout)
	defer cancel()
	for {
		ictx, icancel := context.WithTimeout(ctx, apiTimeout)
		info, err := cli.ContainerInspect(ictx, name)
		icancel()
		if err == nil {
			if info.Config == nil || !sameLabels(info.Config.Labels, labels) {
				return 0 // not the container this creation made
			}
			rctx, rcancel := context.WithTimeout(ctx, removeTimeout)
			err = cli.ContainerRemove(rctx, info.ID, container.RemoveOptions{Force: true, RemoveVolumes: true})
			rcancel()
			if err == nil || cerrdefs.IsNotFound(err) {
				return 0
			}
		}
		select {
		case <-ctx.Done():
			return 1
		case <-time.After(reapPoll):
		}
	}
}

func sameLabels(have, want map[string]string) bool {
	for _, k := range []string{LabelSandbox, LabelHost, LabelPID, LabelPIDStart, LabelSession} {
		if have[k] != want[k] {
			return false
		}
	}
	return true
}

// SweepStale removes the containers co left behind on this machine: those labelled
// co-cli.sandbox=1 whose co-cli.host is this host and whose owning process (co-cli.pid, checked
// against co-cli.pidstart where /proc exists) is gone. It returns the names removed. dockerHost
// may be empty (DOCKER_HOST or the platform default). The Docker backend runs it in the
// background before creating its first container, so co calls it only for a `co doctor`-like
// command.
func SweepStale(ctx context.Context, dockerHost string) ([]string, error) {
	cli, err := newClient(dockerHost)
	if err != nil {
		return nil, err
	}
	defer cli.Close()
	return sweepStale(ctx, cli)
}

func sweepStale(ctx context.Context, cli *client.Client) ([]string, error) {
	lctx, cancel := context.WithTimeout(ctx, apiTimeout)
	defer cancel()
	list, err := cli.ContainerList(lctx, container.ListOptions{
		All:     true,
		Filters: filters.NewArgs(filters.Arg("label", LabelSandbox+"=1")),
	})
	if err != nil {
		return nil, fmt.Errorf("sandbox: list containers: %w", err)
	}
	host, _ := os.Hostname()
	var removed []string
	var errs []error
	for _, c := range list {
		if c.Labels[LabelHost] != host {
			continue // another machine's co shares this engine: its pids mean nothing here
		}
		pid, err := strconv.Atoi(c.Labels[LabelPID])
		if err != nil || pid <= 0 || processAlive(pid, c.Labels[LabelPIDStart]) {
			continue
		}
		rctx, cancel := context.WithTimeout(ctx, removeTimeout)
		err = cli.ContainerRemove(rctx, c.ID, container.RemoveOptions{Force: true, RemoveVolumes: true})
		cancel()
		if err != nil && !cerrdefs.IsNotFound(err) && !isRemovalInProgress(err) {
			errs = append(errs, err)
			continue
		}
		name := c.ID
		if len(c.Names) > 0 {
			name = strings.TrimPrefix(c.Names[0], "/")
		}
		removed = append(removed, name)
	}
	return removed, errors.Join(errs...)
}

// processAlive says whether pid is a live process that started at start (when start and /proc
// let us check; a reused pid then counts as dead).
func processAlive(pid int, start string) bool {
	if !pidExists(pid) {
		return false
	}
	if start == "" {
		return true
	}
	now := procStart(pid)
	return now == "" || now == start
}

// procStart is pid's start time in clock ticks after boot (/proc/<pid>/stat field 22), or "" where
// there is no /proc.
func procStart(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	// The command name (field 2) is in parentheses and may contain spaces: count after the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return ""
	}
	fields := strings.Fields(string(b[i+1:]))
	const startField = 22 - 3 // fields after ')' begin with field 3
	if len(fields) <= startField {
		return ""
	}
	return fields[startField]
}

// pidExists reports whether a process with this pid exists (EPERM: it does, someone else's).
func pidExists(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

var (
	_ Sandbox = (*Docker)(nil)
	_ Starter = (*Docker)(nil)
)
