package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/internal/app"
	"github.com/co-cli/co/sessions"
	"github.com/co-cli/co/ui/mention"
	"github.com/co-cli/co/ui/plain"
	"github.com/co-cli/co/ui/present"
	"github.com/co-cli/co/ui/safe"
	"github.com/co-cli/co/ui/slash"
)

// resumeFlags are --continue and --resume ID.
type resumeFlags struct {
	cont bool
	id   string
}

// resume is the saved session the flags pick.
func (f resumeFlags) resume() app.Resume { return app.Resume{Latest: f.cont, ID: f.id} }

func (f *resumeFlags) add(cmd *cobra.Command) {
	cmd.Flags().BoolVarP(&f.cont, "continue", "c", false, "continue the latest saved session of this workspace")
	cmd.Flags().StringVar(&f.id, "resume", "", "continue the saved session `ID` (a unique prefix is enough; co sessions lists them)")
	_ = cmd.RegisterFlagCompletionFunc("resume", completeSessionIDs)
}

// sessionsSlash is /sessions: the list, or a switch.
func sessionsSlash(a *app.App, arg string, show func([]sessions.Entry) string) slash.Result {
	if a.Sessions == nil {
		return slash.Result{Output: "sessions are not being saved in this chat", Err: true}
	}
	if arg == "" {
		l, err := a.Sessions.List(a.Workspace, 20)
		if err != nil {
			return slash.Result{Output: err.Error(), Err: true}
		}
		if len(l) == 0 {
			return slash.Result{Output: "no saved sessions in this workspace yet"}
		}
		return slash.Result{Output: sessionTable(l, false) + "\nType /sessions ID to switch to one."}
	}
	info, err := a.Sessions.Find(arg)
	if err != nil {
		return slash.Result{Output: err.Error(), Err: true}
	}
	entries, err := a.SwitchTo(info.ID)
	if err != nil {
		return slash.Result{Output: err.Error(), Err: true}
	}
	out := fmt.Sprintf("Switched to session %s (%s).", info.ID, cell(info.Title))
	if show != nil {
		out = show(entries) + out
	}
	return slash.Result{Output: out, Action: slash.Switched}
}

// cell is text from a saved session (a title from a prompt, a tool's name)
// made safe and kept on one line, for tables and one-line summaries.
func cell(s string) string { return present.Line(safe.Text(s)) }

func sessionTable(l []sessions.Info, withWorkspace bool) string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	head := "ID\tLAST ACTIVITY\tTURNS\tTOKENS\tTITLE"
	if withWorkspace {
		head = "ID\tWORKSPACE\tLAST ACTIVITY\tTURNS\tTOKENS\tTITLE"
	}
	fmt.Fprintln(w, head)
	for _, i := range l {
		row := []string{i.ID}
		if withWorkspace {
			row = append(row, cell(i.Workspace))
		}
		row = append(row, i.Updated.Format("2006-01-02 15:04"), fmt.Sprint(i.Turns), present.Tokens(i.InputTokens+i.OutputTokens), cell(i.Title))
		fmt.Fprintln(w, strings.Join(row, "\t"))
	}
	w.Flush()
	return strings.TrimRight(b.String(), "\n")
}

func newSessionsCmd(s env) *cobra.Command {
	var all bool
	cmd := &cobra.Command{
		Use:   "sessions",
		Short: "List saved sessions (id, workspace, title, last activity, turns, tokens)",
		Long: `co sessions lists the saved sessions of this workspace, most recent first
(--all: of every workspace). Resume one with co --resume ID or the latest with
co --continue; delete one with co sessions rm ID.`,
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
			fmt.Fprintln(s.Out, sessionTable(l, true))
			return nil
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "list the sessions of every workspace")
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
			fmt.Fprintf(&b, "result: %s %s\n", cell(f.Name), present.Outcome(f))
			if d := strings.TrimRight(present.Plain(f.Result.Display), "\n"); d != "" && f.Status != agent.CallDenied && f.Status != agent.CallInterrupted {
				fmt.Fprintf(&b, "  %s\n", strings.ReplaceAll(d, "\n", "\n  "))
			}
			continue
		}
		m := e.Message
		switch m.Role {
		case agent.RoleUser:
			if strings.HasPrefix(m.Content, agent.SummaryIntro) { // the summary is for the model
				if i == 0 || entries[i-1].Aside == nil || entries[i-1].Aside.Notice == "" { // else its saved notice was shown
					b.WriteString("note: Summarised older messages to stay within the context.\n")
				}
				continue
			}
			text, atts := mention.Split(m.Content)
			if m.Shown != "" { // /NAME ARGS, as it was typed
				text = m.Shown
			}
			fmt.Fprintf(&b, "co> %s\n", present.Plain(text))
			for _, a := range atts {
				fmt.Fprintf(&b, "%s%s\n", plain.AttachedPrefix, mention.Summary(a))
			}
		case agent.RoleAssistant:
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
		case agent.RoleTool:
			f := agent.Outcome(agent.ToolCall{ID: m.ToolCallID, Name: m.ToolName}, m)
			fmt.Fprintf(&b, "result: %s %s\n", cell(m.ToolName), present.Outcome(f))
			if d := strings.TrimRight(present.Plain(f.Result.Display), "\n"); d != "" {
				fmt.Fprintf(&b, "  %s\n", strings.ReplaceAll(d, "\n", "\n  "))
			}
		}
	}
	return b.String()
}
