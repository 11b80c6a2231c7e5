package app

import (
	"path/filepath"

	"go.opentelemetry.io/otel/trace"

	"github.com/co-cli/co/config"
	"github.com/co-cli/co/hooks"
)

// HooksTrustPath is the file that records the user's consent to projects'
// hooks, in the data directory beside mcp-trust.json.
func HooksTrustPath(l *config.Loaded) string {
	return filepath.Join(l.Paths.DataDir, "hooks-trust.json")
}

// hooksProject is the project whose hooks the project file holds: the
// folder of its .co-cli (the workspace).
func hooksProject(l *config.Loaded) string {
	p, _ := filepath.Abs(filepath.Dir(filepath.Dir(l.Paths.ProjectFile)))
	return p
}

// NewHooks makes the hooks in force for a run from the settings: the
// user's, and the project's, which run only when the user has consented
// to them as they are now (hooks.Trust). session gives the run's session
// id as it becomes known; tracer may be nil.
func NewHooks(l *config.Loaded, session func() string, tracer trace.Tracer) *hooks.Set {
	project := hooksProject(l)
	trusted := !l.ProjectHooks.Empty() && hooks.NewTrust(HooksTrustPath(l)).Trusted(project, l.ProjectHooks)
	return hooks.NewSet(hooks.Options{
		User:           l.Settings.Hooks,
		UserFile:       l.Paths.UserFile,
		Project:        l.ProjectHooks,
		ProjectFile:    l.ProjectHooksFile,
		ProjectTrusted: trusted,
		Dir:            project,
		Session:        session,
		Tracer:         tracer,
	})
}

// TrustHooks records the user's consent to the project's hooks as loaded
// in l, and the project files they name as they are now, so later runs
// run them; set, when given, runs them from now on in this run.
func TrustHooks(l *config.Loaded, set *hooks.Set) error {
	if err := hooks.NewTrust(HooksTrustPath(l)).Grant(hooksProject(l), l.ProjectHooks); err != nil {
		return err
	}
	set.TrustProject()
	return nil
}

// Hooks are the run's hooks (agent.Config.Hooks): what /hooks lists.
func (a *App) Hooks() *hooks.Set { return a.hooks }

// TrustHooks records the user's consent to the project's hooks and runs
// them from now on in this run (/hooks trust).
func (a *App) TrustHooks() error { return TrustHooks(a.Config, a.hooks) }

// buildHooks makes the run's hooks, before the agent that runs them: the
// session id is asked of the agent at each run (a chat's follows /clear
// and /sessions).
func (a *App) buildHooks() {
	a.hooks = NewHooks(a.Config, func() string {
		if a.Agent != nil {
			return a.Agent.SessionID()
		}
		return a.SessionID
	}, a.Telemetry.Tracer)
}
