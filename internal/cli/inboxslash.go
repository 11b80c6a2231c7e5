package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/internal/app"
	"github.com/co-cli/co/lib/safe"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/sessions"
	"github.com/co-cli/co/ui/present"
	"github.com/co-cli/co/ui/slash"
)

// inboxRuns is how many scheduled runs /inbox lists.
const inboxRuns = 10

// inboxArgs is how many characters of a run's answer /inbox's list shows.
const inboxArgs = 60

// inboxSlash is /inbox: what scheduled runs left (issue 29). With no
// argument, the latest runs and the calls waiting; open RUN shows a run's
// answer; approve ID switches to the run's saved session and asks about
// the call there (agent.RunWaiting); deny ID decides it without running
// anything. show, when set, renders a switched-to session's transcript
// (--plain: the full-screen chat draws it from the agent's history).
// Everything from the store is sanitised before it is shown.
func inboxSlash(a *app.App, arg string, show func([]sessions.Entry) string) slash.Result {
	if a.Sessions == nil {
		return slash.Result{Output: "the inbox is not available: sessions are not being saved in this chat", Err: true}
	}
	sub, rest, _ := strings.Cut(strings.TrimSpace(arg), " ")
	rest = strings.TrimSpace(rest)
	switch sub {
	case "", "list":
		return inboxSlashList(a)
	case "open", "show": // show: as co inbox show RUN
		return inboxOpen(a, rest)
	case "approve":
		return inboxApprove(a, rest, show)
	case "deny":
		return inboxDeny(a, rest)
	}
	return slash.Result{Output: fmt.Sprintf("unknown /inbox subcommand %q — use /inbox, /inbox open RUN, /inbox approve ID or /inbox deny ID", safe.Text(sub)), Err: true}
}

// inboxIDs are the ids of the calls waiting, for Tab.
func inboxIDs(a *app.App) []string {
	if a.Sessions == nil {
		return nil
	}
	ps, err := a.Sessions.PendingCalls(sessions.Waiting)
	if err != nil {
		return nil
	}
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = strconv.FormatInt(p.ID, 10)
	}
	return out
}

func inboxSlashList(a *app.App) slash.Result {
	runs, err := a.Sessions.ScheduledSince(time.Time{}, inboxRuns)
	if err != nil {
		return slash.Result{Output: "reading the scheduled runs: " + safe.Text(err.Error()), Err: true}
	}
	waiting, err := a.Sessions.PendingCalls(sessions.Waiting)
	if err != nil {
		return slash.Result{Output: "reading the waiting calls: " + safe.Text(err.Error()), Err: true}
	}
	// Records, not co inbox's tables: the chat wraps a line wider than
	// its pane, and a table's rows broke mid-column at 80 columns. Each
	// field is on a line of its own, so a wrapped line stays one field.
	var b strings.Builder
	if len(runs) == 0 {
		b.WriteString("No scheduled runs yet (co schedule add sets one up).\n")
	} else {
		b.WriteString("Scheduled runs, newest first:\n")
		decided, _ := a.Sessions.PendingCalls("") // unreadable: the outcomes as the runs saved them
		for _, r := range runs {
			fmt.Fprintf(&b, "• %s  %s — %s\n", r.Created.Local().Format("2006-01-02 15:04"), cell(r.Schedule), clip(runOutcome(r, decided), inboxOutcome))
			if ans := answerOf(a.Sessions, r.ID); ans != "" {
				fmt.Fprintf(&b, "    %s\n", clip(ans, inboxArgs))
			}
			fmt.Fprintf(&b, "    run %s\n", r.ID)
		}
	}
	b.WriteString("\n")
	if len(waiting) == 0 {
		b.WriteString("No call is waiting for your approval.")
	} else {
		fmt.Fprintf(&b, "%s waiting for your approval:\n", plural(len(waiting), "call"))
		for _, p := range waiting {
			fmt.Fprintf(&b, "• %d  %s — from %s, waiting since %s\n", p.ID, cell(p.Tool), cell(p.Schedule), p.Created.Local().Format("2006-01-02 15:04"))
			fmt.Fprintf(&b, "    %s\n", argsCell(p.Args, inboxArgs))
			if len(p.Untrusted) > 0 {
				fmt.Fprintf(&b, "    after untrusted content from %s\n", cell(agent.SourceList(p.Untrusted)))
			}
		}
		b.WriteString("/inbox approve ID resumes the run's session and asks you about the call there, as the chat asks; /inbox deny ID drops it.")
	}
	if len(runs) > 0 {
		b.WriteString("\n/inbox open RUN shows a run's answer.")
	}
	// What the start notice counts is now seen.
	_ = a.Sessions.Looked(time.Now())
	return slash.Result{Output: strings.TrimRight(b.String(), "\n")}
}

func inboxOpen(a *app.App, id string) slash.Result {
	if id == "" {
		return slash.Result{Output: "usage: /inbox open RUN (a run's id from /inbox; a unique prefix is enough)", Err: true}
	}
	// What co inbox show RUN prints, sanitised there.
	var b strings.Builder
	if err := inboxShow(&b, a.Sessions, id); err != nil {
		return slash.Result{Output: safe.Text(err.Error()) + " (/inbox lists the scheduled runs)", Err: true}
	}
	return slash.Result{Output: strings.TrimRight(b.String(), "\n")}
}

// pendingArg reads /inbox approve's and deny's ID.
func pendingArg(a *app.App, verb, s string) (sessions.Pending, *slash.Result) {
	id, err := strconv.ParseInt(s, 10, 64)
	if s == "" || err != nil || id <= 0 {
		return sessions.Pending{}, &slash.Result{Output: fmt.Sprintf("usage: /inbox %s ID (the number /inbox shows before a waiting call, e.g. /inbox %s 3)", verb, verb), Err: true}
	}
	p, err := a.Sessions.PendingCall(id)
	if err != nil {
		return p, &slash.Result{Output: safe.Text(err.Error()), Err: true}
	}
	if p.State != sessions.Waiting {
		return p, &slash.Result{Output: fmt.Sprintf("Call %d (%s) was already %s on %s: nothing to do.", p.ID, cell(p.Tool), p.State, p.Decided.Local().Format("2006-01-02 15:04")), Err: true}
	}
	return p, nil
}

func inboxApprove(a *app.App, arg string, show func([]sessions.Entry) string) slash.Result {
	p, bad := pendingArg(a, "approve", arg)
	if bad != nil {
		return *bad
	}
	// The call's arguments mean what they meant where the run worked (a
	// path is relative to its workspace, a command runs there): it runs
	// in a chat of that workspace only.
	info, err := a.Sessions.Find(p.SessionID)
	if err != nil {
		return slash.Result{Output: "finding the run's session: " + safe.Text(err.Error()), Err: true}
	}
	if info.Workspace != "" && a.Workspace != "" && filepath.Clean(info.Workspace) != filepath.Clean(a.Workspace) {
		return slash.Result{Output: fmt.Sprintf("Call %d was made by %s in %s, and its files and commands are there: approve it from a chat started there (cd %s && co, then /inbox approve %d). This chat works in %s.",
			p.ID, runName(p.Schedule), cell(info.Workspace), cell(shellQuote(info.Workspace)), p.ID, cell(a.Workspace)), Err: true}
	}
	// The run, in its own process, may still be writing its turn to that
	// session: the chat would resume it half-written and add to it.
	if info.Outcome == sessions.OutcomeRunning && a.Config != nil && scheduleRunGoing(a.Config.Paths.DataDir, p.Schedule) {
		return slash.Result{Output: fmt.Sprintf("Call %d's run (%s, %s) is still running: approve it once the run has ended (co schedule logs %s shows it); the call waits until then.",
			p.ID, runName(p.Schedule), p.SessionID, cell(p.Schedule)), Err: true}
	}
	var out string
	if p.SessionID != a.Agent.SessionID() {
		entries, err := a.SwitchTo(p.SessionID)
		if err != nil {
			return slash.Result{Output: "resuming the run's session: " + safe.Text(err.Error()), Err: true}
		}
		if show != nil {
			out = show(entries)
		}
	}
	out += fmt.Sprintf("Resumed the session of %s (%s) for waiting call %d.", runName(p.Schedule), p.SessionID, p.ID)
	w := waitingOf(a, p)
	return slash.Result{Output: out, Action: slash.SwitchedRun, Run: func(ctx context.Context) <-chan agent.Event {
		return a.Agent.RunWaiting(ctx, w)
	}}
}

// waitingOf is p for the agent, its decision recorded in the store.
func waitingOf(a *app.App, p sessions.Pending) agent.WaitingCall {
	return agent.WaitingCall{
		ID: p.ID, CallID: p.CallID, Tool: p.Tool, Args: p.Args, Untrusted: p.Untrusted, Schedule: p.Schedule,
		Decide: func(approved bool) error {
			st := sessions.Denied
			if approved {
				st = sessions.Approved
			}
			return a.Sessions.DecidePending(p.ID, st)
		},
	}
}

func runName(schedule string) string {
	if schedule == "" {
		return "an unattended run"
	}
	return fmt.Sprintf("the scheduled run %q", safe.Text(schedule))
}

func inboxDeny(a *app.App, arg string) slash.Result {
	p, bad := pendingArg(a, "deny", arg)
	if bad != nil {
		return *bad
	}
	current := p.SessionID == a.Agent.SessionID()
	if current && a.Agent.Busy() {
		return slash.Result{Output: "a turn of that call's session is running; cancel it first", Err: true}
	}
	if err := a.Sessions.DecidePending(p.ID, sessions.Denied); err != nil {
		return slash.Result{Output: safe.Text(err.Error()), Err: true}
	}
	note := agent.DeniedNote(p.ID, p.Tool, p.Schedule, "")
	var noteErr error
	if current {
		a.Agent.AddNote(note)
	} else {
		noteErr = noteInSession(a.Sessions, p.SessionID, note)
	}
	out := fmt.Sprintf("Denied call %d (%s): it will not run. Nothing else changed.", p.ID, present.Call(p.Tool, p.Args))
	if noteErr != nil {
		out += " (The note in its session could not be saved: " + safe.Text(noteErr.Error()) + ".)"
	}
	return slash.Result{Output: out}
}

// noteInSession saves a notice at the end of saved session id.
func noteInSession(st *sessions.Store, id, note string) error {
	rec, err := st.Resume(id)
	if err != nil {
		if errors.Is(err, sessions.ErrNotFound) {
			return nil // deleted since: nothing to note in
		}
		return err
	}
	return rec.Aside(message.Aside{Notice: note})
}

// shellQuote quotes a path for a command line to copy, when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r == '~' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
