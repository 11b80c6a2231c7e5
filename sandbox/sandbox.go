// Package sandbox runs the shell commands the LLM asks for, and owns the choice of where they run.
//
// Two backends implement [Sandbox]:
//
//   - [Docker] (Isolation [Full]): one long-lived container per run of co, named co-runner-<first 8 of
//     the run id, [Config.RunID]>, hardened (all capabilities dropped, no-new-privileges, Docker's seccomp profile
//     refusing set-user-ID and set-group-ID bits, pids limit, the workspace owner's uid:gid,
//     read-only root filesystem, network "none" by default, memory and CPU limits) with the
//     workspace bind-mounted at /workspace and its protected folders (.git among them) read-only
//     on top. Each Run is a docker exec, after which every orphan in the container is killed,
//     every process of the commands' user when no other command runs (see "No process outlives
//     its command"), and the guard undoes what the command did to protected paths (see guard.go
//     and [Output.Protected]).
//   - [Subprocess] (Isolation [None]): sh -c in the workspace directory on this machine, in its own
//     process group, with an allowlisted environment. It is the degraded mode and says so.
//
// [New] picks the backend from [Config] following the fallback matrix (see [New]) and reports the
// choice in a [Selection] whose Warning the front ends must show persistently when it is not empty.
//
// # Semantics shared by both backends
//
// A command gets min(Options.Timeout or 120 s, Config.MaxTimeout) seconds. When it runs out, the
// command and everything it started are killed, Output.TimedOut is true, Output.ExitCode is 124 and
// Output.Text ends with "[command timed out after Ns]". Standard output and standard error are
// interleaved into Output.Text; only Options.MaxOutput bytes (default 64 KiB) are kept, the first
// quarter and the last three quarters (errors are usually at the end), and then Output.Truncated is
// true and a line between the two says
// "[… output truncated: kept the first H and the last T of M bytes; the N between are left out …]".
// A non-zero exit code is not an error: Run returns
// an error only when the command could not be run or waited for (the infrastructure failed), or when
// ctx was cancelled (the error is then ctx.Err(), the command has been killed, and the Output holds
// what it printed so far).
//
// # Concurrency contract
//
// Run, Isolation, Close and, for Docker, Ready and Started are safe for concurrent use. Runs are NOT
// serialised: concurrent Runs are concurrent commands (in the same container for Docker, sharing its
// pids and memory limits). Close may be called at any time, from any goroutine, any number of times
// (e.g. from a SIGTERM handler while a Run is in flight): it cancels in-flight Runs, which return an
// error, removes what the sandbox created (Docker: kills the container, whose removal the engine
// then does by itself, without co waiting for it), and every call returns the result of the first.
// Run after Close returns [ErrClosed].
//
// The Docker backend starts creating its container in a background goroutine inside New (or, with
// Config.Defer, in [Docker.Start] or the first Run), so New returns within the ~1.5 s availability
// probe; the first Run (or [Docker.Ready]) waits for the container. That goroutine first sweeps containers left by co processes that died (see [SweepStale]).
// It is the only goroutine the package leaves running between calls, and Close waits for it.
//
// # The protected-paths guard
//
// The guard keeps shell commands from leaving changes to the protected paths of the workspace
// (lib/protect: what runs code on the host later, what steers later sessions) on the host.
//
// Why a check after each command, and not only read-only mounts: a bind mount can only cover a
// path that exists when the container is made (runc would create a missing target on the host),
// and the list matches at any depth, so a command could always create sub/.envrc or a new .git.
// The Docker backend mounts the protected folders at the top of the workspace read-only (see
// [mounts]), and co's own config and data folders wherever they are in it ([Config.Places]: co
// started in the home folder; made first when missing); everything else is left to the guard
// (guard.go), which also applies the home folder's rules there (lib/protect's Set.In). A folder
// above one of co's that a command renamed is moved back, and what the command made in its place
// moved aside, as a mount cannot be put back file by file:
//
//   - Before a command (when none is running) the guard brings its picture of the workspace up to
//     date: it stats every directory it knows (3 ms for 1,100 directories on the test machine),
//     reads again only those whose ctime changed, and keeps every protected path's type, mode,
//     owner, link target and content (a file up to keepFileMax, keepTotalMax in all; content is
//     read again only when a file's stat changed). Changes made between commands — by the user,
//     by an approved write_file — become the new baseline.
//   - After the command it does the same and compares: a protected path created (at any depth,
//     also inside a new or renamed directory, also a symlink) is removed; one changed, replaced
//     (by a symlink, say) or deleted is put back; a renamed one is both. ctime cannot be set by a
//     program, so a directory whose ctime did not change has the same entries; a directory or
//     file read less than racyWindow after its ctime is read again next time, as git treats a
//     "racily clean" index entry.
//
// No process of the command is left to write after the check (see "No process outlives its
// command" below), and commands never see the guard's state. Everything the guard changes on the host goes through descriptors opened without
// following symlinks, from the workspace down, so a link a command planted cannot send a
// removal or a restore anywhere else.
//
// Concurrent commands share one baseline, taken when the first of them starts; each one's end is
// checked against it, and the last one's end leaves the workspace as it was plus what the guard
// accepted. A change a person makes to a protected path while a command runs looks like the
// command's, and is undone too.
//
// # The Watch
//
// A [Watch] checks the same paths again around turns, for what happens after a command's check (a
// process that escaped the reaper, the background process of an unsandboxed command, a local MCP
// server):
//
//   - [Watch.TurnStarted], when the user sends a message: the picture becomes the baseline. What
//     changed while no turn ran is reported, never undone: it may be the user's own edit.
//   - [Watch.Check], before every model request and at the end of the turn ([Watch.TurnEnded]): a
//     change since the baseline that no approved call made is undone and reported.
//   - [Watch.BeginApproved] and [Watch.EndApproved], around a call that may change protected paths
//     with the user's approval (a write_file the user answered, an unsandboxed command: see
//     [Config.Watch]): what changed before it is undone (reported by the next Check), what changes
//     while it runs joins the baseline.
//   - [Watch.Exit]: a turn still running is checked as by Check; otherwise what changed since the
//     last turn ended is reported and left.
//
// Inside a .git folder it looks only at what runs code (config, config.worktree, commondir,
// hooks/, and the same in modules/ and worktrees/), not at git's data, which the user's git
// changes at any time and which is too large to read before every request. It never looks into
// .idea/ (a JetBrains IDE rewrites its workspace there by itself) nor at the paths it is told to
// skip (co's own files, which co writes during a turn).
//
// # No process outlives its command
//
// A command may leave processes running (`&`, setsid, a double fork) and hide them: rename itself
// with any bytes (a newline, ") "), change its session or process group, drop CO_RUN_ID, re-parent
// under a subreaper, let its main thread exit so that /proc says "zombie" while a thread runs on.
// None of that changes its uid, which every capability being dropped keeps fixed. So:
//
//   - Commands run as the workspace owner's uid; the container's own process runs as keepUser,
//     which that uid cannot signal (root without CAP_KILL included).
//   - The Docker backend counts the execs running as that uid (commands, the guard's fixes).
//     When the last one ends ([Docker.leave]), it runs killUserScript as that uid: kill -1, which
//     the kernel sends to every process of the uid but the killer while no process can fork, so
//     nothing escapes it; then it waits for them to be dead. An exec starting meanwhile waits for
//     the kill. The killer runs with another gid than the commands' (killerUser), so that none of
//     them may ptrace it or write its memory before its kill -1; one that stops or kills it
//     instead gets the whole container killed. Only then does the guard check. A cancelled or
//     abandoned Run is killed the same way when it was the last.
//   - While other commands run, the uid kill would kill them too. The exec's own script then
//     kills the orphans (reapScript: parent PID 1, fields read after the last ')' of
//     /proc/PID/stat, waiting for each pass's dead before the next), which catches what a
//     finished command left in the usual ways; what escapes it (a process hopping from pid to pid
//     faster than a scan) dies when the last command ends, before that command's check. The
//     guard's baseline is the one of the first of the commands running together, so that check
//     sees, and undoes, whatever such a process wrote to a protected path meanwhile.
//
// The price is one exec per command that ends alone (see BenchmarkDockerUserKill and docs/figures.md).
package sandbox

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/docker/docker/client"

	"github.com/co-cli/co/lib/protect"
	"os"
	"path/filepath"
	"strconv"
	"time"
	"unicode/utf8"
)

// Isolation says how far a command is kept from the user's machine.
type Isolation string

const (
	// Full: the command runs in a hardened container and sees only the workspace.
	Full Isolation = "full"
	// None: the command runs on this machine as the user running co.
	None Isolation = "none"
)

// Backend names, as used in Config.Backend and Selection.Backend.
const (
	BackendAuto       = "auto"
	BackendDocker     = "docker"
	BackendSubprocess = "subprocess"
)

// Fallback policies for Config.Fallback (only used with BackendAuto).
const (
	FallbackWarn  = "warn"
	FallbackError = "error"
)

// Defaults applied by New to zero fields of Config and by Run to zero fields of Options.
const (
	DefaultImage      = "co-cli-sandbox"
	DefaultNetwork    = "none"
	DefaultTimeout    = 120 * time.Second
	DefaultMaxTimeout = 10 * time.Minute
	DefaultMaxOutput  = 64 << 10
)

// ErrClosed is returned by Run after Close.
var ErrClosed = errors.New("sandbox: closed")

// ErrDockerUnavailable is wrapped by the errors New returns when the Docker backend is required
// (Backend "docker", or "auto" with Fallback "error") and Docker cannot be used.
var ErrDockerUnavailable = errors.New("Docker is not available")

// ErrImageMissing is wrapped by the errors of an engine that answers but has no sandbox image
// (Config.Image); they wrap ErrDockerUnavailable too. The message says how to build it.
var ErrImageMissing = errors.New("the sandbox image is missing")

// Options tune one Run.
type Options struct {
	// Timeout is the time the command may take; 0 means DefaultTimeout. It is capped by
	// Config.MaxTimeout and rounded up to whole seconds.
	Timeout time.Duration
	// MaxOutput is how many bytes of output are kept; 0 means DefaultMaxOutput.
	MaxOutput int
}

// Output is what a command did.
type Output struct {
	// Text is stdout and stderr interleaved, possibly truncated (head and tail kept, the
	// truncation note between them), plus the timeout note.
	Text string
	// ExitCode is the command's exit status (128+n when killed by signal n; 124 on timeout).
	ExitCode int
	// Truncated is true when output beyond MaxOutput was dropped from its middle.
	Truncated bool
	// TimedOut is true when the command was killed because it ran out of time.
	TimedOut bool
	// Duration is how long the command ran (for Docker, excluding the wait for the container).
	Duration time.Duration
	// Protected lists the changes the command made to protected paths (lib/protect), which
	// the Docker backend undid (unless an item's Failed says why not); Text ends with a note
	// saying so.
	Protected []Protected
}

// Sandbox runs shell commands somewhere. See the package documentation for the contract.
type Sandbox interface {
	Run(ctx context.Context, cmd string, opts Options) (Output, error)
	Isolation() Isolation
	Close() error
}

// Starter is implemented by backends that prepare their environment in the background ([Docker]).
// Callers use it to start the preparation, to wait for readiness and to record the preparation in
// a telemetry span.
type Starter interface {
	// Start begins preparing the environment in the background, if nothing has yet (New does
	// unless Config.Defer; the first Run does in any case). It returns at once.
	Start()
	// Pending says that a Run now would wait for the environment: it is not ready yet.
	Pending() bool
	// Ready blocks until the environment is ready (nil), failed (its error) or ctx is done. It
	// starts nothing: before Start (or the first Run) it waits for one.
	Ready(ctx context.Context) error
	// Started reports when preparation began and how long it took until the environment was
	// ready; err is [ErrNotReady] while it is still under way, or the error that made it fail.
	Started() (begin time.Time, took time.Duration, err error)
}

// ErrNotReady is returned by Starter.Started while preparation is still under way.
var ErrNotReady = errors.New("sandbox: not ready yet")

// Config chooses and configures the backend. Zero fields get the defaults noted.
type Config struct {
	Backend   string // auto (default) | docker | subprocess
	Fallback  string // warn (default) | error; only for auto
	Image     string // default co-cli-sandbox
	Workspace string // host dir mounted at /workspace; default the current directory
	// RunID is the id of this run of co (not a saved session's: two runs of one saved session
	// get two containers): the container is named co-runner-<first 8 of RunID> and labelled
	// with it whole ([LabelRun]); default random.
	RunID       string
	Network     string        // none (default) | bridge
	MemLimit    string        // e.g. "512m", "1g"; empty means no limit
	CPUs        float64       // e.g. 1.5; 0 means no limit
	MaxTimeout  time.Duration // cap on Options.Timeout; default 10 min
	GitReadOnly bool          // mount <workspace>/.git read-only (co's settings default it to true); off, the guard leaves it alone
	// InstructionFiles are the context_files names: read into the prompt beside AGENTS.md, so
	// protected like it (see lib/protect).
	InstructionFiles []string
	// Places are the home folders and co's own config and data folders (lib/protect): where
	// they are inside the workspace, the home folder's start-up and credential files are
	// protected paths, and co's own folders are mounted read-only (made first when missing).
	Places     protect.Places
	DockerHost string // e.g. unix:///var/run/docker.sock; default from DOCKER_HOST or the platform socket
	// Watch, when set, is told of each command the subprocess backend runs
	// ([Watch.BeginApproved], [Watch.EndApproved]): an unsandboxed command was approved, so
	// what it changes in protected paths while it runs is its own, and what changes after it
	// ended is not. The Docker backend's guard undoes its commands' changes instead.
	Watch *Watch
	// Defer leaves the container's creation to [Docker.Start] or the first Run, instead of New:
	// a front end starts it after its first frame, which then does not compete with it.
	Defer bool
}

// Selection reports which backend New chose.
type Selection struct {
	Backend   string    // "docker" or "subprocess"
	Isolation Isolation // Full or None
	// Warning is non-empty when co fell back to running commands unsandboxed; show it persistently.
	Warning string
}

// probeTimeout bounds the check that Docker is available.
const probeTimeout = 1500 * time.Millisecond

// New returns the sandbox chosen by cfg:
//
//	Backend     Fallback  Docker usable  Result
//	auto        warn      yes            Docker
//	auto        warn      no             Subprocess, Selection.Warning set
//	auto        error     yes            Docker
//	auto        error     no             error (wraps ErrDockerUnavailable)
//	docker      ignored   yes            Docker
//	docker      ignored   no             error (wraps ErrDockerUnavailable)
//	subprocess  ignored   ignored        Subprocess (Docker is not probed)
//
// "Docker usable" means the engine answers a ping and has cfg.Image, both checked within ~1.5 s.
// New does not wait for the container: it is created in the background (see [Docker.Ready]).
func New(ctx context.Context, cfg Config) (Sandbox, Selection, error) {
	cfg, err := normalize(cfg)
	if err != nil {
		return nil, Selection{}, err
	}
	sel, cli, err := choose(ctx, cfg)
	if err != nil {
		return nil, Selection{}, err
	}
	if sel.Backend == BackendSubprocess {
		return newSubprocess(cfg), sel, nil
	}
	return newDocker(cli, cfg), sel, nil
}

// Select reports which backend New would choose for cfg, and the error New
// would return, without creating anything: for status reports.
func Select(ctx context.Context, cfg Config) (Selection, error) {
	cfg, err := normalize(cfg)
	if err != nil {
		return Selection{}, err
	}
	sel, cli, err := choose(ctx, cfg)
	if cli != nil {
		cli.Close()
	}
	return sel, err
}

// choose applies the behaviour matrix of New. For Docker it returns the
// probed client.
func choose(ctx context.Context, cfg Config) (Selection, *client.Client, error) {
	switch cfg.Backend {
	case BackendSubprocess:
		return Selection{Backend: BackendSubprocess, Isolation: None}, nil, nil
	case BackendDocker, BackendAuto:
	default:
		return Selection{}, nil, fmt.Errorf("sandbox: unknown backend %q (want auto, docker or subprocess)", cfg.Backend)
	}
	cli, err := probeDocker(ctx, cfg)
	if err == nil {
		return Selection{Backend: BackendDocker, Isolation: Full}, cli, nil
	}
	if !errors.Is(err, ErrDockerUnavailable) {
		return Selection{}, nil, err
	}
	switch {
	case cfg.Backend == BackendDocker && errors.Is(err, ErrImageMissing):
		return Selection{}, nil, fmt.Errorf("sandbox: backend is \"docker\": %w", err)
	case cfg.Backend == BackendDocker:
		return Selection{}, nil, fmt.Errorf("sandbox: backend is \"docker\" but %w", err)
	case cfg.Fallback == FallbackError && errors.Is(err, ErrImageMissing):
		return Selection{}, nil, fmt.Errorf("sandbox: %w; the fallback policy is \"error\": refusing to run commands unsandboxed", err)
	case cfg.Fallback == FallbackError:
		return Selection{}, nil, fmt.Errorf("sandbox: %w and the fallback policy is \"error\": refusing to run commands unsandboxed", err)
	}
	return Selection{
		Backend:   BackendSubprocess,
		Isolation: None,
		Warning:   fmt.Sprintf("%s; commands run UNSANDBOXED on this machine", err),
	}, nil, nil
}

// normalize applies defaults and validates cfg.
func normalize(cfg Config) (Config, error) {
	if cfg.Backend == "" {
		cfg.Backend = BackendAuto
	}
	switch cfg.Fallback {
	case "":
		cfg.Fallback = FallbackWarn
	case FallbackWarn, FallbackError:
	default:
		return cfg, fmt.Errorf("sandbox: unknown fallback %q (want warn or error)", cfg.Fallback)
	}
	if cfg.Image == "" {
		cfg.Image = DefaultImage
	}
	switch cfg.Network {
	case "":
		cfg.Network = DefaultNetwork
	case "none", "bridge":
	default:
		return cfg, fmt.Errorf("sandbox: network %q not allowed (want none or bridge)", cfg.Network)
	}
	if cfg.MaxTimeout <= 0 {
		cfg.MaxTimeout = DefaultMaxTimeout
	}
	if cfg.CPUs < 0 {
		return cfg, fmt.Errorf("sandbox: negative CPU limit %v", cfg.CPUs)
	}
	if cfg.MemLimit != "" {
		if _, err := parseBytes(cfg.MemLimit); err != nil {
			return cfg, fmt.Errorf("sandbox: memory limit: %w", err)
		}
	}
	if cfg.Workspace == "" {
		wd, err := os.Getwd()
		if err != nil {
			return cfg, fmt.Errorf("sandbox: workspace: %w", err)
		}
		cfg.Workspace = wd
	}
	ws, err := filepath.Abs(cfg.Workspace)
	if err != nil {
		return cfg, fmt.Errorf("sandbox: workspace: %w", err)
	}
	if fi, err := os.Stat(ws); err != nil {
		return cfg, fmt.Errorf("sandbox: workspace: %w", err)
	} else if !fi.IsDir() {
		return cfg, fmt.Errorf("sandbox: workspace %s is not a directory", ws)
	}
	cfg.Workspace = ws
	if cfg.RunID == "" {
		cfg.RunID = randomHex(8)
	}
	return cfg, nil
}

// effectiveTimeout is the whole number of seconds a command gets.
func effectiveTimeout(requested, max time.Duration) int {
	if requested <= 0 {
		requested = DefaultTimeout
	}
	if requested > max {
		requested = max
	}
	return int((requested + time.Second - 1) / time.Second)
}

func maxOutput(opts Options) int {
	if opts.MaxOutput > 0 {
		return opts.MaxOutput
	}
	return DefaultMaxOutput
}

// capture is an io.Writer keeping the first quarter of max bytes written
// and the last three quarters, and counting all of them: a command's
// errors are usually at the end of what it prints (a build's failure after
// 100,000 lines of progress), its context at the start. It is not safe for
// concurrent use; each backend writes from one goroutine at a time.
type capture struct {
	max, headMax, tailMax int
	head                  []byte
	// tail holds at least the last tailMax bytes written after head
	// filled (trimmed when it grows past twice that).
	tail  []byte
	total int64
}

func newCapture(max int) *capture {
	h := max / 4
	return &capture{max: max, headMax: h, tailMax: max - h}
}

func (c *capture) Write(p []byte) (int, error) {
	c.total += int64(len(p))
	n := len(p)
	if room := c.headMax - len(c.head); room > 0 {
		k := min(room, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	if len(p) > 0 {
		c.tail = append(c.tail, p...)
		if len(c.tail) > 2*c.tailMax {
			c.tail = append(c.tail[:0:0], c.tail[len(c.tail)-c.tailMax:]...)
		}
	}
	return n, nil
}

// text renders the kept output plus the notes the contract promises, and whether it was truncated.
func (c *capture) text(timedOut bool, timeoutSecs int) (string, bool) {
	truncated := c.total > int64(c.max)
	var s string
	if !truncated {
		s = string(c.head) + string(c.tail)
	} else {
		head, tail := c.head, c.tail[max(0, len(c.tail)-c.tailMax):]
		// Do not cut a UTF-8 sequence in half: drop an incomplete last
		// rune of the head and the continuation bytes starting the tail.
		for i := 1; i <= utf8.UTFMax && i <= len(head); i++ {
			if utf8.RuneStart(head[len(head)-i]) {
				if !utf8.FullRune(head[len(head)-i:]) {
					head = head[:len(head)-i]
				}
				break
			}
		}
		for i := 0; i < utf8.UTFMax && len(tail) > 0 && !utf8.RuneStart(tail[0]); i++ {
			tail = tail[1:]
		}
		kept := len(head) + len(tail)
		note := fmt.Sprintf("[… output truncated: kept the first %d and the last %d of %d bytes; the %d between are left out …]",
			len(head), len(tail), c.total, c.total-int64(kept))
		s = appendNote(string(head), note)
		if len(tail) > 0 {
			s += "\n" + string(tail)
		}
	}
	if timedOut {
		s = appendNote(s, "[command timed out after "+strconv.Itoa(timeoutSecs)+"s]")
	}
	return s, truncated
}

func appendNote(s, note string) string {
	if s != "" && s[len(s)-1] != '\n' {
		s += "\n"
	}
	return s + note
}

func randomHex(n int) string {
	b := make([]byte, (n+1)/2)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	return hex.EncodeToString(b)[:n]
}
