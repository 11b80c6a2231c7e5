package slash

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/co-cli/co/journal"
	"github.com/co-cli/co/lib/safe"
	"github.com/co-cli/co/ui/present"
	"github.com/co-cli/co/undo"
)

// /undo and /rewind: the commands check what they can here (a turn under
// way, a conversation not saved or with no turns, a bad argument) and hand
// the rewind to the front end as Action Rewind (or RewindPick, /rewind
// alone), which runs it off its loop, asks about conflicts and about what
// the turns sent, and shows Report's text. Text from files, the model and
// the journal is shown through lib/safe, one line each.

// Rewind is what Action Rewind takes back.
type Rewind struct {
	Service *undo.Service
	From    int64 // the Seq of the first turn taken back; every later one goes too
	N       int   // that turn's number (Turn.N)
	Mode    undo.Mode
	// Last: /undo, the last turn (the full screen puts its prompt back in
	// the input).
	Last bool
}

// ModeChoice is a mode of /rewind: its word and what it says.
type ModeChoice struct {
	Mode  undo.Mode
	Word  string
	Label string
}

// Modes are /rewind's modes, in the order the full screen offers them.
var Modes = []ModeChoice{
	{undo.Both, "both", "files and conversation"},
	{undo.FilesOnly, "files", "files only (the conversation keeps the turns)"},
	{undo.ConversationOnly, "conversation", "conversation only (files stay as they are)"},
	{undo.Summarise, "summarise", "summarise from here (the turns become a summary; files stay)"},
}

// ModeLabel is what mode takes back, for a person.
func ModeLabel(m undo.Mode) string {
	for _, c := range Modes {
		if c.Mode == m {
			return c.Label
		}
	}
	return "?"
}

// undoService is env's undo service, or the sentence saying why there is
// none (no saved conversation, a turn under way).
func (env Env) undoService() (*undo.Service, string) {
	if env.busy() {
		return nil, "a turn is running; cancel it first (esc), then undo"
	}
	var svc *undo.Service
	if env.Undo != nil {
		svc = env.Undo()
	}
	if svc == nil {
		return nil, notSaved
	}
	return svc, ""
}

const notSaved = "nothing to undo: this conversation is not being saved (undo takes back saved turns only)"

// liveTurns are svc's turns, or the sentence saying why there are none.
func liveTurns(svc *undo.Service) ([]undo.Turn, string) {
	turns, err := svc.Turns()
	if errors.Is(err, undo.ErrNotSaved) {
		return nil, notSaved
	}
	if err != nil {
		return nil, "could not list this conversation's turns: " + safe.Text(err.Error())
	}
	if len(turns) == 0 {
		return nil, "nothing to undo: this conversation has no turns yet"
	}
	return turns, ""
}

func undoCmd(env Env, arg string) Result {
	if arg != "" {
		return Result{Output: "usage: /undo (takes back the last turn; /rewind goes back further)", Err: true}
	}
	svc, why := env.undoService()
	if why != "" {
		return Result{Output: why, Err: true}
	}
	turns, why := liveTurns(svc)
	if why != "" {
		return Result{Output: why, Err: true}
	}
	t := turns[len(turns)-1]
	return Result{
		Output: fmt.Sprintf("Taking back turn %d: %s", t.N, TurnPrompt(t)),
		Action: RewindAction,
		Rewind: &Rewind{Service: svc, From: t.Seq, N: t.N, Mode: undo.Both, Last: true},
	}
}

// RewindUsage is /rewind's usage line.
const RewindUsage = "usage: /rewind N [both|files|conversation|summarise] — takes back turn N and every turn after it (both: files and conversation, the default)"

func rewindCmd(env Env, arg string) Result {
	svc, why := env.undoService()
	if why != "" {
		return Result{Output: why, Err: true}
	}
	turns, why := liveTurns(svc)
	if why != "" {
		return Result{Output: why, Err: true}
	}
	f := strings.Fields(arg)
	if len(f) == 0 {
		var b strings.Builder
		b.WriteString("Turns of this conversation (/rewind N takes back N and every turn after it):\n")
		for _, t := range turns {
			b.WriteString(TurnLine(t) + "\n")
		}
		b.WriteString(RewindUsage)
		return Result{Output: b.String(), Action: RewindPick, Turns: turns, Rewind: &Rewind{Service: svc}}
	}
	if len(f) > 2 {
		return Result{Output: RewindUsage, Err: true}
	}
	n, err := strconv.Atoi(f[0])
	var turn *undo.Turn
	for i := range turns {
		if err == nil && turns[i].N == n {
			turn = &turns[i]
		}
	}
	if turn == nil {
		return Result{Output: fmt.Sprintf("no turn %s: the turns are numbered %d to %d (/rewind lists them)",
			safe.Text(f[0]), turns[0].N, turns[len(turns)-1].N), Err: true}
	}
	mode := undo.Both
	if len(f) == 2 {
		m, ok := ParseMode(f[1])
		if !ok {
			return Result{Output: fmt.Sprintf("unknown mode %q: %s", safe.Text(f[1]), RewindUsage), Err: true}
		}
		mode = m
	}
	return Result{
		Output: fmt.Sprintf("Rewinding to before turn %d (%s): %s", turn.N, ModeLabel(mode), TurnPrompt(*turn)),
		Action: RewindAction,
		Rewind: &Rewind{Service: svc, From: turn.Seq, N: turn.N, Mode: mode},
	}
}

// ParseMode reads a mode's word (or its first letters: f, conv, sum).
func ParseMode(w string) (undo.Mode, bool) {
	w = strings.ToLower(w)
	if w == "summarize" {
		w = "summarise"
	}
	for _, c := range Modes {
		if w != "" && strings.HasPrefix(c.Word, w) {
			return c.Mode, true
		}
	}
	return 0, false
}

// TurnPrompt is t's prompt on one line, sanitised, cut to 80 characters.
func TurnPrompt(t undo.Turn) string {
	p := []rune(present.Line(safe.Text(strings.TrimSpace(t.Prompt))))
	if len(p) > 80 {
		p = append(p[:79], '…')
	}
	return string(p)
}

// TurnLine is t as /rewind lists it: its number and prompt.
func TurnLine(t undo.Turn) string {
	return fmt.Sprintf("%3d. %s", t.N, TurnPrompt(t))
}

// Report is what a rewind did, for a person: the files restored, removed,
// left as they were (conflicts, and why), the notes, the summary.
func Report(rw Rewind, r undo.Result) string {
	var b strings.Builder
	n := len(r.Taken)
	switch n {
	case 0:
		b.WriteString("No turn was taken back.\n")
	case 1:
		fmt.Fprintf(&b, "Took back turn %d (%s).\n", rw.N, ModeLabel(rw.Mode))
	default:
		fmt.Fprintf(&b, "Took back turns %d to %d (%s).\n", rw.N, rw.N+n-1, ModeLabel(rw.Mode))
	}
	fileLines(&b, r)
	if rw.Mode == undo.Both || rw.Mode == undo.FilesOnly {
		if len(r.Files.Restored)+len(r.Files.Removed)+len(r.Files.Conflicts)+len(r.Files.NotRestorable) == 0 {
			b.WriteString("  no file had changed.\n")
		}
	}
	for _, note := range r.Notes {
		b.WriteString(present.Line(safe.Text("note: "+note)) + "\n")
	}
	if r.Summary != "" {
		b.WriteString(present.Line(safe.Text("Summary in their place: "+r.Summary)) + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// ForcedReport is what the rewind again with force did to the files.
func ForcedReport(r undo.Result) string {
	var b strings.Builder
	b.WriteString("Overwritten with their state from before the turn:\n")
	fileLines(&b, r)
	return strings.TrimRight(b.String(), "\n")
}

func fileLines(b *strings.Builder, r undo.Result) {
	line := func(s string) { b.WriteString(present.Line(safe.Text(s)) + "\n") }
	for _, p := range r.Files.Restored {
		line("  restored: " + p)
	}
	for _, p := range r.Files.Removed {
		line("  removed:  " + p)
	}
	for _, c := range r.Files.Conflicts {
		line("  conflict: " + c.Path + " — " + orWhy(c.Reason, "changed since the turn; kept as it is"))
	}
	for _, s := range r.Files.NotRestorable {
		line("  not restorable: " + s.Path + " — " + orWhy(s.Reason, "its earlier state was not kept"))
	}
}

func orWhy(s, dflt string) string {
	if strings.TrimSpace(s) == "" {
		return dflt
	}
	return s
}

// ConflictQuestion asks whether to overwrite r's conflicting files.
func ConflictQuestion(r undo.Result) string {
	paths := make([]string, len(r.Files.Conflicts))
	for i, c := range r.Files.Conflicts {
		paths[i] = present.Line(safe.Text(c.Path))
	}
	return fmt.Sprintf("%d file(s) changed since the turn by someone else were kept as they are: %s. Overwrite them with their state from before the turn?",
		len(paths), strings.Join(paths, ", "))
}

// PromptWas shows the prompt a rewind took back, whole (its lines below
// when several), so it can be copied.
func PromptWas(r undo.Result) string {
	if strings.TrimSpace(r.Prompt) == "" {
		return ""
	}
	p := strings.TrimSpace(safe.Text(r.Prompt))
	if !strings.Contains(p, "\n") {
		return "Your prompt was: " + present.Line(p)
	}
	return "Your prompt was:\n" + p
}

// SplitSent sorts what the turns sent: the entries to ask about one by
// one, and the lines listing the rest (what cannot be taken back, why).
func SplitSent(sent []journal.Entry) (ask []journal.Entry, cannot []string) {
	for _, e := range sent {
		if e.Undone != "" {
			continue
		}
		if e.Undoable {
			ask = append(ask, e)
			continue
		}
		cannot = append(cannot, "cannot be taken back: "+present.Line(safe.Text(e.What))+" — "+present.Line(safe.Text(orWhy(e.WhyNot, "the service has no undo"))))
	}
	return ask, cannot
}

// SentQuestion asks whether to take back e.
func SentQuestion(e journal.Entry) string {
	q := "The turn " + present.Line(safe.Text(e.What)) + "."
	if e.Ask != "" {
		q += " " + present.Line(safe.Text(e.Ask)) + "."
	}
	return q + " Take it back?"
}

// SentOutcome says how taking back e ended.
func SentOutcome(e journal.Entry, r journal.Result, err error) string {
	what := present.Line(safe.Text(e.What))
	switch {
	case err != nil:
		return "could not take back " + what + ": " + present.Line(safe.Text(err.Error()))
	case strings.TrimSpace(r.Message) != "":
		return present.Line(safe.Text(r.Message))
	case r.Outcome == journal.AlreadyGone:
		return "already gone: " + what
	default:
		return "taken back: " + what
	}
}
