package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/sessions"
	"github.com/co-cli/co/ui/present"
	"github.com/co-cli/co/ui/slash"
)

// resumeFlags are --continue and --resume ID.
type resumeFlags struct {
	cont   bool
	resume string
}

func (f *resumeFlags) add(cmd *cobra.Command) {
	cmd.Flags().BoolVarP(&f.cont, "continue", "c", false, "continue the latest saved session of this workspace")
	cmd.Flags().StringVar(&f.resume, "resume", "", "continue the saved session `ID` (a unique prefix is enough; co sessions lists them)")
}

func openStore(ss *session) (*sessions.Store, error) {
	return sessions.Open(filepath.Join(ss.loaded.Paths.DataDir, sessions.FileName))
}

// attachSessions starts saving the conversation, or resumes a saved one.
// It returns the transcript to show when a session was resumed. A store
// that cannot be opened stops a resume; for a new chat it is a warning and
// the chat goes on unsaved.
func (ss *session) attachSessions(f resumeFlags, warn io.Writer) ([]sessions.Entry, error) {
	st, err := openStore(ss)
	if err != nil {
		if f.cont || f.resume != "" {
			return nil, err
		}
		fmt.Fprintf(warn, "co: warning: this conversation will not be saved: %v\n", err)
		return nil, nil
	}
	ss.store = st
	ss.closers = append(ss.closers, func() { st.Close() })
	var id string
	switch {
	case f.resume != "":
		info, err := st.Find(f.resume)
		if err != nil {
			return nil, err
		}
		id = info.ID
	case f.cont:
		info, err := st.Latest(ss.workspace)
		if err != nil {
			return nil, fmt.Errorf("%w (start one with co, or pick another with co sessions --all and co --resume ID)", err)
		}
		id = info.ID
	default:
		ss.agent.SetRecorder(st.New(ss.workspace))
		return nil, nil
	}
	return ss.switchTo(id)
}

// switchTo loads saved session id into the agent and continues saving
// into it; it returns its transcript.
func (ss *session) switchTo(id string) ([]sessions.Entry, error) {
	rec, err := ss.store.Resume(id) // repairs what a crash left first
	if err != nil {
		return nil, err
	}
	info, entries, err := ss.store.Transcript(id)
	if err != nil {
		return nil, err
	}
	_, h, err := ss.store.Load(id)
	if err != nil {
		return nil, err
	}
	ss.agent.Restore(h, agentUsage(info), info.Turns)
	ss.agent.SetRecorder(rec)
	return entries, nil
}

// newConversation saves what follows /clear as a new session.
func (ss *session) newConversation() {
	if ss.store != nil {
		ss.agent.SetRecorder(ss.store.New(ss.workspace))
	}
}

// sessionsSlash is /sessions: the list, or a switch.
func (ss *session) sessionsSlash(arg string, show func([]sessions.Entry) string) slash.Result {
	if ss.store == nil {
		return slash.Result{Output: "sessions are not being saved in this chat", Err: true}
	}
	if arg == "" {
		l, err := ss.store.List(ss.workspace, 20)
		if err != nil {
			return slash.Result{Output: err.Error(), Err: true}
		}
		if len(l) == 0 {
			return slash.Result{Output: "no saved sessions in this workspace yet"}
		}
		return slash.Result{Output: sessionTable(l, false) + "\nType /sessions ID to switch to one."}
	}
	info, err := ss.store.Find(arg)
	if err != nil {
		return slash.Result{Output: err.Error(), Err: true}
	}
	entries, err := ss.switchTo(info.ID)
	if err != nil {
		return slash.Result{Output: err.Error(), Err: true}
	}
	out := fmt.Sprintf("Switched to session %s (%s).", info.ID, info.Title)
	if show != nil {
		out = show(entries) + out
	}
	return slash.Result{Output: out, Action: slash.Switched}
}

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
			row = append(row, i.Workspace)
		}
		row = append(row, i.Updated.Format("2006-01-02 15:04"), fmt.Sprint(i.Turns), present.Tokens(i.InputTokens+i.OutputTokens), i.Title)
		fmt.Fprintln(w, strings.Join(row, "\t"))
	}
	w.Flush()
	return strings.TrimRight(b.String(), "\n")
}

func newSessionsCmd(s streams) *cobra.Command {
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
				fmt.Fprintln(s.out, "No saved sessions yet.")
				return nil
			}
			fmt.Fprintln(s.out, sessionTable(l, true))
			return nil
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "list the sessions of every workspace")
	cmd.AddCommand(&cobra.Command{
		Use:   "rm ID",
		Short: "Delete a saved session (a unique id prefix is enough)",
		Args:  usageArgs(cobra.ExactArgs(1)),
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
			fmt.Fprintf(s.out, "Deleted session %s (%s).\n", info.ID, info.Title)
			return nil
		},
	})
	return cmd
}

func storeForCommand(s streams) (*sessions.Store, string, error) {
	l, err := loadConfig(s)
	if err != nil {
		return nil, "", err
	}
	ss := &session{loaded: l}
	st, err := openStore(ss)
	if err != nil {
		return nil, "", err
	}
	ws, err := workingDir()
	return st, ws, err
}

// transcriptText renders a saved transcript for --plain, in the lines the
// live chat prints.
func transcriptText(entries []sessions.Entry) string {
	var b strings.Builder
	for _, e := range entries {
		if d := e.Decision; d != nil {
			fmt.Fprintf(&b, "approval: %s %s\n", d.Tool, d.Verdict)
			continue
		}
		m := e.Message
		switch m.Role {
		case agent.RoleUser:
			fmt.Fprintf(&b, "co> %s\n", present.Plain(m.Content))
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
			fmt.Fprintf(&b, "result: %s %s\n", m.ToolName, present.Outcome(f))
			if d := strings.TrimRight(present.Plain(f.Result.Display), "\n"); d != "" {
				fmt.Fprintf(&b, "  %s\n", strings.ReplaceAll(d, "\n", "\n  "))
			}
		}
	}
	return b.String()
}

func agentUsage(i sessions.Info) agent.Usage {
	return agent.Usage{InputTokens: i.InputTokens, OutputTokens: i.OutputTokens}
}

func workingDir() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("cannot read the working directory: %w", err)
	}
	return wd, nil
}
