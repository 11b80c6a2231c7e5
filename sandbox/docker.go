package sandbox

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/co-cli/co/lib/protect"
)

// Labels put on every container co creates; SweepStale finds leftovers by them.
const (
	LabelSandbox  = "co-cli.sandbox"  // "1"
	LabelRun      = "co-cli.run"      // the full run id (Config.RunID)
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
// group, so that nothing the command started in the background (a fork bomb, say) outlives the
// Run; then reapScript, for the orphans that left the group (setsid, a double fork). What is left
// after that (a process that keeps its parent alive, one that hops from pid to pid faster than a
// scan) is killed by killUserScript once no command runs (see [Docker.leave]).
const runScript = `timeout -k ` + killGrace + ` "$1" sh -c "$2" sh &
t=$!
wait "$t"
rc=$?
kill -s KILL -- "-$t" 2>/dev/null
` + reapScript + `
exit "$rc"`

// script is the runScript of this sandbox (see asBefore).
func (d *Docker) script() string {
	if d.asBefore {
		return scriptBefore
	}
	return runScript
}

// scriptBefore is runScript without reapScript, as it was before the guard.
const scriptBefore = `timeout -k ` + killGrace + ` "$1" sh -c "$2" sh &
t=$!
wait "$t"
rc=$?
kill -s KILL -- "-$t" 2>/dev/null
exit "$rc"`

// reapScript SIGKILLs every orphan in the container: a live process whose parent is PID 1 (the
// init the container runs with). A process of a command still running has that command's shell
// above it (whose parent is outside the container), so concurrent commands are left alone;
// anything a finished command left behind has lost its parents and is an orphan, or the
// descendant of one: once the orphans of a pass are dead (it waits for that), their children
// are orphans in the next. The container's own process (sleep, as keepUser) is an orphan too,
// but a command's user may not signal it. Shell built-ins only: nothing it starts is an orphan.
// It gives up after 200 passes (each at most pidsLimit processes).
//
// /proc/PID/stat is read whole: the command name (field 2) is the process's own to set, to any
// 15 bytes (newlines, ") ", spaces), so the fields are those after the last ')'. co_stat sets
// co_st (the state), co_pp (the parent) and co_th (the threads): a process whose main thread
// has exited shows state Z while its other threads run, so only a Z with one thread is dead.
const reapScript = `co_stat() {
  co_s=
  { while IFS= read -r co_l; do co_s="$co_s$co_l "; done; co_s="$co_s$co_l"; } 2>/dev/null <"/proc/$1/stat" || return 1
  case $co_s in *")"*) ;; *) return 1 ;; esac
  set -- ${co_s##*)}
  co_st=$1 co_pp=$2 co_th=${18:-1}
}
co_live() { [ "$co_st" != Z ] || [ "$co_th" -gt 1 ]; }
co_reap() {
  co_i=0
  while [ "$co_i" -lt 200 ]; do
    co_i=$((co_i + 1))
    co_k=
    for co_p in /proc/[0-9]*; do
      co_p=${co_p#/proc/}
      if co_stat "$co_p" && [ "$co_pp" = 1 ] && co_live && kill -s KILL "$co_p" 2>/dev/null; then co_k="$co_k $co_p"; fi
    done
    [ -n "$co_k" ] || return 0
    for co_p in $co_k; do
      co_j=0
      while [ "$co_j" -lt 10000 ] && co_stat "$co_p" && co_live; do co_j=$((co_j + 1)); done
    done
  done
}
co_reap`

// killUserScript, run in the container as the commands' user with its uid as $1 when no command
// runs, SIGKILLs every process of that user but itself (kill -1: the kernel's list, taken while
// no process can fork, so nothing escapes by forking, renaming itself, changing its session or
// process group, dropping CO_RUN_ID or finding another parent; a process cannot change its uid:
// every capability is dropped). The container's own process runs as keepUser, which this user
// may not signal, root included (no CAP_KILL). It then waits until every process of that user is
// dead (a zombie with one thread, or gone), reading the uid, state and threads from
// /proc/PID/status, whose name line the kernel escapes; a process stopped by SIGKILL may be in a
// system call, and the guard's check must come after it. It prints co-killed when all are dead.
const killUserScript = `kill -s KILL -- -1 2>/dev/null
co_n=0
while :; do
  co_left=
  for co_p in /proc/[0-9]*; do
    [ "${co_p#/proc/}" != "$$" ] || continue
    co_u= co_z= co_t=
    { while read -r co_k co_v co_r; do
        case $co_k in
          State:) co_z=$co_v ;;
          Uid:) co_u=$co_v ;;
          Threads:) co_t=$co_v; break ;;
        esac
      done; } 2>/dev/null <"$co_p/status" || continue
    [ "$co_u" = "$1" ] || continue
    [ "$co_z" != Z ] || [ "${co_t:-1}" -gt 1 ] || continue
    co_left=$co_p
    break
  done
  if [ -z "$co_left" ]; then echo co-killed; exit 0; fi
  co_n=$((co_n + 1))
  [ "$co_n" -lt 100 ] || sleep 0.01
  [ "$co_n" -lt 600 ] || { echo "still running: $co_left"; exit 1; }
done`

// keepUser is the uid:gid the container's own process (docker-init and `sleep infinity`) runs
// as: one that commands do not run as, so that no command can signal it (every capability is
// dropped), neither by `kill -9 -1` nor by the reaper or killUserScript. keepUserAlt is used
// when the workspace's owner is keepUser.
const (
	keepUser    = "65534:65534"
	keepUserAlt = "65533:65533"
)

// runIDVar tags every process of one Run (through its environment) so that a cancelled or
// abandoned Run can be killed in the container without touching concurrent Runs.
const runIDVar = "CO_RUN_ID"

// killScript, run in the container with the run id as $1, SIGKILLs every process carrying it.
// Two passes catch children forked while the first pass ran; then reapScript, for those that
// dropped the tag. What escapes both is killUserScript's once no command runs.
const killScript = `for pass in 1 2; do
  for p in /proc/[0-9]*; do
    grep -qxz "` + runIDVar + `=$1" "$p/environ" 2>/dev/null && kill -KILL "${p#/proc/}" 2>/dev/null
  done
done
` + reapScript + `
true`

// errGone means the container is no longer there or no longer running.
var errGone = errors.New("sandbox: container vanished")

// Docker runs commands in one hardened container per run of co (Isolation Full). It implements
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

	guard *guard // undoes commands' changes to protected paths
	// asBefore runs commands as co did before the guard (no guard, no reaper, no killUserScript),
	// and noUserKill without killUserScript: only the benchmarks set them, to measure what those
	// cost.
	asBefore, noUserKill bool

	// The execs running as the commands' user (commands, the guard's fixes), counted so that the
	// last to end kills what is left of that user before the guard's check (see leave).
	users   sync.Mutex
	running int
	killing chan struct{} // closed when the kill under way ends; nil when none is

	mu     sync.Mutex
	closed bool
	cur    *creation     // the latest container creation; nil until the first starts
	begun  chan struct{} // closed when the first creation starts
	swept  bool

	closeOnce sync.Once
	closeErr  error
}

// creation is one attempt to create and start the run's container.
type creation struct {
	done  chan struct{} // closed when the fields below are final
	begin time.Time
	took  time.Duration
	id    string
	user  string            // uid:gid the execs run as; see runAs
	mnts  map[string]devIno // what is mounted read-only, for the guard; see mounts
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
			// Docker itself is fine: saying "Docker is not available" sent
			// people to start an engine that was running (issue 27).
			return nil, imageMissing{cfg.Image}
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
		name: ContainerName(cfg.RunID),
		labels: map[string]string{
			LabelSandbox:  "1",
			LabelRun:      cfg.RunID,
			LabelHost:     host,
			LabelPID:      strconv.Itoa(pid),
			LabelPIDStart: procStart(pid),
		},
	}
	d.guard = newGuard(cfg.Workspace, protectedSet(cfg), !cfg.GitReadOnly)
	d.life, d.endLife = context.WithCancel(context.Background())
	d.build, d.endBuild = context.WithCancel(context.Background())
	d.begun = make(chan struct{})
	if !cfg.Defer {
		d.Start()
	}
	return d
}

// Start begins creating the container in the background unless a creation has begun already
// (or the sandbox is closed); see [Starter].
func (d *Docker) Start() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed || d.cur != nil {
		return
	}
	d.startCreation()
}

// Pending says that a Run now would wait for the container: none has been started, its creation
// is still under way, or it failed (the Run tries again).
func (d *Docker) Pending() bool {
	d.mu.Lock()
	c := d.cur
	d.mu.Unlock()
	return c == nil || !c.finished() || c.err != nil
}

// newClient is the Docker client. It traces nothing: the client's own
// instrumentation (otelhttp) would put a span per request to the engine
// (exec create, exec inspect: "POST /v1.41/containers/ID/exec") under the
// tool call's span, in the store, the side panel and co tail. co's own
// spans say what those would: sandbox_start the container's creation,
// docker exec each command's start, end and exit code. The exec start's
// hijacked request is kept quiet by execSpan: the client's hijack makes
// its own transport, without these options
// (docs/SOURCES.md#docker-client-its-own-tracing).
func newClient(host string) (*client.Client, error) {
	opts := []client.Opt{client.FromEnv, client.WithAPIVersionNegotiation(),
		client.WithTraceProvider(noop.NewTracerProvider())}
	if host != "" {
		opts = append(opts, client.WithHost(host))
	}
	return client.NewClientWithOpts(opts...)
}

func unavailable(err error) error {
	return fmt.Errorf("%w (%v)", ErrDockerUnavailable, err)
}

// imageMissing is the error of an engine that answers but has no sandbox
// image. It is ErrImageMissing, and ErrDockerUnavailable as far as the
// choice of backend goes.
type imageMissing struct{ image string }

func (e imageMissing) Error() string {
	return fmt.Sprintf("Docker is running but has no image %s: build it from co's source tree with `docker build -t %s sandbox-image`, "+
		"or offline, as root, with scripts/build-sandbox-image.sh", e.image, e.image)
}

func (e imageMissing) Is(target error) bool {
	return target == ErrImageMissing || target == ErrDockerUnavailable
}

// ContainerName is the name of the container for a run of co: co-runner-<first 8 of runID>,
// keeping only the characters Docker allows in names.
func ContainerName(runID string) string {
	var b strings.Builder
	for _, r := range runID {
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
	if d.cur == nil {
		close(d.begun)
	}
	d.cur = c
	sweep := !d.swept
	d.swept = true
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		defer close(c.done)
		if sweep {
			_, _ = sweepStale(d.build, d.cli) // best effort: leftovers must not block this run
		}
		var seccompOK bool
		c.user, seccompOK = d.runAs(d.build)
		d.guard.prime(d.build) // the first command then pays only for an update
		c.id, c.err = d.create(d.build, c, seccompOK)
		if c.err == nil {
			d.guard.setMounts(c.mnts)
		}
		c.took = time.Since(c.begin)
	}()
	return c
}

// create replaces any container with our name by a fresh, started one.
func (d *Docker) create(ctx context.Context, c *creation, seccompOK bool) (string, error) {
	if exists, err := d.checkNameFree(ctx); err != nil {
		return "", err
	} else if exists {
		if err := d.remove(ctx); err != nil {
			return "", err
		}
	}
	security := []string{"no-new-privileges"}
	profile, err := seccompProfile()
	if err != nil {
		return "", fmt.Errorf("sandbox: seccomp profile: %w", err)
	}
	if profile != "" {
		if !seccompOK {
			return "", fmt.Errorf("sandbox: the Docker engine has no seccomp support; co needs it to stop commands from making set-user-ID files in the workspace")
		}
		security = append(security, "seccomp="+profile)
	}
	keep := keepUser
	if strings.HasPrefix(c.user, strings.Split(keepUser, ":")[0]+":") {
		keep = keepUserAlt
	}
	var ms []mount.Mount
	ms, c.mnts = mounts(d.cfg, d.guard.gitDirs())
	cfg := &container.Config{
		Image:      d.cfg.Image,
		Cmd:        []string{"sleep", "infinity"},
		User:       keep, // not c.user: see keepUser
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
		SecurityOpt:    security,
		ReadonlyRootfs: true,
		Tmpfs:          map[string]string{"/tmp": tmpfsOptions},
		Mounts:         ms,
		Init:           &init, // an init reaps the orphans (and fork-bomb debris) of every exec
		// The engine removes the container once it has stopped: Close only kills it, and co
		// exits without waiting for the removal (seconds with the vfs storage driver).
		AutoRemove: true,
		LogConfig:  container.LogConfig{Type: "none"},
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
func (d *Docker) runAs(ctx context.Context) (user string, seccomp bool) {
	rootless, seccomp := d.security(ctx)
	if rootless {
		return "0:0", seccomp
	}
	var st syscall.Stat_t
	if err := syscall.Stat(d.cfg.Workspace, &st); err != nil {
		return fmt.Sprintf("%d:%d", os.Getuid(), os.Getgid()), seccomp // create will fail on the mount anyway
	}
	return fmt.Sprintf("%d:%d", st.Uid, st.Gid), seccomp
}

// security says whether the engine runs rootless and whether it has seccomp (it says both in its
// security options). When it does not answer, seccomp is assumed: creating the container then
// says what is wrong.
func (d *Docker) security(ctx context.Context) (rootless, seccomp bool) {
	ictx, cancel := context.WithTimeout(ctx, apiTimeout)
	defer cancel()
	info, err := d.cli.Info(ictx)
	if err != nil {
		return false, true
	}
	for _, o := range info.SecurityOptions {
		rootless = rootless || strings.Contains(o, "name=rootless")
		seccomp = seccomp || strings.Contains(o, "name=seccomp")
	}
	return rootless, seccomp
}

// checkNameFree refuses to replace a container with our name that is not ours to replace: one
// co did not make, or one that another live co process on this machine (or any co process on
// another machine) uses. Ours from an earlier attempt, or a dead co's, may go. It says whether a
// container has the name (which must then be removed).
func (d *Docker) checkNameFree(ctx context.Context) (exists bool, err error) {
	ictx, cancel := context.WithTimeout(ctx, apiTimeout)
	defer cancel()
	info, err := d.cli.ContainerInspect(ictx, d.name)
	if cerrdefs.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return true, fmt.Errorf("sandbox: inspect container %s: %w", d.name, err)
	}
	var l map[string]string
	if info.Config != nil {
		l = info.Config.Labels
	}
	switch {
	case l[LabelSandbox] != "1":
		return true, fmt.Errorf("sandbox: a container named %s exists and co did not create it; remove it, or run co again (another run gets another name)", d.name)
	case d.owns(l):
		return true, nil // ours, from an earlier attempt
	case l[LabelHost] != d.labels[LabelHost]:
		return true, fmt.Errorf("sandbox: container %s belongs to co on host %q; remove it, or run co again (another run gets another name)", d.name, l[LabelHost])
	}
	if pid, err := strconv.Atoi(l[LabelPID]); err == nil && pid > 0 && processAlive(pid, l[LabelPIDStart]) {
		return true, fmt.Errorf("sandbox: container %s is in use by co process %d (run %s)", d.name, pid, l[LabelRun])
	}
	return true, nil
}

// mounts are the workspace at /workspace (rw) and, read-only on top, the protected folders at
// its top that exist when the container is made (see lib/protect): .co-cli, .agents,
// .vscode, .idea, .github (whole, so that its workflows/ cannot be moved away by renaming it)
// and, when cfg.GitReadOnly, .git (a folder, or a file pointing to one). Names are matched
// without case. A read-only mount cannot be written, removed or renamed in the container, so the
// guard does not walk it, and a person's editor writing in .idea/ or .vscode/ on the host while a
// command runs is never undone. What is not mounted (protected files, protected folders deeper
// down or made later) the guard checks after each command. A protected folder that is a symlink
// is followed: if it leads inside the workspace, that target is mounted read-only at its place
// under /workspace; if it leads outside, the container cannot reach it anyway. With
// cfg.GitReadOnly the .git folders further down (nested, relative, from the guard's walk: a folder
// of repositories) are mounted read-only too: git's own data is too large to keep a copy of, and
// git in the sandbox then fails cleanly there as it does at the top. The second result names each
// mounted path (relative, slash-separated) with its device and inode, by which the guard knows
// the mount, wherever a renamed parent moved it. co's own folders: see ownDirs.
func mounts(cfg Config, nested []string) ([]mount.Mount, map[string]devIno) {
	ms := []mount.Mount{{Type: mount.TypeBind, Source: cfg.Workspace, Target: workdir}}
	ws, err := filepath.EvalSymlinks(cfg.Workspace)
	if err != nil {
		return ms, nil
	}
	// co's own config and data folders (cfg.Places), wherever they are inside the workspace:
	// what a command wrote there, co would read back as its own settings, memories and consent.
	// A workspace inside one of them is mounted read-only whole.
	var done map[string]devIno
	for _, o := range ownDirs(cfg) {
		if o.Rel == "" {
			ms[0].ReadOnly = true
			continue
		}
		target, err := filepath.EvalSymlinks(o.Dir)
		if err != nil {
			continue
		}
		rel, err := filepath.Rel(ws, target)
		if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue // through a link that leads out: the container cannot reach it
		}
		st, err := lstat(target)
		if err != nil || !st.isDir() {
			continue
		}
		rel = filepath.ToSlash(rel)
		if done == nil {
			done = map[string]devIno{}
		}
		done[rel] = devIno{st.dev, st.ino}
		ms = append(ms, mount.Mount{Type: mount.TypeBind, Source: target, Target: workdir + "/" + rel, ReadOnly: true})
	}
	ents, err := os.ReadDir(ws)
	if err != nil {
		return ms, nil
	}
	set := protect.New(nil)
	for _, e := range ents {
		name := e.Name()
		isGit := strings.EqualFold(name, ".git")
		switch {
		case isGit && !cfg.GitReadOnly:
			continue
		case isGit, strings.EqualFold(name, ".github"):
		case set.Child("", name, protect.Dir) == "" || e.Type().IsRegular():
			continue // not a protected folder (a protected file is the guard's)
		}
		target, err := filepath.EvalSymlinks(filepath.Join(ws, name))
		if err != nil {
			continue
		}
		rel, err := filepath.Rel(ws, target)
		if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		st, err := lstat(target)
		if err != nil || (!st.isDir() && !isGit) {
			continue
		}
		rel = filepath.ToSlash(rel)
		if _, ok := done[rel]; ok {
			continue
		}
		if done == nil {
			done = map[string]devIno{}
		}
		done[rel] = devIno{st.dev, st.ino}
		ms = append(ms, mount.Mount{Type: mount.TypeBind, Source: target, Target: workdir + "/" + rel, ReadOnly: true})
	}
	for _, rel := range nested {
		if !cfg.GitReadOnly {
			break
		}
		p := filepath.Join(ws, filepath.FromSlash(rel))
		st, err := lstat(p) // a folder, found without following links: no symlink on the way
		if err != nil || !st.isDir() {
			continue
		}
		if done == nil {
			done = map[string]devIno{}
		}
		done[rel] = devIno{st.dev, st.ino}
		ms = append(ms, mount.Mount{Type: mount.TypeBind, Source: p, Target: workdir + "/" + rel, ReadOnly: true})
	}
	slices.SortFunc(ms[1:], func(a, b mount.Mount) int { return strings.Compare(a.Target, b.Target) })
	return ms, done
}

// ownDirs are co's own folders inside the workspace, each made first when missing (owned, when
// co runs as root, by the owner of the folder it is made in).
func ownDirs(cfg Config) []protect.Own {
	owns := protect.New(nil).In(cfg.Workspace, cfg.Places).Owns()
	for _, o := range owns {
		if o.Rel != "" {
			_ = mkdirAllOwned(o.Dir)
		}
	}
	return owns
}

// mkdirAllOwned makes dir and its missing parents, private, as os.MkdirAll does; when co runs as
// root, each folder it makes belongs to the owner of the folder it was made in.
func mkdirAllOwned(dir string) error {
	if _, err := os.Stat(dir); err == nil {
		return nil
	}
	if p := filepath.Dir(dir); p != dir {
		if err := mkdirAllOwned(p); err != nil {
			return err
		}
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return err
	}
	if os.Geteuid() == 0 {
		if st, err := lstat(filepath.Dir(dir)); err == nil {
			_ = os.Lchown(dir, int(st.uid), int(st.gid))
		}
	}
	return nil
}

// remove force-removes the container with our name, and waits until it is gone: the engine may
// be removing it already (auto-remove, once it stopped), and the name is free only after. A missing
// container is not an error.
func (d *Docker) remove(ctx context.Context) error {
	rctx, cancel := context.WithTimeout(ctx, removeTimeout)
	defer cancel()
	err := d.cli.ContainerRemove(rctx, d.name, container.RemoveOptions{Force: true, RemoveVolumes: true})
	switch {
	case cerrdefs.IsNotFound(err):
		return nil
	case err != nil && !isRemovalInProgress(err):
		return fmt.Errorf("sandbox: remove container %s: %w", d.name, err)
	}
	gone, failed := d.cli.ContainerWait(rctx, d.name, container.WaitConditionRemoved)
	select {
	case <-gone:
		return nil
	case err := <-failed:
		if cerrdefs.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("sandbox: remove container %s: waiting for the engine to finish: %w", d.name, err)
	}
}

// owns says whether a container's labels are this sandbox's.
func (d *Docker) owns(l map[string]string) bool { return sameLabels(l, d.labels) }

func isRemovalInProgress(err error) bool {
	return cerrdefs.IsConflict(err) && strings.Contains(err.Error(), "already in progress")
}

// Ready waits for the container; see [Starter]. Before Start (or the first Run), it waits for
// one of them.
func (d *Docker) Ready(ctx context.Context) error {
	select {
	case <-d.begun:
	case <-ctx.Done():
		return ctx.Err()
	}
	_, err := d.container(ctx)
	return err
}

// Started reports when the latest container creation began and how long it took to have the
// container running; see [Starter].
func (d *Docker) Started() (time.Time, time.Duration, error) {
	d.mu.Lock()
	c := d.cur
	d.mu.Unlock()
	if c == nil {
		return time.Time{}, 0, ErrNotReady
	}
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
	if c == nil || c.finished() && c.err != nil {
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

// Run runs cmd with `timeout N sh -c cmd` (see runScript) as the workspace's owner (see runAs) in /workspace of the run's container,
// waiting first for the container if it is still being created. If the container vanished
// (removed or stopped behind co's back) it is recreated once, before the command starts.
// See the package documentation for the rest of the contract.
func (d *Docker) Run(ctx context.Context, cmd string, opts Options) (Output, error) {
	secs := effectiveTimeout(opts.Timeout, d.cfg.MaxTimeout)
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(d.life, cancel)()

	c, err := d.container(runCtx)
	if err != nil {
		return Output{}, d.runError(ctx, err)
	}
	asBefore := d.asBefore
	if !asBefore {
		if err := d.enter(runCtx); err != nil {
			return Output{}, d.runError(ctx, err)
		}
		if err := d.guard.begin(); err != nil {
			_ = d.leave(c)
			return Output{}, err
		}
	}
	out, err := d.exec(runCtx, c, cmd, secs, maxOutput(opts))
	if errors.Is(err, errGone) {
		var again *creation
		if again, err = d.replace(runCtx, c.id); err == nil {
			c = again
			out, err = d.exec(runCtx, c, cmd, secs, maxOutput(opts))
		}
	}
	if !asBefore {
		// Nothing of the commands' user may run during the check but other commands, whose
		// own end is checked again after the last of them.
		if kerr := d.leave(c); kerr != nil && err == nil {
			err = kerr
		}
		var fix fixer
		if d.life.Err() == nil {
			fix = d.fixer(c)
		}
		if ps := d.guard.end(fix); len(ps) > 0 {
			out.Protected = ps
			out.Text = appendNote(out.Text, ProtectedNote(ps))
		}
	}
	if err == nil {
		return out, nil
	}
	return out, d.runError(ctx, err)
}

// enter counts one more exec as the commands' user, once the kill under way (if any) has ended:
// an exec started during it could be killed with what it kills.
func (d *Docker) enter(ctx context.Context) error {
	d.users.Lock()
	for d.killing != nil {
		k := d.killing
		d.users.Unlock()
		select {
		case <-k:
		case <-ctx.Done():
			return ctx.Err()
		}
		d.users.Lock()
	}
	d.running++
	d.users.Unlock()
	return nil
}

// leave counts one exec as the commands' user ended. The last one kills, in container c, every
// process of that user that is left (killUserScript) before it returns: whatever a command left
// running, however it hid from the reaper, is dead before the guard's check that follows. While
// other execs run, it cannot: it would kill them too; the reaper (runScript) has killed the
// orphans, and what is left dies when the last one ends, before its check, which sees what the
// survivor did since the baseline of the commands running together.
func (d *Docker) leave(c *creation) error {
	d.users.Lock()
	d.running--
	if d.running > 0 || d.noUserKill {
		d.users.Unlock()
		return nil
	}
	k := make(chan struct{})
	d.killing = k
	d.users.Unlock()
	err := d.killUser(c)
	d.users.Lock()
	d.killing = nil
	close(k)
	d.users.Unlock()
	return err
}

// killTimeout bounds killUserScript: its exec, and its wait for the killed processes (5 s).
const killTimeout = 30 * time.Second

// killerUser is the uid:gid killUserScript runs as: the commands' uid, which is what kill -1
// needs (a signal's permission is checked on uids alone), with a gid that no command has (the
// container's own, or keepUserAlt's when the commands' is that). A process may ptrace another,
// or write its memory through /proc/PID/mem, only when their uids and gids all match (without
// CAP_SYS_PTRACE): so a process of a command cannot tamper with the killer between its start and
// its kill -1. It may still signal it (same uid): a killer stopped or killed so never says
// co-killed, and the container is killed instead.
func killerUser(commands string) string {
	uid, gid, _ := strings.Cut(commands, ":")
	keepGid := keepUser[strings.IndexByte(keepUser, ':')+1:]
	if gid == keepGid {
		keepGid = keepUserAlt[strings.IndexByte(keepUserAlt, ':')+1:]
	}
	return uid + ":" + keepGid
}

// killUser runs killUserScript in container c. When that fails (the engine did not run it, or a
// process would not die), it kills the whole container instead (the next Run makes a new one),
// and waits for it to stop: the guard's check must not run while anything of the command's
// could still write. Not needed after Close, which kills the container.
func (d *Docker) killUser(c *creation) error {
	if d.life.Err() != nil {
		return nil
	}
	uid, _, _ := strings.Cut(c.user, ":")
	ctx, cancel := context.WithTimeout(context.Background(), killTimeout)
	defer cancel()
	created, err := d.cli.ContainerExecCreate(ctx, c.id, container.ExecOptions{
		User:         killerUser(c.user),
		Env:          execEnv,
		AttachStdout: true,
		AttachStderr: true,
		Cmd:          []string{"sh", "-c", killUserScript, "co-kill", uid},
	})
	if cerrdefs.IsNotFound(err) || cerrdefs.IsConflict(err) {
		return nil // the container is gone or stopped: nothing runs in it
	}
	if err == nil {
		err = d.readKill(ctx, created.ID)
	}
	if err == nil {
		return nil
	}
	if kerr := d.stopNow(c); kerr != nil {
		return fmt.Errorf("sandbox: could not kill what the command left running (%v), nor the container: %w", err, kerr)
	}
	return nil
}

// readKill starts a killUserScript exec and says whether it reported every process dead.
func (d *Docker) readKill(ctx context.Context, execID string) error {
	att, err := d.cli.ContainerExecAttach(ctx, execID, container.ExecAttachOptions{})
	if err != nil {
		return err
	}
	defer att.Close()
	defer context.AfterFunc(ctx, att.Close)()
	capt := newCapture(4096)
	if _, err := stdcopy.StdCopy(capt, capt, att.Reader); err != nil {
		return err
	}
	if text, _ := capt.text(false, 0); text != "co-killed\n" {
		return fmt.Errorf("the kill in the container said %q", strings.TrimSpace(text))
	}
	return nil
}

// stopNow kills container c and waits until it has stopped.
func (d *Docker) stopNow(c *creation) error {
	ctx, cancel := context.WithTimeout(context.Background(), removeTimeout)
	defer cancel()
	stopped, failed := d.cli.ContainerWait(ctx, c.id, container.WaitConditionNotRunning)
	if err := d.cli.ContainerKill(ctx, c.id, "KILL"); err != nil && !cerrdefs.IsNotFound(err) && !cerrdefs.IsConflict(err) {
		return err
	}
	select {
	case <-stopped:
		return nil
	case err := <-failed:
		if cerrdefs.IsNotFound(err) {
			return nil
		}
		return err
	}
}

// fixScript, run in the container as the command's user with the paths to remove as arguments
// and a tar archive of what to put back on its standard input, does what co's own user could not
// (co is not root, and the command's user owns what it made).
const fixScript = `cd ` + workdir + ` || exit 1
for p; do rm -rf -- "./$p" || exit 1; done
exec tar -x -p --no-same-owner --unlink-first --recursive-unlink -f -`

// fixer undoes in container c what the guard could not on the host.
func (d *Docker) fixer(c *creation) fixer {
	return func(remove []string, put map[string]*entry) (err error) {
		var archive bytes.Buffer
		tw := tar.NewWriter(&archive)
		for _, rel := range slices.Sorted(maps.Keys(put)) {
			e := put[rel]
			h := &tar.Header{Name: rel, Mode: int64(e.st.perm()), ModTime: time.Unix(0, e.st.mtime)}
			switch e.st.typ() {
			case syscall.S_IFDIR:
				h.Typeflag, h.Name = tar.TypeDir, rel+"/"
			case syscall.S_IFLNK:
				h.Typeflag, h.Linkname = tar.TypeSymlink, e.link
			default:
				h.Typeflag, h.Size = tar.TypeReg, int64(len(e.content))
			}
			if err := tw.WriteHeader(h); err != nil {
				return err
			}
			if h.Typeflag == tar.TypeReg {
				if _, err := tw.Write(e.content); err != nil {
					return err
				}
			}
		}
		if err := tw.Close(); err != nil {
			return err
		}
		ctx, cancel := context.WithTimeout(d.life, 30*time.Second)
		defer cancel()
		// The fix runs as the commands' user: counted, so that no kill of that user runs during it.
		if err := d.enter(ctx); err != nil {
			return err
		}
		defer func() {
			if kerr := d.leave(c); err == nil {
				err = kerr
			}
		}()
		created, err := d.cli.ContainerExecCreate(ctx, c.id, container.ExecOptions{
			User:         c.user,
			Env:          execEnv,
			AttachStdin:  true,
			AttachStdout: true,
			AttachStderr: true,
			Cmd:          append([]string{"sh", "-c", fixScript, "co-fix"}, remove...),
		})
		if err != nil {
			return err
		}
		att, err := d.cli.ContainerExecAttach(ctx, created.ID, container.ExecAttachOptions{})
		if err != nil {
			return err
		}
		defer att.Close()
		defer context.AfterFunc(ctx, att.Close)()
		if _, err := att.Conn.Write(archive.Bytes()); err != nil {
			return err
		}
		_ = att.CloseWrite()
		capt := newCapture(4096)
		if _, err := stdcopy.StdCopy(capt, capt, att.Reader); err != nil {
			return err
		}
		code, err := d.exitCode(ctx, created.ID)
		if err != nil {
			return err
		}
		if code != 0 {
			text, _ := capt.text(false, 0)
			return fmt.Errorf("exit %d: %s", code, strings.TrimSpace(text))
		}
		return nil
	}
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
func (d *Docker) exec(ctx context.Context, c *creation, cmd string, secs, max int) (_ Output, err error) {
	id := c.id
	runID := randomHex(16)
	cctx, cancel := context.WithTimeout(ctx, apiTimeout)
	created, err := d.cli.ContainerExecCreate(cctx, id, container.ExecOptions{
		User:         c.user,
		WorkingDir:   workdir,
		Env:          append(execEnv[:len(execEnv):len(execEnv)], runIDVar+"="+runID),
		AttachStdout: true,
		AttachStderr: true,
		Cmd:          []string{"sh", "-c", d.script(), "co-run", strconv.Itoa(secs), cmd},
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
	actx, span := execSpan(hctx, created.ID)
	var code int
	defer func() { endExecSpan(span, code, err) }()
	att, err := d.cli.ContainerExecAttach(actx, created.ID, container.ExecAttachOptions{})
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

	code, err = d.exitCode(ctx, created.ID)
	out := Output{Duration: elapsed, ExitCode: code}
	// 124: `timeout` sent TERM; 137: it had to send KILL as well. Either only counts as a timeout
	// when the time was really up (the command itself may exit 124, or be OOM-killed: 137).
	if (code == 124 || code == 137) && elapsed >= time.Duration(secs)*time.Second {
		out.TimedOut, out.ExitCode = true, 124
	}
	out.Text, out.Truncated = capt.text(out.TimedOut, secs)
	return out, err
}

// execSpan starts the span of one exec's start and output (a child of the span in ctx, a tool
// call's, with its tracer provider; none when ctx has no recording span), and returns the context
// the attach request must go with: one whose span makes no spans.
//
// Why: the Docker client traces each request with otelhttp, which takes its tracer provider from
// the span in the request's context. The exec start (POST /exec/{id}/start) is answered
// "101 Switching Protocols" and the connection hijacked; otelhttp ends that request's span when
// the response body is closed, which the client never does for a hijacked connection (client/
// hijack.go in github.com/docker/docker v28.5.2; otelhttp and protocol upgrades:
// https://github.com/open-telemetry/opentelemetry-go-contrib/issues/1329). That span was never
// ended: the side panel showed "◌ HTTP POST running" forever and the span store never got it.
// Here the request makes no span, and ours ends when the command's output has been read.
func execSpan(ctx context.Context, execID string) (context.Context, trace.Span) {
	parent := trace.SpanFromContext(ctx)
	if !parent.IsRecording() {
		return ctx, nil
	}
	ctx, span := parent.TracerProvider().Tracer("github.com/co-cli/co/sandbox").Start(ctx, "docker exec",
		trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(
			attribute.String("http.request.method", "POST"),
			attribute.String("url.path", "/exec/"+execID+"/start"),
			attribute.String("co.sandbox.exec.id", execID),
		))
	return trace.ContextWithSpan(ctx, quietSpan{span}), span
}

// endExecSpan ends an execSpan with the command's exit code or what went wrong.
func endExecSpan(span trace.Span, code int, err error) {
	if span == nil {
		return
	}
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	} else {
		span.SetAttributes(attribute.Int("co.sandbox.exit_code", code))
	}
	span.End()
}

// quietSpan is a span whose tracer provider makes no spans: the Docker client's instrumentation
// (otelhttp) then traces nothing under it. Everything else is the span's own.
type quietSpan struct{ trace.Span }

func (quietSpan) TracerProvider() trace.TracerProvider { return noop.NewTracerProvider() }

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

// Close ends the container this sandbox made and releases the client. It cancels in-flight Runs,
// and is safe to call concurrently, repeatedly and from a signal handler's goroutine: every call
// returns the first call's result.
//
// Close never waits for the container's removal, which takes seconds with the vfs storage driver
// (4–14 s were seen on exit) while co would sit with nothing on screen: the container is made with
// AutoRemove, so Close only kills it (SIGKILL to its whole process tree: tens of milliseconds, and
// then no command's process is left to change the workspace) and the engine removes it after co
// is gone. Where the kill cannot be done (the engine does not answer in time, the container is not
// running), a detached remover process does the removal (see reapLater); should that fail too, the
// next start's sweep does (its owner, this process, is gone).
//
// A container creation still under way is cancelled rather than waited for. The engine may still
// finish a create it has received; that container is left to the detached remover too.
func (d *Docker) Close() error {
	d.closeOnce.Do(func() {
		d.mu.Lock()
		d.closed = true
		c := d.cur
		d.mu.Unlock()
		d.endLife()
		d.endBuild() // cancels a creation under way: its API calls return at once
		d.wg.Wait()
		switch {
		case c == nil: // nothing was started
		case !c.finished() || c.err != nil:
			if c.sent.Load() {
				d.reapLater()
			}
		default:
			d.closeErr = d.stop(c)
		}
		d.cli.Close()
		// No process of any command is left: what they did to protected paths after the last
		// check is undone now.
		d.guard.final()
	})
	return d.closeErr
}

// stop kills the running container c, which the engine then removes (AutoRemove); when the kill
// fails, the detached remover takes over.
func (d *Docker) stop(c *creation) error {
	ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
	defer cancel()
	err := d.cli.ContainerKill(ctx, c.id, "KILL")
	if err == nil || cerrdefs.IsNotFound(err) {
		return nil
	}
	if !d.reapLater() {
		return fmt.Errorf("sandbox: kill container %s: %w (the next co removes it)", d.name, err)
	}
	return nil
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
// container a cancelled creation may still produce, or that Close could not kill, and removes it.
// Best effort (it says whether the remover started): without it the next start's sweep removes the
// container.
func (d *Docker) reapLater() bool {
	exe, err := os.Executable()
	if err != nil {
		return false
	}
	labels, _ := json.Marshal(d.labels)
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), reapNameEnv+"="+d.name, reapLabelsEnv+"="+string(labels), reapHostEnv+"="+d.cfg.DockerHost)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return false
	}
	go func() { _ = cmd.Wait() }() // reaped if this process outlives it
	return true
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
	for _, k := range []string{LabelSandbox, LabelHost, LabelPID, LabelPIDStart, LabelRun} {
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
