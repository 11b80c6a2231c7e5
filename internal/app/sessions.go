package app

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/sessions"
	"github.com/co-cli/co/tools/todo"
)

// openSession opens the store of saved sessions and picks the session this
// run saves into: a new one, or the one to resume. It runs before
// telemetry, so the run's id is the saved session's id (one id for co
// sessions, co logs and co traces). A store that cannot be opened stops a
// resume; for a new chat it is a warning and the chat goes on unsaved.
func (a *App) openSession(r Resume) error {
	if r.ID == "" && !r.Latest && a.kind() == sessions.Chat {
		// A new chat: the file is opened at its first use, after the
		// first frame (the start notes read the inbox; issue 44). A file
		// that cannot be opened is said then (Inbox).
		st := sessions.OpenLater(SessionsPath(a.Config))
		a.Sessions = st
		a.onClose(func() { st.Close() })
		a.newRec = st.NewKind(a.Workspace, a.kind())
		a.SessionID = a.newRec.ID()
		return nil
	}
	st, err := OpenSessions(a.Config)
	if err != nil {
		if r.Latest || r.ID != "" || a.kind() == sessions.Scheduled {
			return err
		}
		a.warnings = append(a.warnings, fmt.Sprintf("this conversation will not be saved: %v", err))
		return nil
	}
	a.Sessions = st
	a.onClose(func() { st.Close() })
	switch {
	case r.ID != "":
		info, err := st.Find(r.ID)
		if err != nil {
			return err
		}
		a.resumeID = info.ID
	case r.Latest:
		// The chat continues the latest chat, co run the latest co run
		// (issue 27): a script's co run never becomes the chat's
		// --continue. --resume ID takes either.
		info, err := st.Latest(a.Workspace, a.kind())
		if err != nil {
			return fmt.Errorf("%w%s", err, continueHint(st, a.Workspace, a.kind()))
		}
		a.resumeID = info.ID
	case a.kind() == sessions.Scheduled:
		if a.opts.Schedule == "" {
			return fmt.Errorf("a scheduled run needs its schedule's name (app.Options.Schedule)")
		}
		a.newRec = st.NewScheduled(a.Workspace, a.opts.Schedule)
		a.SessionID = a.newRec.ID()
		// Saved at once, not with its first message: a run that fails
		// before it (no provider) is in co inbox all the same.
		return a.newRec.SetOutcome(sessions.OutcomeRunning)
	default:
		a.newRec = st.NewKind(a.Workspace, a.kind())
		a.SessionID = a.newRec.ID()
		return nil
	}
	a.SessionID = a.resumeID
	return nil
}

// attachSessions starts saving the conversation into the session
// openSession picked, or resumes it. It returns the transcript to show
// when a session was resumed.
func (a *App) attachSessions() ([]sessions.Entry, error) {
	switch {
	case a.resumeID != "":
		return a.SwitchTo(a.resumeID)
	case a.newRec != nil:
		a.Agent.SetRecorder(a.newRec)
	}
	return nil, nil
}

// SwitchTo loads saved session id into the agent and continues saving
// into it; it returns its transcript. The agent starts from the history
// as the session's last saved compaction left it (no summary of every
// saved message before the next turn) and shows every saved message.
func (a *App) SwitchTo(id string) ([]sessions.Entry, error) {
	rec, err := a.Sessions.Resume(id) // repairs what a crash left first
	if err != nil {
		return nil, err
	}
	r, err := a.Sessions.LoadResume(id)
	if err != nil {
		return nil, err
	}
	info := r.Info
	a.Agent.Restore(r.History, info.Usage(), info.Turns)
	a.Agent.RestoreAsides(r.Asides)
	if r.Compacted {
		a.Agent.RestoreShown(r.All, r.AllAsides)
	}
	a.Agent.SetRecorder(rec)
	a.replayTodos(r.All) // the calls a summary replaced changed the list too
	return r.Entries, nil
}

// replayTodos rebuilds the todo list of a resumed conversation: the todo
// tools keep it in memory only, so the calls that changed it, as saved,
// run again in order on an emptied list. Only calls that succeeded count.
func (a *App) replayTodos(h []message.Message) {
	list := todo.Find(a.Tools)
	if list == nil {
		return
	}
	list.Clear(false)
	for i, m := range h {
		for _, c := range m.ToolCalls {
			if !strings.HasPrefix(c.Name, "todo_") || c.Name == "todo_list" {
				continue
			}
			t, ok := a.Tools.Get(c.Name)
			r, _ := message.ResultOf(h, i, c.ID)
			if !ok || agent.Outcome(c, r).Status != message.CallDone {
				continue
			}
			_, _ = t.Run(context.Background(), json.RawMessage(c.Args))
		}
	}
}

// NewConversation saves what follows /clear as a new session.
func (a *App) NewConversation() {
	if a.Sessions != nil {
		a.Agent.SetRecorder(a.Sessions.NewKind(a.Workspace, a.kind()))
	}
}

// kind is what this run saves its sessions as.
func (a *App) kind() sessions.Kind {
	if a.opts.Kind == "" {
		return sessions.Chat
	}
	return a.opts.Kind
}

// continueHint says how to go on when --continue finds no session of the
// run's kind: the latest of the other kind, if there is one, by its id.
func continueHint(st *sessions.Store, ws string, k sessions.Kind) string {
	other, cmd, otherName := sessions.Run, "co --resume", "co run"
	if k == sessions.Run {
		other, cmd, otherName = sessions.Chat, "co run --resume", "the chat"
	}
	if info, err := st.Latest(ws, other); err == nil {
		return fmt.Sprintf(" (the latest session of %s here is %s: %s %s continues it)", otherName, info.ID, cmd, info.ID)
	}
	if k == sessions.Run {
		return " (start one with co run PROMPT, or pick another with co sessions --all and co run --resume ID)"
	}
	return " (start one with co, or pick another with co sessions --all and co --resume ID)"
}

// InboxNews is what scheduled runs left that the user was not told of
// yet: the runs since co last said (the start notice, co inbox, /inbox),
// and every call still waiting for approval.
type InboxNews struct {
	Runs    int
	Failed  int // of Runs, those that failed
	Waiting int
}

// Inbox says what scheduled runs left since the user was last told, for
// the chat's start notice, and marks those runs told (sessions.Store.
// Noticed): the next start does not count them again, though co inbox
// lists them until the user looks. Waiting calls count until decided.
// Zero when no session store is open; an error of the store is a warning.
func (a *App) Inbox() InboxNews {
	if a.Sessions == nil {
		return InboxNews{}
	}
	if err := a.Sessions.Ready(); err != nil {
		// A new chat's store opens here (openSession): as when it is
		// opened at the start, the chat goes on without saving.
		a.warnings = append(a.warnings, fmt.Sprintf("this conversation will not be saved: %v", err))
		if a.Agent != nil && a.newRec != nil {
			a.Agent.SetRecorder(nil)
		}
		return InboxNews{}
	}
	now := time.Now()
	since, err := a.Sessions.LastNoticed()
	if err != nil {
		a.warnings = append(a.warnings, fmt.Sprintf("the inbox of scheduled runs could not be read: %v", err))
		return InboxNews{}
	}
	var n InboxNews
	runs, err := a.Sessions.ScheduledSince(since, 0)
	if err == nil {
		for _, r := range runs {
			if !r.Created.After(now) { // one that started meanwhile is told next time
				n.Runs++
				if strings.HasPrefix(r.Outcome, "failed") {
					n.Failed++
				}
			}
		}
		err = a.Sessions.Noticed(now)
	}
	if err == nil {
		var w []sessions.Pending
		w, err = a.Sessions.PendingCalls(sessions.Waiting)
		n.Waiting = len(w)
	}
	if err != nil {
		a.warnings = append(a.warnings, fmt.Sprintf("the inbox of scheduled runs could not be read: %v", err))
	}
	return n
}
