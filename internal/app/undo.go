package app

import (
	"context"
	"path/filepath"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace/noop"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/checkpoint"
	"github.com/co-cli/co/config"
	"github.com/co-cli/co/journal"
	"github.com/co-cli/co/memory"
	"github.com/co-cli/co/sessions"
	"github.com/co-cli/co/telemetry"
	"github.com/co-cli/co/tools/google"
	"github.com/co-cli/co/tools/slack"
	"github.com/co-cli/co/undo"
)

// Undo (issue 41): each turn of a saved session is checkpointed (the
// workspace's files, package checkpoint) and what its tools send is
// journalled (package journal); undo.Service takes turns back. Nothing of
// it is on the path to the first frame: the checkpoint store opens on the
// first turn's Begin (in the background, overlapping the first request),
// a journal when a turn of its session first needs it. Old checkpoints
// are pruned at Close, after the last turn's checkpoint is recorded.

// JournalDir is the folder of the sessions' journals in the data dir.
func JournalDir(l *config.Loaded) string { return filepath.Join(l.Paths.DataDir, "journal") }

// CheckpointDir is the checkpoint store of workspace in the data dir.
func CheckpointDir(l *config.Loaded, workspace string) string {
	return checkpoint.DirFor(l.Paths.DataDir, workspace)
}

// undoParts are the checkpoint store and the journals of a run, opened
// lazily.
type undoParts struct {
	once sync.Once
	ckpt *checkpoint.Store
	err  error

	mu       sync.Mutex
	journals map[string]*journal.Journal
}

// checkpoints opens the workspace's checkpoint store once.
func (a *App) checkpoints() (*checkpoint.Store, error) {
	a.undo.once.Do(func() {
		a.undo.ckpt, a.undo.err = checkpoint.Open(CheckpointDir(a.Config, a.Workspace), a.Workspace, checkpoint.Options{})
	})
	return a.undo.ckpt, a.undo.err
}

// journalFor opens session's journal once; it stays open until Close (a
// /clear or a switch opens the next session's beside it).
func (a *App) journalFor(session string) (*journal.Journal, error) {
	a.undo.mu.Lock()
	defer a.undo.mu.Unlock()
	if j, ok := a.undo.journals[session]; ok {
		return j, nil
	}
	j, err := journal.Open(JournalDir(a.Config), session)
	if err != nil {
		return nil, err
	}
	if a.undo.journals == nil {
		a.undo.journals = map[string]*journal.Journal{}
	}
	a.undo.journals[session] = j
	return j, nil
}

// lazyCheckpoints is the agent's Checkpointer: the store opens on the
// first Begin, which runs off the turn's path.
type lazyCheckpoints struct{ a *App }

func (l lazyCheckpoints) Begin(id string) error {
	s, err := l.a.checkpoints()
	if err != nil {
		return err
	}
	return s.Begin(id)
}

func (l lazyCheckpoints) End(id string) (checkpoint.Summary, error) {
	s, err := l.a.checkpoints()
	if err != nil {
		return checkpoint.Summary{}, err
	}
	return s.End(id)
}

// Changes is what the running turn changed since it was last asked
// (agent's PostToolUse hooks).
// The agent asks its Checkpointer for Changes when it has this method.
var _ interface {
	Changes(id string) ([]checkpoint.Change, error)
} = lazyCheckpoints{}

func (l lazyCheckpoints) Changes(id string) ([]checkpoint.Change, error) {
	s, err := l.a.checkpoints()
	if err != nil {
		return nil, err
	}
	return s.Changes(id)
}

func (l lazyCheckpoints) Abandon(id string) {
	if s, err := l.a.checkpoints(); err == nil {
		s.Abandon(id)
	}
}

// undoConfig sets the agent's checkpoints and journal: only a run that
// saves its sessions has turn keys.
func (a *App) undoConfig(cfg *agent.Config) {
	if a.opts.ReportOnly || a.Sessions == nil {
		return
	}
	cfg.Checkpoints = lazyCheckpoints{a}
	cfg.Journal = a.journalFor
}

// closeUndo waits for the last turn's checkpoint, prunes old checkpoints
// (checkpoint.DefaultRule; only when this run opened the store: a run
// that made no turn costs nothing) and closes the journals.
func (a *App) closeUndo() {
	if a.Agent != nil {
		a.Agent.WaitCheckpoint()
	}
	if a.undo.ckpt != nil {
		_, _ = a.undo.ckpt.Prune(checkpoint.DefaultRule, time.Now())
	}
	a.undo.mu.Lock()
	defer a.undo.mu.Unlock()
	for _, j := range a.undo.journals {
		_ = j.Close()
	}
	a.undo.journals = nil
}

// registry is what takes back what a session sent: each kind through the
// client this run has for it.
func (a *App) registry() *journal.Registry {
	r := journal.NewRegistry()
	if a.Memory != nil {
		r.Memories(a.Memory.StoreContext)
	}
	if l := a.Todos(); l != nil {
		r.TodoList(l)
	}
	if v := a.Config.Settings.ObsidianVaultPath; v != "" {
		r.NotesIn(v)
	}
	if a.slack != nil {
		r.Slack(a.slack)
	}
	if a.google != nil {
		r.Gmail(a.google)
		r.Calendar(a.google)
	}
	return r
}

// Undo is the undo of the current conversation (/undo, /rewind): its
// turns, their files and what they sent. A rewind is refused while a turn
// runs, waits for the last turn's checkpoint, and after it changed the
// conversation the agent's history is loaded again from the store, so
// the next request does not hold the turns taken back. In a run that
// saves no session its methods answer undo.ErrNotSaved.
func (a *App) Undo() *undo.Service {
	if a.Sessions == nil || a.Agent == nil {
		return undo.New(undo.Config{})
	}
	id := a.Agent.SessionID()
	cfg := undo.Config{
		Sessions:  a.Sessions,
		Session:   id,
		Registry:  a.registry(),
		Tracer:    a.Telemetry.Tracer,
		Summarise: a.Agent.Summarise,
		Hold:      a.Agent.Hold,
		Changed: func() error {
			_, err := a.SwitchTo(id)
			return err
		},
	}
	if s, err := a.checkpoints(); err == nil {
		cfg.Checkpoints = s
	}
	if j, err := a.journalFor(id); err == nil {
		cfg.Journal = j
	}
	return undo.New(cfg)
}

// OpenUndo opens the undo of saved session sessionID ("": the latest chat
// of the working directory's workspace) for co undo, outside a chat. The
// conversation is changed in the store; a chat still running on the
// session keeps its own history until it is resumed. close releases what
// it opened.
func OpenUndo(l *config.Loaded, sessionID string) (*undo.Service, func(), error) {
	wd, err := WorkingDir()
	if err != nil {
		return nil, nil, err
	}
	st, err := OpenSessions(l)
	if err != nil {
		return nil, nil, err
	}
	var closers []func()
	closeAll := func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	closers = append(closers, func() { st.Close() })
	var info sessions.Info
	if sessionID == "" {
		info, err = st.Latest(wd, sessions.Chat)
	} else {
		info, err = st.Find(sessionID)
	}
	if err != nil {
		closeAll()
		return nil, nil, err
	}
	ws := info.Workspace
	if ws == "" {
		ws = wd
	}
	cfg := undo.Config{Sessions: st, Session: info.ID}
	if s, err := checkpoint.Open(CheckpointDir(l, ws), ws, checkpoint.Options{}); err == nil {
		cfg.Checkpoints = s
	}
	j, err := journal.Open(JournalDir(l), info.ID)
	if err == nil {
		cfg.Journal = j
		closers = append(closers, func() { _ = j.Close() })
	}
	// The kinds co undo can take back without a chat: Slack, Gmail,
	// Calendar, memories and notes (a todo list lives only in its chat).
	r := journal.NewRegistry()
	mem := memory.NewLazy(MemoryPath(l), memoryOptions(l))
	closers = append(closers, func() { mem.Close() })
	r.Memories(mem.StoreContext)
	if v := l.Settings.ObsidianVaultPath; v != "" {
		r.NotesIn(v)
	}
	if sc, ok := SlackConfig(l); ok {
		r.Slack(slack.NewWorkspace(sc))
	}
	if gc := GoogleConfig(l); google.Detect(gc).Configured() {
		acct := google.NewAccount(gc)
		r.Gmail(acct)
		r.Calendar(acct)
	}
	cfg.Registry = r
	// The undo is a span in the store, as in a chat.
	cfg.Tracer = noop.NewTracerProvider().Tracer("co")
	if t, err := telemetry.Setup(telemetry.Options{
		DBPath:         SpansPath(l.Paths.DataDir),
		SessionID:      info.ID,
		Secrets:        SpanSecrets(l),
		CaptureContent: l.Settings.TelemetryCaptureContent,
		Retention:      telemetry.Retention{Days: l.Settings.TelemetryRetentionDays, MaxMB: l.Settings.TelemetryMaxMB},
	}); err == nil {
		cfg.Tracer = t.Tracer()
		closers = append(closers, func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = t.Shutdown(ctx)
		})
	}
	return undo.New(cfg), closeAll, nil
}
