package app

import (
	"fmt"
	"path/filepath"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/config"
	"github.com/co-cli/co/sessions"
)

// OpenSessions opens the store of saved sessions in the data dir.
func OpenSessions(l *config.Loaded) (*sessions.Store, error) {
	return sessions.Open(filepath.Join(l.Paths.DataDir, sessions.FileName))
}

// attachSessions starts saving the conversation, or resumes a saved one.
// It returns the transcript to show when a session was resumed. A store
// that cannot be opened stops a resume; for a new chat it is a warning and
// the chat goes on unsaved.
func (a *App) attachSessions(r Resume) ([]sessions.Entry, error) {
	st, err := OpenSessions(a.Config)
	if err != nil {
		if r.Latest || r.ID != "" {
			return nil, err
		}
		if a.opts.Warnings != nil {
			fmt.Fprintf(a.opts.Warnings, "co: warning: this conversation will not be saved: %v\n", err)
		}
		return nil, nil
	}
	a.Sessions = st
	a.onClose(func() { st.Close() })
	var id string
	switch {
	case r.ID != "":
		info, err := st.Find(r.ID)
		if err != nil {
			return nil, err
		}
		id = info.ID
	case r.Latest:
		info, err := st.Latest(a.Workspace)
		if err != nil {
			return nil, fmt.Errorf("%w (start one with co, or pick another with co sessions --all and co --resume ID)", err)
		}
		id = info.ID
	default:
		a.Agent.SetRecorder(st.New(a.Workspace))
		return nil, nil
	}
	return a.SwitchTo(id)
}

// SwitchTo loads saved session id into the agent and continues saving
// into it; it returns its transcript.
func (a *App) SwitchTo(id string) ([]sessions.Entry, error) {
	rec, err := a.Sessions.Resume(id) // repairs what a crash left first
	if err != nil {
		return nil, err
	}
	info, entries, err := a.Sessions.Transcript(id)
	if err != nil {
		return nil, err
	}
	_, h, err := a.Sessions.Load(id)
	if err != nil {
		return nil, err
	}
	a.Agent.Restore(h, agent.Usage{InputTokens: info.InputTokens, OutputTokens: info.OutputTokens}, info.Turns)
	a.Agent.SetRecorder(rec)
	return entries, nil
}

// NewConversation saves what follows /clear as a new session.
func (a *App) NewConversation() {
	if a.Sessions != nil {
		a.Agent.SetRecorder(a.Sessions.New(a.Workspace))
	}
}
