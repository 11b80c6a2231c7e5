package app

import (
	"context"
	"path/filepath"
	"sync"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/sandbox"
	"github.com/co-cli/co/tools/google"
)

// startWatch makes the second check of the protected paths (sandbox.Watch, docs/sandbox.md "Protected
// files") for the sandbox's cfg, whose protected set it shares: the agent checks with it around
// its turns, the subprocess backend marks its (approved) commands in it, ExitCheck ends it. The
// workspace is read in the background once the front end's first frame is out (primeWatch, from
// agent.Config.ToolsStart).
func (a *App) startWatch(cfg sandbox.Config) {
	p := a.Config.Paths
	a.watch = sandbox.NewWatch(cfg, []string{
		// co writes these itself during a turn: saved sessions, spans, memories, tokens.
		p.DataDir,
		filepath.Join(p.ConfigDir, google.TokenFile),
	})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var once sync.Once
	a.primeWatch = func() {
		once.Do(func() {
			wg.Add(1)
			go func() {
				defer wg.Done()
				a.watch.Prime(ctx)
			}()
		})
	}
	a.onClose(func() {
		cancel()
		once.Do(func() {}) // no priming from now on
		wg.Wait()
	})
}

// ExitCheck is the check of the protected paths when co exits: a turn still running is
// checked as before a request (undone); otherwise what changed since the last turn ended is
// left as it is (it may be the user's edit). It records what it found as a span and returns
// the warning to show ("" when nothing changed) with the paths it names. Call it before Close.
func (a *App) ExitCheck(ctx context.Context) (warning string, paths []string) {
	if a.watch == nil {
		return "", nil
	}
	cs := changes(a.watch.Exit())
	if len(cs) == 0 {
		return "", nil
	}
	for _, c := range cs {
		paths = append(paths, c.Path)
	}
	sid := a.SessionID
	if a.Agent != nil {
		sid = a.Agent.SessionID()
	}
	agent.TraceProtected(ctx, a.Telemetry.Tracer, sid, agent.CheckExit, cs)
	return agent.ProtectedNotice(agent.CheckExit, cs), paths
}

// watchAdapter is the Watch as the agent sees it.
type watchAdapter struct{ w *sandbox.Watch }

func (x watchAdapter) TurnStarted() []agent.ProtectedChange { return changes(x.w.TurnStarted()) }
func (x watchAdapter) Check() []agent.ProtectedChange       { return changes(x.w.Check()) }
func (x watchAdapter) TurnEnded() []agent.ProtectedChange   { return changes(x.w.TurnEnded()) }
func (x watchAdapter) BeginApproved()                       { x.w.BeginApproved() }
func (x watchAdapter) EndApproved()                         { x.w.EndApproved() }

func changes(ps []sandbox.Protected) []agent.ProtectedChange {
	if len(ps) == 0 {
		return nil
	}
	out := make([]agent.ProtectedChange, len(ps))
	for i, p := range ps {
		out[i] = agent.ProtectedChange{Path: p.Path, Change: p.Change, Reason: p.Reason, Files: p.Files, Failed: p.Failed}
	}
	return out
}
