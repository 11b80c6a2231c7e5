package cli

import (
	"fmt"
	"github.com/co-cli/co/lib/cost"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/internal/app"
	"github.com/co-cli/co/lib/safe"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/sessions"
	"github.com/co-cli/co/ui/mention"
	"github.com/co-cli/co/ui/plain"
	"github.com/co-cli/co/ui/present"
	"github.com/co-cli/co/ui/slash"
)

// resumeFlags are --continue and --resume ID.
type resumeFlags struct {
	cont bool
	id   string
}

// resume is the saved session the flags pick.
func (f resumeFlags) resume() app.Resume { return app.Resume{Latest: f.cont, ID: f.id} }

// add adds the flags to cmd, the chat's (run false) or co run's.
func (f *resumeFlags) add(cmd *cobra.Command, run bool) {
	cont := "continue the latest chat session of this workspace (not a co run's: --resume ID takes any)"
	if run {
		cont = "continue the latest co run session of this workspace (not the chat's: --resume ID takes any)"
	}
	cmd.Flags().BoolVarP(&f.cont, "continue", "c", false, cont)
	cmd.Flags().StringVar(&f.id, "resume", "", "continue the saved session `ID` (a unique prefix is enough; co sessions lists them)")
	_ = cmd.RegisterFlagCompletionFunc("resume", completeSessionIDs)
}

// sessionsSlash is /sessions: the list, or a switch. The list is the
// chat's sessions of this workspace (/sessions all: co run's too, marked),
// the current one marked "*"; the switch says one line (issue 27).
func sessionsSlash(a *app.App, arg string, show func([]sessions.Entry) string) slash.Result {
	if a.Sessions == nil {
		return slash.Result{Output: "sessions are not being saved in this chat", Err: true}
	}
	arg = strings.TrimSpace(arg)
	if arg == "" || arg == "all" {
		return sessionsList(a, arg == "all")
	}
	info, err := a.Sessions.Find(arg)
	if err != nil {
		return slash.Result{Output: err.Error(), Err: true}
	}
	if info.ID == a.Agent.SessionID() {
		return slash.Result{Output: fmt.Sprintf("Session %s (%s) is the one this chat is in.", info.ID, cell(info.Title))}
	}
	entries, err := a.SwitchTo(info.ID)
	if err != nil {
		return slash.Result{Output: err.Error(), Err: true}
	}
	out := fmt.Sprintf("Switched to %s %s (%s); type to continue.", kindNote(info.Kind), info.ID, cell(info.Title))
	if show != nil {
		out = show(entries) + out
	}
	return slash.Result{Output: out, Action: slash.Switched}
}

// sessionsListLimit is how many sessions /sessions lists.
const sessionsListLimit = 20

func sessionsList(a *app.App, all bool) slash.Result {
	kind := sessions.Chat
	if all {
		kind = ""
	}
	l, err := a.Sessions.ListKind(a.Workspace, kind, sessionsListLimit)
	if err != nil {
		return slash.Result{Output: err.Error(), Err: true}
	}
	cur := a.Agent.SessionID()
	// The current session is listed even when it is co run's (resumed
	// with --resume) or older than the last twenty.
	if cur != "" && !slices.ContainsFunc(l, func(i sessions.Info) bool { return i.ID == cur }) {
		if i, err := a.Sessions.Find(cur); err == nil && i.ID == cur {
			l = append(l, i)
			slices.SortStableFunc(l, func(x, y sessions.Info) int { return y.Updated.Compare(x.Updated) })
		}
	}
	var b strings.Builder
	if len(l) == 0 {
		b.WriteString("No saved chat sessions in this workspace yet.")
	} else {
		b.WriteString(sessionTable(l, false, cur))
	}
	saved := slices.ContainsFunc(l, func(i sessions.Info) bool { return i.ID == cur })
	switch {
	case saved:
		b.WriteString("\n* is this chat's session.")
	case len(l) > 0:
		b.WriteString("\nThis chat is not saved yet: it is once you send a message.")
	}
	if !all {
		if runs, err := a.Sessions.ListKind(a.Workspace, sessions.Run, 0); err == nil {
			n := 0
			for _, r := range runs {
				if r.ID != cur {
					n++
				}
			}
			if n > 0 {
				are := "are"
				if n == 1 {
					are = "is"
				}
				fmt.Fprintf(&b, "\n%s saved by co run %s not listed: /sessions all lists them too.", plural(n, "session"), are)
			}
		}
	}
	if len(l) > 0 {
		b.WriteString("\nType /sessions ID to switch to one.")
	}
	return slash.Result{Output: b.String()}
}

// kindNote names a session by its kind, for the line a switch prints.
func kindNote(k sessions.Kind) string {
	switch k {
	case sessions.Run:
		return "co run's session"
	case sessions.Scheduled:
		return "scheduled run's session"
	}
	return "session"
}

// fromColumn is what started a session, for the FROM column: chat,
// co run, or scheduled: NAME (a schedule's run, issue 29).
func fromColumn(i sessions.Info) string {
	switch i.Kind {
	case sessions.Run:
		return "co run"
	case sessions.Scheduled:
		return "scheduled: " + cell(i.Schedule)
	}
	return "chat"
}

// cell is text from a saved session (a title from a prompt, a tool's name)
// made safe and kept on one line, for tables and one-line summaries.
func cell(s string) string { return present.Line(safe.Text(s)) }

// sessionTable lays out saved sessions; current, if not "", is marked "*"
// (the chat's /sessions).
func sessionTable(l []sessions.Info, withWorkspace bool, current string) string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	head := "ID\tLAST ACTIVITY\tTURNS\tTOKENS\tCOST\tFROM\tTITLE"
	if withWorkspace {
		head = "ID\tWORKSPACE\tLAST ACTIVITY\tTURNS\tTOKENS\tCOST\tFROM\tTITLE"
	}
	if current != "" {
		head = "  " + head
	}
	fmt.Fprintln(w, head)
	for _, i := range l {
		id := i.ID
		if current != "" {
			mark := "  "
			if i.ID == current {
				mark = "* "
			}
			id = mark + id
		}
		row := []string{id}
		if withWorkspace {
			row = append(row, cell(i.Workspace))
		}
		from := fromColumn(i)
		row = append(row, i.Updated.Format("2006-01-02 15:04"), turnsCell(i), present.Tokens(i.InputTokens+i.OutputTokens), costCell(i.Usage()), from, cell(i.Title))
		fmt.Fprintln(w, strings.Join(row, "\t"))
	}
	w.Flush()
	return strings.TrimRight(b.String(), "\n")
}

// costCell is the COST column: what the session cost in US dollars
// (lib/cost), "?" when a model it used has no known price, and "+" after
// the priced part when only some calls had one.
func costCell(u message.Usage) string {
	switch {
	case u.Unpriced == "":
		return cost.Format(u.Cost)
	case u.Cost == 0:
		return "?"
	}
	return cost.Format(u.Cost) + "+"
}

// turnsCell is the TURNS column: the turns in the conversation, and how
// many an undo took out ("5 (2 undone)").
func turnsCell(i sessions.Info) string {
	if i.Undone == 0 {
		return fmt.Sprint(i.Turns)
	}
	return fmt.Sprintf("%d (%d undone)", i.Turns, i.Undone)
}

func newSessionsCmd(s env) *cobra.Command {
	var all bool
	cmd := &cobra.Command{
		Use:   "sessions",
		Short: "List saved sessions (id, workspace, title, last activity, turns, tokens)",
		Long: `co sessions lists the saved sessions of this workspace, most recent first
(--all: of every workspace). Resume one with co --resume ID or the latest with
co --continue; delete one with co sessions rm ID; write one as Markdown, JSON or
HTML with co sessions export ID, and save an exported JSON file as a new
session with co sessions import FILE.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(*cobra.Command, []string) error {
			st, ws, err := storeForCommand(s)
			if err != nil {
				return err
			}
			defer st.Close()
			if all {
				ws = ""
			}
			l, err := st.List(ws, 0)
			if err != nil {
				return err
			}
			if len(l) == 0 {
				fmt.Fprintln(s.Out, "No saved sessions yet.")
				return nil
			}
			fmt.Fprintln(s.Out, sessionTable(l, true, ""))
			return nil
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "list the sessions of every workspace")
	cmd.AddCommand(newSessionsExportCmd(s), newSessionsImportCmd(s))
	cmd.AddCommand(&cobra.Command{
		Use:   "rm ID",
		Short: "Delete a saved session (a unique id prefix is enough)",
		Args:  usageArgs(cobra.ExactArgs(1)),
		// Tab completes the ids, with each session's title.
		ValidArgsFunction: oneArg(completeSessionIDs),
		RunE: func(_ *cobra.Command, args []string) error {
			st, _, err := storeForCommand(s)
			if err != nil {
				return err
			}
			defer st.Close()
			info, err := st.Find(args[0])
			if err != nil {
				return err
			}
			if err := st.Delete(info.ID); err != nil {
				return err
			}
			fmt.Fprintf(s.Out, "Deleted session %s (%s).\n", info.ID, info.Title)
			return nil
		},
	})
	return cmd
}

func storeForCommand(s env) (*sessions.Store, string, error) {
	l, err := loadConfig(s)
	if err != nil {
		return nil, "", err
	}
	st, err := app.OpenSessions(l)
	if err != nil {
		return nil, "", err
	}
	ws, err := app.WorkingDir()
	return st, ws, err
}

// transcriptText renders a saved transcript for --plain, in the lines the
// live chat prints.
func transcriptText(entries []sessions.Entry) string {
	var b strings.Builder
	for i, e := range entries {
		if d := e.Decision; d != nil {
			fmt.Fprintf(&b, "approval: %s %s\n", cell(d.Tool), cell(string(d.Verdict)))
			continue
		}
		if x := e.Aside; x != nil {
			if x.Bang == nil {
				fmt.Fprintf(&b, "note: %s\n", present.Plain(x.Notice))
				continue
			}
			// As the live chat printed it: the line typed, the call, its outcome.
			f := x.Bang.Finished
			fmt.Fprintf(&b, "co> !%s\n", present.Plain(present.BangCommand(x.Bang.Args)))
			fmt.Fprintf(&b, "tool: %s\n", present.Call(f.Name, x.Bang.Args))
			fmt.Fprintf(&b, "result: %s %s\n", cell(f.Name), present.Outcome(agent.ToolCallFinished(f)))
			if d := strings.TrimRight(present.Plain(f.Result.Display), "\n"); d != "" && f.Status != message.CallDenied && f.Status != message.CallInterrupted {
				fmt.Fprintf(&b, "  %s\n", strings.ReplaceAll(d, "\n", "\n  "))
			}
			continue
		}
		m := e.Message
		switch m.Role {
		case message.RoleUser:
			if strings.HasPrefix(m.Content, agent.SummaryIntro) { // the summary is for the model
				if i == 0 || entries[i-1].Aside == nil || entries[i-1].Aside.Notice == "" { // else its saved notice was shown
					b.WriteString("note: Summarised older messages to stay within the context.\n")
				}
				continue
			}
			text, piped, isPiped := message.SplitPiped(m.Content)
			text, atts := mention.Split(text)
			if m.Shown != "" { // /NAME ARGS, as it was typed
				text = m.Shown
			}
			// A turn an undo took out, or a summary replaced, stays in the
			// transcript with its mark (its steps follow, as saved).
			mark := ""
			if e.Undone != "" {
				mark = " — " + cell(e.Undone)
			}
			fmt.Fprintf(&b, "co> %s%s\n", present.Plain(text), mark)
			for _, a := range atts {
				fmt.Fprintf(&b, "%s%s\n", plain.AttachedPrefix, mention.Summary(a))
			}
			for _, a := range m.Attachments {
				fmt.Fprintf(&b, "%s%s\n", plain.AttachedPrefix, mention.MediaSummary(a))
			}
			if isPiped { // its size and mark only, never its text
				fmt.Fprintf(&b, "%s%s\n", plain.AttachedPrefix, piped.Summary())
			}
		case message.RoleAssistant:
			if m.Content != "" {
				b.WriteString(present.Plain(m.Content))
				if m.Interrupted {
					b.WriteString(" [interrupted]")
				}
				b.WriteString("\n")
			}
			for _, c := range m.ToolCalls {
				fmt.Fprintf(&b, "tool: %s\n", present.Call(c.Name, c.Args))
			}
		case message.RoleTool:
			f := agent.Outcome(message.ToolCall{ID: m.ToolCallID, Name: m.ToolName}, m)
			fmt.Fprintf(&b, "result: %s %s\n", cell(m.ToolName), present.Outcome(f))
			if d := strings.TrimRight(present.Plain(f.Result.Display), "\n"); d != "" {
				fmt.Fprintf(&b, "  %s\n", strings.ReplaceAll(d, "\n", "\n  "))
			}
		}
	}
	return b.String()
}
