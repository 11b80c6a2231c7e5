package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/co-cli/co/config"
	"github.com/co-cli/co/internal/app"
	"github.com/co-cli/co/journal"
	"github.com/co-cli/co/sessions"
	"github.com/co-cli/co/undo"
)

// exitUndoKept is co undo's code when it left files as they were because
// they changed after the turn (conflicts): --force puts them back.
const exitUndoKept = 3

// undoFlags are co undo's flags.
type undoFlags struct {
	session          string
	force            bool
	turns            int
	filesOnly        bool
	conversationOnly bool
	sent             bool
	yes              bool
	list             bool
	turnsGiven       bool // --turns was given
}

func newUndoCmd(s env) *cobra.Command {
	var f undoFlags
	cmd := &cobra.Command{
		Use:   "undo",
		Short: "Take back the last turn of this workspace's latest chat (files, conversation)",
		Long: `co undo takes back the last turn of the latest chat session of this workspace
(--session ID: of that session; --turns N: the last N turns), as the chat's
/undo does: every file the turn changed is put back as it was before the
turn, whoever changed it (a file tool, a shell command, sandboxed or not),
and the turn leaves the conversation, so co --continue goes on from before
it. It prints each file restored or removed, what could not be restored and
why, and the prompt taken back.

A file changed again after the turn (by an editor, another program) is a
conflict: it is left as it is and named, and co undo exits 3 (the turn
leaves the conversation all the same). Look at it, then run co undo --force:
it puts back the files that undo left (or that --conversation-only left),
and takes no further turn.

What the turn sent (a Slack post, a Gmail draft, a memory saved, ...) is
listed after the files. At a terminal co undo asks for each one that can be
taken back, one by one (y/N, Enter says no); otherwise it takes none back
and says how: co undo --sent asks again later for everything the undone
turns sent, and --yes answers yes to every question. What cannot be taken
back (a web request, an MCP call, a sent mail) is listed as such.

--files-only puts the files back and leaves the conversation as it is;
--conversation-only takes the turns out of the conversation and leaves the
files. Checkpoints live in co's data folder, never in the workspace: see
docs/undo.md for what they cost, their limits and how old ones go.

Exit codes: 0 done; 1 error (no session, nothing left to undo, a sent
action that could not be taken back); 2 usage error; 3 done, but files
changed after the turn were kept (conflicts, named above).`,
		Example: `  co undo                      # the last turn of this workspace's latest chat
  co undo --turns 3            # the last three turns
  co undo --list               # the turns it can take back
  co undo --force              # put back the files the last undo kept
  co undo --session 2f9c --files-only
  co undo --sent               # what the undone turns sent, asked one by one`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := f.check(cmd); err != nil {
				return err
			}
			f.turnsGiven = cmd.Flags().Changed("turns")
			return runUndo(cmd.Context(), s, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.session, "session", "", "the saved session `ID` (a unique prefix; default: this workspace's latest chat)")
	fl.BoolVar(&f.force, "force", false, "put back files changed since the turn too, losing those changes (after an undo that kept some: just those)")
	fl.IntVar(&f.turns, "turns", 1, "take back the last `N` turns")
	fl.BoolVar(&f.filesOnly, "files-only", false, "put the files back; the conversation keeps the turns")
	fl.BoolVar(&f.conversationOnly, "conversation-only", false, "take the turns out of the conversation; files stay as they are")
	fl.BoolVar(&f.sent, "sent", false, "rewind nothing: offer again what the undone turns sent that is still there")
	fl.BoolVarP(&f.yes, "yes", "y", false, "take back what the turns sent without asking (for scripts)")
	fl.BoolVar(&f.list, "list", false, "list the turns co undo can take back, and change nothing")
	_ = cmd.RegisterFlagCompletionFunc("session", completeSessionIDs)
	return cmd
}

// check refuses combinations of flags that mean nothing.
func (f undoFlags) check(cmd *cobra.Command) error {
	bad := func(msg string) error { return usageError{errors.New(msg), cmd.CommandPath()} }
	switch {
	case f.turns < 1:
		return bad(fmt.Sprintf("--turns %d: give the number of turns to take back, 1 or more", f.turns))
	case f.filesOnly && f.conversationOnly:
		return bad("--files-only and --conversation-only exclude each other: without either, co undo takes back both")
	case f.sent && (f.force || f.filesOnly || f.conversationOnly || cmd.Flags().Changed("turns")):
		return bad("--sent rewinds nothing, so it takes no --force, --turns, --files-only or --conversation-only: run co undo first, then co undo --sent")
	case f.list && (f.force || f.filesOnly || f.conversationOnly || f.sent || f.yes || cmd.Flags().Changed("turns")):
		return bad("--list changes nothing, so it takes only --session")
	case f.force && f.conversationOnly:
		return bad("--force is about files, and --conversation-only leaves the files as they are")
	}
	return nil
}

func (f undoFlags) mode() undo.Mode {
	switch {
	case f.filesOnly:
		return undo.FilesOnly
	case f.conversationOnly:
		return undo.ConversationOnly
	}
	return undo.Both
}

// runUndo is co undo: the session found, its service opened, the turns
// taken back and what it did printed.
func runUndo(ctx context.Context, s env, f undoFlags) error {
	l, err := loadConfig(s)
	if err != nil {
		return err
	}
	info, err := undoSession(l, f.session)
	if err != nil {
		return err
	}
	svc, closeSvc, err := app.OpenUndo(l, info.ID)
	if err != nil {
		return err
	}
	defer closeSvc()
	u := &undoRun{env: s, svc: svc, info: info, flags: f, in: bufio.NewReader(s.In), ask: isTerminal(s.In) && !f.yes}
	if f.list {
		return u.listTurns()
	}
	if f.sent {
		return u.sentAgain(ctx)
	}
	return u.rewind(ctx)
}

// undoSession is the session co undo works on: id (a unique prefix), or
// this workspace's latest chat session.
func undoSession(l *config.Loaded, id string) (sessions.Info, error) {
	ws, err := app.WorkingDir()
	if err != nil {
		return sessions.Info{}, err
	}
	none := fmt.Errorf("no saved chat session in %s, so there is nothing to undo here: co sessions --all lists the sessions of every folder, and co undo --session ID takes one of them", cell(ws))
	if _, err := os.Stat(app.SessionsPath(l)); err != nil {
		if id != "" {
			return sessions.Info{}, fmt.Errorf("no saved session %s: co has saved no session yet", cell(id))
		}
		return sessions.Info{}, none // never create the store for this
	}
	st, err := app.OpenSessions(l)
	if err != nil {
		return sessions.Info{}, err
	}
	defer st.Close()
	if id != "" {
		info, err := st.Find(id)
		if errors.Is(err, sessions.ErrNotFound) {
			return info, fmt.Errorf("%s (co sessions --all lists the saved sessions)", safeErr(err))
		}
		return info, err
	}
	info, err := st.Latest(ws, sessions.Chat)
	if errors.Is(err, sessions.ErrNotFound) {
		return info, none
	}
	return info, err
}

// safeErr is an error's text made safe for the terminal.
func safeErr(err error) string { return cell(err.Error()) }

// undoRun is one co undo at work.
type undoRun struct {
	env
	svc   *undo.Service
	info  sessions.Info
	flags undoFlags
	in    *bufio.Reader
	ask   bool // a person answers at the terminal
}

// again is the command that works on this session again, with extra flags.
func (u *undoRun) again(extra string) string {
	return "co undo " + extra + "--session " + cell(u.info.ID)
}

// rewind takes back the last turns and prints what it did.
func (u *undoRun) rewind(ctx context.Context) error {
	name := fmt.Sprintf("session %s (%s)", cell(u.info.ID), cell(titleOr(u.info.Title)))
	if u.flags.force && !u.flags.turnsGiven && u.flags.mode() != undo.ConversationOnly {
		// co undo --force after a co undo that kept files: those turns are
		// out of the conversation already; put their files back.
		unfinished, err := u.svc.Unfinished()
		if err != nil {
			return err
		}
		if len(unfinished) > 0 {
			res, err := u.svc.Rewind(ctx, unfinished[0].Seq, u.flags.mode(), true)
			if err != nil {
				return err
			}
			u.printRewind("Put back the files left by the last undo of", name, res, nil)
			if u.offerSent(ctx, res.Sent) {
				return exitCode(exitError)
			}
			return nil
		}
	}
	turns, err := u.svc.Turns()
	if err != nil {
		return err
	}
	if len(turns) == 0 {
		return fmt.Errorf("%s has no turns left to undo", name)
	}
	if u.flags.turns > len(turns) {
		return fmt.Errorf("%s has %s left to undo; --turns %d asks for more", name, plural(len(turns), "turn"), u.flags.turns)
	}
	from := turns[len(turns)-u.flags.turns]
	res, err := u.svc.Rewind(ctx, from.Seq, u.flags.mode(), u.flags.force)
	if err != nil {
		return err
	}
	number := map[int64]int{} // a turn's number among the live ones, before the rewind
	for _, t := range turns {
		number[t.Seq] = t.N
	}
	u.printRewind("", name, res, number)
	failed := u.offerSent(ctx, res.Sent)
	switch {
	case failed:
		return exitCode(exitError)
	case len(res.Files.Conflicts) > 0:
		fmt.Fprintf(u.Err, "co undo: %s changed after the turn, kept as %s (named above); to put %s back as before the turn, losing those changes: %s\n",
			plural(len(res.Files.Conflicts), "file"), pick(len(res.Files.Conflicts), "it is", "they are"), pick(len(res.Files.Conflicts), "it", "them"), u.again(u.forceFlags()))
		return exitCode(exitUndoKept)
	}
	return nil
}

// forceFlags are the flags of the co undo that finishes this one with
// --force: a --files-only rewind left the turns in the conversation, so
// it is run again as it was.
func (u *undoRun) forceFlags() string {
	if u.flags.mode() == undo.FilesOnly {
		return fmt.Sprintf("--force --files-only --turns %d ", u.flags.turns)
	}
	return "--force "
}

func pick(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func titleOr(t string) string {
	if strings.TrimSpace(t) == "" {
		return "untitled"
	}
	return t
}

// printRewind prints what a rewind did: the turns, the files, the
// conversation, the notes.
func (u *undoRun) printRewind(what, name string, res undo.Result, number map[int64]int) {
	w := u.Out
	finishing := what != ""
	switch {
	case finishing:
	case u.flags.mode() == undo.FilesOnly:
		what = "Put back the files of"
	case u.flags.mode() == undo.ConversationOnly:
		what = "Took out of the conversation"
	default:
		what = "Undid"
	}
	if finishing {
		fmt.Fprintf(w, "%s %s, %s:\n", what, name, plural(len(res.Taken), "turn"))
	} else {
		fmt.Fprintf(w, "%s %s of %s:\n", what, plural(len(res.Taken), "turn"), name)
	}
	for _, t := range res.Taken {
		at := t.At.Local().Format("2006-01-02 15:04")
		if n := number[t.Seq]; n > 0 {
			at = fmt.Sprintf("turn %d, %s", n, at)
		}
		fmt.Fprintf(w, "  %s: %s\n", at, cell(t.Prompt))
	}
	if ws, err := app.WorkingDir(); err == nil && u.info.Workspace != "" && u.info.Workspace != ws {
		fmt.Fprintf(w, "Its workspace is %s.\n", cell(u.info.Workspace))
	}
	if u.flags.mode() != undo.ConversationOnly {
		printFiles(w, res)
	} else {
		fmt.Fprintln(w, "Files: left as they are (--conversation-only).")
	}
	switch {
	case finishing:
		fmt.Fprintf(w, "Conversation: %s taken out of it before.\n", pick(len(res.Taken), "that turn was", "those turns were"))
	case u.flags.mode() == undo.FilesOnly:
		fmt.Fprintln(w, "Conversation: it keeps the turns (--files-only).")
	default:
		fmt.Fprintf(w, "Conversation: %s taken out; co --continue goes on from before %s. The prompt taken back:\n  %s\n",
			pick(len(res.Taken), "the turn is", "the turns are"), pick(len(res.Taken), "it", "them"), cell(res.Prompt))
	}
	for _, n := range res.Notes {
		fmt.Fprintf(w, "Note: %s\n", cell(n))
	}
}

// printFiles prints what the rewind did to the files, one path a line.
func printFiles(w io.Writer, res undo.Result) {
	r := res.Files
	if len(r.Restored)+len(r.Removed)+len(r.Conflicts)+len(r.NotRestorable) == 0 {
		fmt.Fprintln(w, "Files: nothing to put back (the turns changed no file of the workspace, or their checkpoints are gone).")
		return
	}
	fmt.Fprintln(w, "Files:")
	for _, p := range r.Restored {
		fmt.Fprintf(w, "  restored        %s\n", cell(p))
	}
	for _, p := range r.Removed {
		fmt.Fprintf(w, "  removed         %s\n", cell(p))
	}
	for _, c := range r.Conflicts {
		fmt.Fprintf(w, "  kept (conflict) %s: %s\n", cell(c.Path), cell(c.Reason))
	}
	for _, n := range r.NotRestorable {
		fmt.Fprintf(w, "  not restorable  %s: %s\n", cell(n.Path), cell(n.Reason))
	}
}

// offerSent lists what the turns sent and, for each entry that can be
// taken back, asks (at a terminal), takes it back (--yes), or says how to
// later. failed reports an entry whose undo failed.
func (u *undoRun) offerSent(ctx context.Context, sent []journal.Entry) (failed bool) {
	if len(sent) == 0 {
		return false
	}
	var undoable, rest []journal.Entry
	for _, e := range sent {
		if e.Undoable && e.Undone == "" {
			undoable = append(undoable, e)
		} else {
			rest = append(rest, e)
		}
	}
	fmt.Fprintln(u.Out, "Sent by the turns:")
	for _, e := range rest {
		switch {
		case e.Undone != "":
			fmt.Fprintf(u.Out, "  already taken back  %s\n", cell(e.What))
		default:
			fmt.Fprintf(u.Out, "  cannot be undone    %s (%s)\n", cell(e.What), cell(e.WhyNot))
		}
	}
	return u.takeBack(ctx, undoable)
}

// takeBack asks for each entry, or takes each back (--yes), or lists them
// with the command that offers them again.
func (u *undoRun) takeBack(ctx context.Context, entries []journal.Entry) (failed bool) {
	if len(entries) == 0 {
		return false
	}
	if !u.ask && !u.flags.yes {
		for _, e := range entries {
			fmt.Fprintf(u.Out, "  not taken back      %s\n", cell(e.What))
		}
		fmt.Fprintf(u.Out, "Standard input is not a terminal, so co undo asked nothing: %s asks for each at a terminal (--yes takes them all back).\n", u.again("--sent "))
		return false
	}
	for _, e := range entries {
		fmt.Fprintf(u.Out, "  %s\n", cell(e.What))
		if e.Ask != "" {
			fmt.Fprintf(u.Out, "    %s\n", cell(e.Ask))
		}
		if u.ask {
			fmt.Fprint(u.Out, "    Take it back? [y/N] ")
			line, err := u.in.ReadString('\n')
			if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
				if err != nil { // end of input: no more answers
					fmt.Fprintln(u.Out)
				}
				fmt.Fprintf(u.Out, "    kept (%s offers it again)\n", u.again("--sent "))
				continue
			}
		}
		r, err := u.svc.UndoSent(ctx, e.Seq)
		if err != nil {
			fmt.Fprintf(u.Out, "    not taken back: %s\n", safeErr(err))
			failed = true
			continue
		}
		fmt.Fprintf(u.Out, "    %s\n", cell(r.Message))
	}
	return failed
}

// sentAgain is co undo --sent: what the undone turns sent that is still
// there, offered again.
func (u *undoRun) sentAgain(ctx context.Context) error {
	pending, err := u.svc.Pending()
	if err != nil {
		return err
	}
	if len(pending) == 0 {
		fmt.Fprintf(u.Out, "Nothing the undone turns of session %s sent is left to take back.\n", cell(u.info.ID))
		return nil
	}
	if !u.ask && !u.flags.yes {
		return fmt.Errorf("co undo --sent asks before taking each action back, and standard input is not a terminal: run it at a terminal, or add --yes to take back all %s", plural(len(pending), "action"))
	}
	fmt.Fprintf(u.Out, "Sent by the undone turns of session %s (%s):\n", cell(u.info.ID), cell(titleOr(u.info.Title)))
	if u.takeBack(ctx, pending) {
		return exitCode(exitError)
	}
	return nil
}

// listTurns is co undo --list: the live turns, newest last, with what
// each changed and sent, and the turns whose files a last undo left.
func (u *undoRun) listTurns() error {
	turns, err := u.svc.Turns()
	if err != nil {
		return err
	}
	unfinished, err := u.svc.Unfinished()
	if err != nil {
		return err
	}
	name := fmt.Sprintf("session %s (%s)", cell(u.info.ID), cell(titleOr(u.info.Title)))
	w := u.Out
	if len(turns) == 0 {
		fmt.Fprintf(w, "No turns of %s are left to undo.\n", name)
	} else {
		fmt.Fprintf(w, "Turns of %s, oldest first:\n", name)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  TURN\tSENT AT\tFILES\tSENT\tPROMPT")
		for _, t := range turns {
			files := "-"
			if t.Checkpoint != nil {
				files = fmt.Sprint(len(t.Checkpoint.Changes))
			}
			fmt.Fprintf(tw, "  %d\t%s\t%s\t%d\t%s\n", t.N, t.At.Local().Format("2006-01-02 15:04"), files, len(t.Sent), cell(t.Prompt))
		}
		tw.Flush()
		fmt.Fprintf(w, "FILES: paths the turn changed (-: none recorded). co undo --turns K takes back the last K (%s).\n", u.again(""))
	}
	if len(unfinished) > 0 {
		fmt.Fprintf(w, "Taken out of the conversation with files left as they were (co undo --force puts them back):\n")
		for _, t := range unfinished {
			fmt.Fprintf(w, "  %s: %s\n", t.At.Local().Format("2006-01-02 15:04"), cell(t.Prompt))
		}
	}
	return nil
}
