package app

import (
	"path/filepath"

	"github.com/co-cli/co/config"
	"github.com/co-cli/co/memory"
	"github.com/co-cli/co/sessions"
	"github.com/co-cli/co/telemetry"
	"github.com/co-cli/co/tools/todo"
)

// The stores a command opens without a whole run of co (co sessions, co
// memory, co inbox, co tail, shell completion): where each file is and
// how it is opened is decided here only, for those commands and for New.

// SessionsPath is the store of saved sessions' file in the data dir.
func SessionsPath(l *config.Loaded) string {
	return filepath.Join(l.Paths.DataDir, sessions.FileName)
}

// OpenSessions opens the store of saved sessions in the data dir.
func OpenSessions(l *config.Loaded) (*sessions.Store, error) {
	return sessions.Open(SessionsPath(l))
}

// MemoryPath is the memory store's file in the data dir.
func MemoryPath(l *config.Loaded) string {
	return filepath.Join(l.Paths.DataDir, memory.FileName)
}

// memoryOptions are the memory store's options: the configured secrets
// are kept out of what it saves.
func memoryOptions(l *config.Loaded) memory.Options {
	return memory.Options{Secrets: l.Settings.Secrets()}
}

// OpenMemory opens the memory store at once (co memory, completion); a
// run of co opens it on first use (App.Memory).
func OpenMemory(l *config.Loaded) (*memory.Store, error) {
	return memory.Open(MemoryPath(l), memoryOptions(l))
}

// DataDir is co's data dir (XDG honoured), found without loading the
// settings: co tail, co traces and co logs need nothing else.
func DataDir() (string, error) {
	p, err := config.ResolvePaths(config.LoadOptions{})
	if err != nil {
		return "", err
	}
	return p.DataDir, nil
}

// SpansPath is the span store's file in dataDir.
func SpansPath(dataDir string) string { return telemetry.DBPath(dataDir) }

// OpenSpans opens the span store of dataDir for reading (co tail, co
// traces, co logs, co status): it never creates the file.
func OpenSpans(dataDir string) *telemetry.Store {
	return telemetry.OpenStore(SpansPath(dataDir))
}

// Todos is the run's todo list (the todo tools' state), for the chat's
// side panel; nil when the run has no todo tools.
func (a *App) Todos() *todo.List { return todo.Find(a.Tools) }

// LoadSettings loads the settings a run of co sees: defaults, the user
// file, the project file, the environment. With partial, a malformed
// file or a wrong value is left out and said in Loaded.Problems instead
// of failing, for the commands that report on the settings (co status,
// co config); l is then nil only when nothing could be loaded.
func LoadSettings(partial bool) (l *config.Loaded, err error) {
	return config.Load(config.LoadOptions{Partial: partial})
}
