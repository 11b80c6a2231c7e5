package cli

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/lib/safe"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/sessions"
	"github.com/co-cli/co/ui/present"
)

// inboxOutcome is how many characters of a run's outcome the lists show
// (a failure's whole message is in co inbox show RUN).
const inboxOutcome = 48

// inboxAllLimit is how many runs co inbox --all lists.
const inboxAllLimit = 100

func newInboxCmd(s env) *cobra.Command {
	var all bool
	cmd := &cobra.Command{
		Use:   "inbox",
		Short: "What scheduled runs left: their answers and the calls waiting for your approval",
		Long: `co inbox lists the scheduled runs since you last looked (when, which schedule,
how it ended, the first line of its answer, the run's session id) and every
call a scheduled run kept waiting for your approval (its id, tool, arguments,
schedule and the untrusted content the run had read before it). --all lists
older runs too. Listing marks the runs as seen: the next co inbox, and the
chat's start notice, count only newer ones.

co inbox show RUN prints a run's answer (RUN: its session id or a unique
prefix of it) and the calls it left waiting.

co inbox never approves anything: approve a waiting call in the chat with
/inbox approve ID, which shows it in the approval dialog first. A scheduled
run's whole conversation is a saved session: co --resume RUN opens it.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(*cobra.Command, []string) error {
			st, _, err := storeForCommand(s)
			if err != nil {
				return err
			}
			defer st.Close()
			return inboxList(s.Out, st, all, time.Now())
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, fmt.Sprintf("list older runs too (the latest %d)", inboxAllLimit))
	cmd.AddCommand(&cobra.Command{
		Use:   "show RUN",
		Short: "Print a scheduled run's answer and the calls it left waiting",
		Args:  usageArgs(cobra.ExactArgs(1)),
		// Tab completes the session ids, a schedule's runs marked.
		ValidArgsFunction: oneArg(completeSessionIDs),
		RunE: func(_ *cobra.Command, args []string) error {
			st, _, err := storeForCommand(s)
			if err != nil {
				return err
			}
			defer st.Close()
			return inboxShow(s.Out, st, args[0])
		},
	})
	return cmd
}

// inboxList prints the runs since the user last looked (all: the latest
// inboxAllLimit) and the waiting calls, then marks the runs seen as of now.
func inboxList(out io.Writer, st *sessions.Store, all bool, now time.Time) error {
	since, err := st.LastLooked()
	if err != nil {
		return err
	}
	var runs []sessions.Info
	if all {
		runs, err = st.ScheduledSince(time.Time{}, inboxAllLimit)
	} else {
		runs, err = st.ScheduledSince(since, 0)
	}
	if err != nil {
		return err
	}
	waiting, err := st.PendingCalls(sessions.Waiting)
	if err != nil {
		return err
	}
	var b strings.Builder
	switch {
	case len(runs) == 0 && all:
		b.WriteString("No scheduled runs yet.\n")
	case len(runs) == 0 && since.IsZero():
		b.WriteString("No scheduled runs yet.\n")
	case len(runs) == 0:
		fmt.Fprintf(&b, "No scheduled runs since you last looked (%s); co inbox --all lists older ones.\n", since.Local().Format("2006-01-02 15:04"))
	default:
		if all {
			b.WriteString("Scheduled runs, newest first:\n")
		} else {
			b.WriteString("Scheduled runs since you last looked:\n")
		}
		w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(w, "WHEN\tSCHEDULE\tOUTCOME\tCOST\tANSWER\tRUN")
		decided, err := st.PendingCalls("")
		if err != nil {
			return err
		}
		for _, r := range runs {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", r.Created.Local().Format("2006-01-02 15:04"), cell(r.Schedule), clip(runOutcome(r, decided), inboxOutcome), costCell(r.Usage()), clip(answerOf(st, r.ID), 60), r.ID)
		}
		w.Flush()
		b.WriteString("co inbox show RUN prints a run's answer.\n")
	}
	b.WriteString("\n")
	if len(waiting) == 0 {
		b.WriteString("No call is waiting for your approval.\n")
	} else {
		b.WriteString(waitingTable(waiting))
		fmt.Fprintf(&b, "Approve it in the chat: /inbox approve ID (co inbox never approves).\n")
	}
	if _, err := io.WriteString(out, b.String()); err != nil {
		return err
	}
	return st.Looked(now)
}

// waitingTable lays out calls waiting for approval, with a heading.
func waitingTable(waiting []sessions.Pending) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s waiting for your approval:\n", plural(len(waiting), "call"))
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tTOOL\tARGUMENTS\tSCHEDULE\tWAITING SINCE\tUNTRUSTED SOURCES")
	for _, p := range waiting {
		untrusted := "none"
		if len(p.Untrusted) > 0 {
			untrusted = agent.SourceList(p.Untrusted)
		}
		fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%s\t%s\n", p.ID, cell(p.Tool), argsCell(p.Args, 50), cell(p.Schedule),
			p.Created.Local().Format("2006-01-02 15:04"), cell(untrusted))
	}
	w.Flush()
	return b.String()
}

// inboxShow prints one run's answer, sanitised, and what it left waiting.
func inboxShow(out io.Writer, st *sessions.Store, id string) error {
	found, err := st.Find(id) // a unique prefix is enough
	if err != nil {
		return err
	}
	info, h, err := st.Load(found.ID)
	if err != nil {
		return err
	}
	var b strings.Builder
	what := "session"
	if info.Kind == sessions.Scheduled {
		what = "scheduled run of " + cell(info.Schedule)
	}
	fmt.Fprintf(&b, "%s %s, %s, cost %s", what, info.ID, info.Created.Local().Format("2006-01-02 15:04"), costCell(info.Usage()))
	pending, err := st.PendingCalls("")
	if err != nil {
		return err
	}
	if info.Kind == sessions.Scheduled {
		fmt.Fprintf(&b, " — %s", cell(runOutcome(info, pending)))
	} else if info.Outcome != "" {
		fmt.Fprintf(&b, " — %s", cell(info.Outcome))
	}
	b.WriteString("\n\n")
	answer := lastAnswer(h)
	if info.Kind == sessions.Scheduled {
		answer = runAnswer(h)
	}
	if answer == "" {
		answer = "(no answer)"
	}
	b.WriteString(strings.TrimRight(safe.Text(answer), "\n") + "\n")
	var mine []sessions.Pending
	for _, p := range pending {
		if p.SessionID == info.ID && p.State == sessions.Waiting {
			mine = append(mine, p)
		}
	}
	if len(mine) > 0 {
		b.WriteString("\n" + waitingTable(mine))
		b.WriteString("Approve it in the chat: /inbox approve ID.\n")
	}
	fmt.Fprintf(&b, "\nThe whole conversation: co --resume %s\n", info.ID)
	_, err = io.WriteString(out, b.String())
	return err
}

// answerOf is the first line of a saved run's answer, "" when it has none.
func answerOf(st *sessions.Store, id string) string {
	_, h, err := st.Load(id)
	if err != nil {
		return ""
	}
	a := strings.TrimSpace(runAnswer(h))
	if i := strings.IndexByte(a, '\n'); i >= 0 {
		a = strings.TrimSpace(a[:i]) + " …"
	}
	return a
}

// runAnswer is a scheduled run's answer: the last text of its own turn,
// the first. What follows (a call approved from the inbox goes on in the
// run's session, and the user may go on chatting there) is the chat's.
func runAnswer(h []message.Message) string {
	users := 0
	for i, m := range h {
		if m.Role == message.RoleUser {
			if users++; users == 2 {
				return lastAnswer(h[:i])
			}
		}
	}
	return lastAnswer(h)
}

// runOutcome is how a scheduled run ended, with its calls as they stand
// now (pending: the calls of every state): "done, 1 call waiting" once
// approved reads "done, 1 call approved".
func runOutcome(r sessions.Info, pending []sessions.Pending) string {
	o := r.Outcome
	if o == "" {
		o = sessions.OutcomeRunning
	}
	o = withoutWaiting(o)
	counts := map[sessions.PendingState]int{}
	for _, p := range pending {
		if p.SessionID == r.ID {
			counts[p.State]++
		}
	}
	first := true
	for _, st := range []sessions.PendingState{sessions.Waiting, sessions.Approved, sessions.Denied} {
		n := counts[st]
		if n == 0 {
			continue
		}
		if first {
			o += ", " + plural(n, "call") + " " + string(st)
			first = false
		} else {
			o += fmt.Sprintf(", %d %s", n, st)
		}
	}
	return o
}

// lastAnswer is the text of the last assistant message that has any.
func lastAnswer(h []message.Message) string {
	for i := len(h) - 1; i >= 0; i-- {
		if m := h[i]; m.Role == message.RoleAssistant && strings.TrimSpace(m.Content) != "" {
			return m.Content
		}
	}
	return ""
}

// argsCell is a waiting call's arguments for a list: on one line, a
// run of more than three blanks shown by its length ("␣×300"), at most n
// characters. A model's padding must not push the rest of a command
// ("echo hello", 300 blanks, "; rm -rf ~") past the clip, out of sight.
func argsCell(args string, n int) string {
	s := cell(present.Args(args))
	var b strings.Builder
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && s[j] == ' ' {
			j++
		}
		switch {
		case j-i > 3:
			fmt.Fprintf(&b, " ␣×%d ", j-i)
			i = j
		case j > i:
			b.WriteString(s[i:j])
			i = j
		default:
			b.WriteByte(s[i])
			i++
		}
	}
	return clip(b.String(), n)
}

// clip is text made safe, on one line, and at most n characters.
func clip(s string, n int) string {
	s = cell(s)
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
