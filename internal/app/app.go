// Package app is the container a front end runs against. New builds, from
// the loaded settings, everything one run of co uses, in one visible order:
//
//	config → saved session (picked) → telemetry → sandbox → approvals →
//	tools → hooks → agent → saved session (attached)
//
// and Close undoes it in reverse. The approvals are made knowing the
// sandbox's isolation; nothing is set afterwards. New never waits on the
// network or on Docker: the container is created in the background and the
// Ollama probe, when one is needed, runs in the background too.
//
// A command that runs no agent takes only the part it needs, opened when
// it asks (stores.go: the settings, a store; tools_cloud.go: Google's
// account), so where each file is and how it opens is decided here once.
//
// The container holds no display text: internal/cli renders what it holds.
// "Session" means one thing here: a saved conversation (package sessions).
package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/config"
	"github.com/co-cli/co/extensions"
	"github.com/co-cli/co/hooks"
	"github.com/co-cli/co/memory"
	"github.com/co-cli/co/sandbox"
	"github.com/co-cli/co/sessions"
	"github.com/co-cli/co/telemetry"
	"github.com/co-cli/co/tools"
	"github.com/co-cli/co/tools/files"
	"github.com/co-cli/co/tools/google"
	"github.com/co-cli/co/tools/mcp"
	"github.com/co-cli/co/tools/slack"
)

// App is one run of co, wired.
type App struct {
	Config *config.Loaded
	// RunID is the random id of this run of co: it names its sandbox
	// container (co-runner-…; two runs of one saved session get two) and
	// is the co.run.id of its sandbox_start span. It is never called a
	// session: a session is a saved conversation.
	RunID string
	// SessionID is the id of the saved session the run starts with (new
	// or resumed; RunID when none is saved): the session.id resource of
	// the spans. Their co.session.id follows the saved session through
	// /clear and /sessions switches (agent.Agent.SessionID), so
	// co sessions, co logs and co traces share one id.
	SessionID string
	Workspace string

	Telemetry Telemetry
	Sandbox   sandbox.Sandbox
	Selection sandbox.Selection
	Approvals *agent.Approvals
	Tools     *tools.Registry
	// Files is the workspace the file tools work in; the chat's @path
	// mentions read it too (ui/mention).
	Files *files.Workspace
	// Unconfigured are the tool families left out because their service is
	// not configured.
	Unconfigured []tools.Unconfigured
	// MCP runs the configured MCP servers; nil when none is configured
	// or the run only reports.
	MCP   *mcp.Manager
	Agent *agent.Agent
	// Extensions are the instruction files, skills and custom commands,
	// read in the background once started: by the front end (the
	// full-screen chat after its first frame), or by the first request,
	// which waits for them.
	Extensions *extensions.Loader
	extOpts    extensions.Options
	// Sessions is the store of saved sessions; nil when this run saves
	// none (ReportOnly, or a store that could not be opened).
	Sessions *sessions.Store
	// Memory is the memory store, opened on first use; nil when
	// memory_enabled is off or the run only reports.
	Memory *memory.Lazy
	// Resumed is the transcript of the saved session this run continues
	// (Options.Resume), to show; nil for a new conversation.
	Resumed []sessions.Entry

	opts     Options
	closers  []func()
	resumeID string            // the saved session to resume (openSession)
	newRec   *sessions.Session // or the new one to save into
	warnings []string          // Warnings' own
	// watch checks the protected paths around the turns and at exit (protected.go); nil in
	// report-only runs. primeWatch reads the workspace for it in the background.
	watch      *sandbox.Watch
	primeWatch func()
	// undo is the checkpoint store and the journals, opened when first
	// needed (undo.go); slack and google the cloud tools' own clients,
	// which undo deletes through (nil when not configured).
	undo   undoParts
	slack  *slack.Workspace
	google *google.Account
	// hooks are the run's hooks (hooks.go), handed to the agent.
	hooks *hooks.Set
}

// Warnings are what went wrong at start without stopping the run, beyond
// the settings' own (config.Loaded.Warnings): a store of saved sessions
// that cannot be opened for a new chat, telemetry's (an OTLP setting co
// does not support; in a report-only run, as telemetry.OTLPWarnings says
// them). Every front end shows them with the settings' warnings.
func (a *App) Warnings() []string {
	out := slices.Clone(a.warnings)
	if t := a.Telemetry.Tracing; t != nil {
		return append(out, t.Warnings()...)
	}
	if a.opts.ReportOnly {
		out = append(out, telemetry.OTLPWarnings(nil)...)
	}
	return out
}

// Options are what New needs beyond the settings.
type Options struct {
	// Version is co's version, recorded with the spans.
	Version string
	// ReportOnly builds an App that only reports (co status, co policy
	// check): it creates no container, opens no telemetry and saves no
	// session.
	ReportOnly bool
	// Resume names the saved session to continue; zero: a new one.
	Resume Resume
	// Kind is what this run is, for the saved session: sessions.Chat
	// (the zero value), sessions.Run (co run) or sessions.Scheduled (a
	// schedule's run). A new session is saved as this kind and --continue
	// continues the latest of it.
	Kind sessions.Kind
	// Schedule is the schedule's name of a sessions.Scheduled run, saved
	// with its session. Such a run needs its session store: one that
	// cannot be opened stops it (a waiting call needs somewhere to wait).
	Schedule string
}

// Resume picks the saved session a run continues.
type Resume struct {
	Latest bool   // the latest of this workspace (--continue)
	ID     string // this one; a unique prefix is enough (--resume ID)
}

// New wires one run of co from the loaded settings, in the order the
// package documents. On error, what was made is closed again.
func New(ctx context.Context, l *config.Loaded, o Options) (*App, error) {
	a := &App{Config: l, RunID: newRunID(), opts: o}
	a.SessionID = a.RunID
	done := false
	defer func() {
		if !done {
			a.Close()
		}
	}()

	// config: the settings were loaded by the caller; what derives from them.
	wd, err := WorkingDir()
	if err != nil {
		return nil, err
	}
	a.Workspace = wd
	// instructions, skills and commands: read in the background once
	// started (the front end starts it; the first request does at the
	// latest).
	a.extOpts = extensions.Options{Workspace: wd, ConfigDir: l.Paths.ConfigDir, ContextFiles: l.Settings.ContextFiles}
	a.Extensions = extensions.New(a.extOpts)
	policy, err := ShellPolicy(l.Settings)
	if err != nil {
		return nil, err
	}
	// saved session: picked now, so that the run's id (the spans' session
	// id, the container's name) is the saved session's id.
	if !o.ReportOnly {
		if err := a.openSession(o.Resume); err != nil {
			return nil, err
		}
	}
	// telemetry: no I/O here; the span store opens in the background.
	a.startTelemetry(ctx)
	// sandbox: the backend is chosen now, the container created in the
	// background.
	if err := a.startSandbox(ctx); err != nil {
		return nil, err
	}
	// approvals, knowing the isolation.
	st := l.Settings
	a.Approvals = agent.NewApprovals(agent.ApprovalOptions{
		GrantMaxUses:    st.GrantMaxUses,
		GrantTTL:        time.Duration(st.GrantTTLMinutes) * time.Minute,
		Isolated:        a.Sandbox.Isolation() == sandbox.Full,
		YoloUnsandboxed: st.YoloUnsandboxed,
		Yolo:            st.AutoConfirm,
		YoloMaxUses:     st.YoloMaxUses,
		YoloTTL:         time.Duration(st.YoloTTLMinutes) * time.Minute,
	})
	// tools
	if err := a.buildTools(policy); err != nil {
		return nil, err
	}
	a.startMCP() // the servers start after the first frame (agent.Warm)
	// hooks: the user's, and the project's once consented to.
	a.buildHooks()
	// agent
	a.Agent = agent.New(a.agentConfig(ctx))
	if !o.ReportOnly {
		a.traceSandboxStart() // its span names the saved session: after the agent
	}
	// saved session
	if !o.ReportOnly {
		if a.Resumed, err = a.attachSessions(); err != nil {
			return nil, err
		}
		// The last turn's checkpoint is recorded before co exits (co undo
		// after it sees the turn); old checkpoints pruned after it.
		a.onClose(a.closeUndo)
	}
	done = true
	return a, nil
}

// Close releases what New made, in reverse order.
func (a *App) Close() {
	for i := len(a.closers) - 1; i >= 0; i-- {
		a.closers[i]()
	}
	a.closers = nil
}

// onClose registers f to run at Close (last registered, first run).
func (a *App) onClose(f func()) { a.closers = append(a.closers, f) }

func newRunID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// WorkingDir is the workspace: the working directory.
func WorkingDir() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("cannot read the working directory: %w", err)
	}
	return wd, nil
}
