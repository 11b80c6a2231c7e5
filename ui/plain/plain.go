// Package plain is co's line-based front end (`co --plain`): for dumb
// terminals, pipes and screen readers. It reads lines from its input (a TTY
// or a script piped in), streams the reply as it arrives, prints one line per
// tool call and per result, and asks for approval with a plain question
// answered on the input. No colour, no cursor movement: only text, and every
// piece of it that came from the model or a tool is sanitised.
//
// Concurrency: Run owns its goroutine plus one reader goroutine that feeds
// input lines; events come from the agent's channel.
package plain

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/provider"
	"github.com/co-cli/co/lib/safe"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/ui/mention"
	"github.com/co-cli/co/ui/present"
	"github.com/co-cli/co/ui/setup"
	"github.com/co-cli/co/ui/slash"
)

// Options configures Run.
type Options struct {
	Agent *agent.Agent
	In    io.Reader
	Out   io.Writer
	// Banner is printed first (already plain text).
	Banner string
	Slash  slash.Env
	// Interrupts delivers Ctrl+C (SIGINT). Nil: none.
	Interrupts <-chan os.Signal
	// Prompt is shown before each input line; default "co> ".
	Prompt string
	Now    func() time.Time
	// HideReasoning leaves the model's reasoning out; otherwise its lines
	// are printed prefixed "thinking: ", dimmed when Color is set.
	HideReasoning bool
	// Color allows SGR sequences (a terminal that is not dumb, without
	// NO_COLOR); only the reasoning uses it.
	Color bool
	// Mentions is the workspace @path mentions attach files from; nil:
	// none are attached.
	Mentions mention.Source
	// Setup, when set, is what the first-run provider setup needs: with no
	// provider, a person at a terminal is asked to set one up before the
	// first prompt, and /setup asks at any time. Nil: no setup.
	Setup *setup.Env
	// First, when set, is handled as the first line, as if typed (co
	// "what is 2+2"), before any line is read from In.
	First string
	// StopOnFailure ends the chat at the first turn that fails (not one
	// the user interrupted), and Run returns a *Failed: the input is a
	// script (not a terminal), which must learn that its chat failed.
	StopOnFailure bool
	// Background, when set, delivers what happens outside any turn (an
	// MCP server that failed or connected): printed when it arrives at
	// the prompt (which is then shown again) or during a turn.
	Background <-chan present.Note
	// Redraw, set when the output is a terminal that is not dumb, lets a
	// note that arrives at the prompt take the prompt's line (a carriage
	// return and an erase of the line) before the prompt is shown again
	// below it: otherwise the prompt stays above the note, blank.
	Redraw bool
	// Script: the input is not a terminal. /undo and /rewind ask nothing
	// then: conflicting files are kept and what the turns sent stays
	// sent, both listed.
	Script bool
}

// Failed is Run's error when a turn failed and Options.StopOnFailure
// was set.
type Failed struct {
	// Message is the turn's error, as the chat printed it.
	Message string
}

func (f *Failed) Error() string { return "the turn failed: " + f.Message }

// AttachedPrefix starts the line that shows a file attached with @path.
const AttachedPrefix = "attached: "

// ThinkingPrefix starts each line of reasoning.
const ThinkingPrefix = "thinking: "

// ExitWindow is how soon a second Ctrl+C at the prompt must follow the first
// to exit.
const ExitWindow = 2 * time.Second

type session struct {
	o         Options
	lines     chan string
	out       io.Writer
	midLine   bool
	lastCtrlC time.Time
	thinking  bool // reasoning is being printed
	thinkBOL  bool // at the start of a reasoning line: the prefix is due
	// failed is the last failed turn's error ("" when none failed).
	failed string
	// cut are the calls whose "tool:" line was cut (callLine) and that no
	// question has shown whole yet: their result line shows them whole.
	cut map[string]string // call ID → the whole call
}

// Run runs the line-based chat until EOF, exit/quit, /exit, two Ctrl+C at
// the prompt within 2 s, or ctx ends.
func Run(ctx context.Context, o Options) error {
	if o.Prompt == "" {
		o.Prompt = "co> "
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	s := &session{o: o, lines: make(chan string), out: o.Out}
	go s.read()
	if o.Banner != "" {
		s.println(strings.TrimRight(o.Banner, "\n"))
	}
	if o.Agent != nil {
		if n := agent.HeldNotice(o.Agent.Risk()); n != "" {
			s.println("untrusted: " + safe.Text(n))
		}
	}
	if s.offerSetup(ctx) {
		s.println("")
		return s.result()
	}
	if o.First != "" {
		// Not typed, so not echoed: shown after the prompt as a scripted
		// line is.
		s.print(o.Prompt)
		s.println(safe.Text(o.First)) // from the command line: maybe $(cat FILE)
		if quit := s.handle(ctx, o.First); quit || s.stop() {
			return s.result()
		}
	}
	warmed := false
	for {
		s.print(o.Prompt)
		if !warmed && o.Agent != nil {
			// The prompt is out: open the provider's connection while the
			// user types.
			o.Agent.Warm()
			warmed = true
		}
		select {
		case <-ctx.Done():
			s.println("")
			return nil
		case <-o.Interrupts:
			if !s.lastCtrlC.IsZero() && o.Now().Sub(s.lastCtrlC) <= ExitWindow {
				s.println("")
				return nil
			}
			s.lastCtrlC = o.Now()
			s.println("\nPress Ctrl+C again to exit.")
		case n := <-o.Background:
			// At the prompt: on a line of its own, then the prompt again.
			if s.o.Redraw && s.midLine {
				// What the user may have typed stays in the terminal's
				// line and is sent with Enter.
				s.print("\r\x1b[K")
			} else {
				s.newline()
			}
			s.note(n)
			continue
		case line, ok := <-s.lines:
			if !ok {
				s.println("")
				return nil
			}
			s.lastCtrlC = time.Time{}
			if !s.o.isTTYEcho() {
				// A scripted line is not echoed by a terminal: show it so the
				// transcript reads as a conversation.
				s.println(line)
			}
			if quit := s.handle(ctx, line); quit || s.stop() {
				return s.result()
			}
		}
	}
}

// stop reports whether the chat ends because a turn failed
// (StopOnFailure).
func (s *session) stop() bool { return s.o.StopOnFailure && s.failed != "" }

// result is Run's error: a *Failed when the chat stopped on a failure.
func (s *session) result() error {
	if s.stop() {
		return &Failed{Message: s.failed}
	}
	return nil
}

// note prints a note from outside any turn: "warning: " for a failure,
// "note: " otherwise.
func (s *session) note(n present.Note) {
	prefix := "note: "
	if n.Problem {
		prefix = "warning: "
	}
	s.println(prefix + safe.Text(n.Text))
}

// isTTYEcho reports whether the input is a terminal that echoes what the
// user types.
func (o Options) isTTYEcho() bool {
	f, ok := o.In.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func (s *session) read() {
	r := bufio.NewReader(s.o.In)
	defer close(s.lines)
	for {
		line, err := r.ReadString('\n')
		if line != "" || err == nil {
			s.lines <- strings.TrimRight(line, "\r\n")
		}
		if err != nil {
			return
		}
	}
}

func (s *session) print(str string) {
	if str == "" {
		return
	}
	_, _ = io.WriteString(s.out, str) // unreported, as fmt.Print's would be
	s.midLine = !strings.HasSuffix(str, "\n")
}

func (s *session) println(str string) { s.print(str + "\n") }

// newline ends a partly written line.
func (s *session) newline() {
	if s.midLine {
		s.print("\n")
	}
}

func (s *session) handle(ctx context.Context, line string) (quit bool) {
	trimmed := strings.TrimSpace(line)
	switch {
	case trimmed == "":
		return false
	case trimmed == "exit" || trimmed == "quit":
		return true
	case slash.IsCommand(trimmed):
		r := slash.Dispatch(s.o.Slash, trimmed)
		if r.Action == slash.Send {
			// A custom command or skill: its text goes to the model, with
			// the files the user's own arguments mention.
			return s.submit(ctx, mention.ExpandFor(s.o.Mentions, r.Args, r.Prompt), trimmed)
		}
		if r.Output != "" {
			if r.Err {
				s.println("error: " + r.Output)
			} else {
				s.println(r.Output)
			}
		}
		if r.OnConfirm != nil {
			if quit := s.confirm(r); quit {
				return true
			}
		}
		if r.Action == slash.ListModels {
			// A line-based chat may wait: Ctrl+C cancels it like a turn.
			mctx, cancel := context.WithCancel(ctx)
			go func() {
				select {
				case <-s.o.Interrupts:
					cancel()
				case <-mctx.Done():
				}
			}()
			names, err := s.o.Agent.Models(mctx)
			cancel()
			lr := slash.ModelList(s.o.Agent, names, err)
			if lr.Err {
				s.println("error: " + lr.Output)
			} else {
				s.println(lr.Output)
			}
		}
		if r.Action == slash.Setup {
			return s.runSetup(ctx)
		}
		if r.Action == slash.SwitchedRun && r.Run != nil {
			// /inbox approve: the run's session is loaded (its transcript
			// printed above); the call is asked about here, as any call.
			return s.turn(ctx, r.Run)
		}
		if r.Action == slash.RewindAction && r.Rewind != nil {
			return s.rewind(ctx, r.Rewind)
		}
		if r.Action == slash.Compact {
			n, err := s.o.Agent.Compact(ctx)
			if err != nil {
				s.println("error: " + safe.Text(err.Error()))
			} else {
				s.println(agent.CompactedNotice(n))
			}
		}
		return r.Action == slash.Exit
	case strings.HasPrefix(trimmed, "!"):
		cmd := strings.TrimSpace(trimmed[1:])
		if cmd == "" {
			s.println("error: type a command after !, e.g. !ls")
			return false
		}
		return s.turn(ctx, func(c context.Context) <-chan agent.Event { return s.o.Agent.RunBang(c, cmd) })
	default:
		return s.submit(ctx, mention.Expand(s.o.Mentions, line), "")
	}
}

// submit shows what x attached (and could not) and sends it.
// shown is what the user typed, when the model gets other text (/NAME).
func (s *session) submit(ctx context.Context, x mention.Expanded, shown string) (quit bool) {
	for _, a := range x.Attached {
		s.println(AttachedPrefix + mention.Summary(a))
	}
	for _, a := range x.Media {
		s.println(AttachedPrefix + mention.MediaSummary(a))
	}
	for _, p := range x.Problems {
		s.println("note: " + safe.Text(p))
	}
	if len(x.Media) > 0 {
		return s.turn(ctx, func(c context.Context) <-chan agent.Event {
			return s.o.Agent.SubmitAttached(c, x.Prompt, shown, x.Media)
		})
	}
	return s.turn(ctx, func(c context.Context) <-chan agent.Event { return s.o.Agent.SubmitShown(c, x.Prompt, shown) })
}

// turn runs one turn to its end. It returns true when input ended during the
// turn's approval (the session then ends after the turn).
func (s *session) turn(ctx context.Context, start func(context.Context) <-chan agent.Event) (quit bool) {
	tctx, cancel := context.WithCancel(ctx)
	defer cancel()
	events := start(tctx)
	for {
		select {
		case <-s.o.Interrupts:
			s.newline()
			s.println("^C cancelling…")
			cancel()
		case n := <-s.o.Background:
			s.newline()
			s.note(n)
		case ev, ok := <-events:
			if !ok {
				return quit
			}
			if s.event(tctx, cancel, ev) {
				quit = true
			}
		}
	}
}

func (s *session) event(ctx context.Context, cancel context.CancelFunc, ev agent.Event) (inputEnded bool) {
	if _, ok := ev.(agent.ReasoningDelta); !ok {
		s.endThinking()
	}
	switch e := ev.(type) {
	case agent.ReasoningDelta:
		s.think(e.Text)
	case agent.TextDelta:
		s.print(safe.Text(e.Text))
	case agent.Notice:
		s.newline()
		s.println("note: " + present.AfterLabel(safe.Text(e.Text)))
	case agent.MemoryRecalled:
		s.newline()
		ids := make([]string, len(e.Memories))
		for i, m := range e.Memories {
			ids[i] = safe.Text(m.ID)
		}
		s.println("memory: recalled " + strings.Join(ids, ", "))
	case agent.RiskRaised:
		s.newline()
		s.println("untrusted: " + safe.Text(agent.RiskNotice(e)))
	case agent.ToolCallStarted:
		s.newline()
		line, whole := callLine(e.Name, e.Args)
		if !whole {
			// Too long for one line: only the tool's name now; the whole
			// call is printed once, on its question if it asks, or when it
			// ends if it does not (never cut here and whole again there).
			line = safe.Text(e.Name)
		}
		s.println("tool: " + line)
		if !whole {
			if s.cut == nil {
				s.cut = map[string]string{}
			}
			s.cut[e.CallID] = present.Call(e.Name, e.Args)
		}
	case agent.ToolCallFinished:
		s.newline()
		if whole, ok := s.cut[e.CallID]; ok {
			// It ran (or not) without a question: the whole call, once.
			delete(s.cut, e.CallID)
			s.println("call: " + whole)
		}
		s.println("result: " + e.Name + " " + present.Outcome(e))
		if d := strings.TrimRight(safe.Text(e.Result.Display), "\n"); d != "" && (e.Status == message.CallDone || e.Status == message.CallRetry || e.Status == message.CallFailed) {
			s.println(indent(d))
		}
	case agent.ApprovalRequested:
		return s.approve(ctx, cancel, e)
	case agent.FormRequested:
		return s.form(ctx, cancel, e)
	case agent.TurnFinished:
		s.newline()
	case agent.TurnFailed:
		s.newline()
		if e.Interrupted {
			s.println("Interrupted.")
		} else {
			s.failed = safe.Text(e.Message)
			s.println("error: " + s.failed)
			if errors.Is(e.Err, provider.ErrNoProvider) && s.o.Setup != nil {
				s.println("Type /setup to choose a provider here.")
			}
		}
	}
	return false
}

func (s *session) approve(ctx context.Context, cancel context.CancelFunc, req agent.ApprovalRequested) (inputEnded bool) {
	verdicts := make([]message.Verdict, len(req.Calls))
	for i, c := range req.Calls {
		s.newline()
		if len(req.Calls) > 1 {
			s.println(fmt.Sprintf("approval %d of %d", i+1, len(req.Calls)))
		}
		for _, l := range present.Risk(c.Check) {
			s.println(safe.Reveal(l))
		}
		if c.Check.Reason != "" {
			s.println("why it asks: " + safe.Reveal(c.Check.Reason))
		}
		delete(s.cut, c.CallID) // the question shows it
		preview, omit := questionParts(c)
		if preview != "" {
			s.println(indent(safe.Reveal(preview)))
		}
		for _, l := range c.Check.Where {
			s.println(safe.Reveal(l))
		}
		scope := c.Check.ScopeLabel
		if c.Check.AlwaysAsk {
			scope = "" // no grant possible
		}
	ask:
		for {
			hint := "[y/n/a]"
			if scope == "" {
				hint = "[y/n]"
			}
			s.print(fmt.Sprintf("Approve %s? %s ", present.CallOmitting(c.Tool, c.Args, omit), hint))
			select {
			case <-ctx.Done():
				return false
			case <-s.o.Interrupts:
				s.println("^C")
				cancel()
				return false
			case line, ok := <-s.lines:
				if !ok {
					s.println("\n(input ended: denied)")
					req.Reply(verdicts) // the rest stay Deny
					return true
				}
				if !s.o.isTTYEcho() {
					s.println(line)
				}
				switch strings.ToLower(strings.TrimSpace(line)) {
				case "y", "yes":
					verdicts[i] = message.ApproveOnce
					break ask
				case "n", "no", "":
					verdicts[i] = message.Deny
					break ask
				case "a", "always":
					if scope == "" {
						s.println("this call cannot be approved for the session; answer y or n")
						continue
					}
					verdicts[i] = message.ApproveSession
					s.println(fmt.Sprintf("approved for this session: %s", safe.Text(scope)))
					break ask
				default:
					s.println("answer y (approve once), n (deny) or a (approve for this session)")
				}
			}
		}
	}
	req.Reply(verdicts)
	return false
}

// maxCallLine is how many characters of a call its "tool:" line shows. A
// longer call (a long command, a file's content) is cut there with "…": a
// call that asks is shown whole, once, by its question, and printing it
// whole on the "tool:" line too made one command read as three.
const maxCallLine = 120

// callLine is the one-line summary a call's "tool:" line shows; whole is
// false when it was cut.
func callLine(name, args string) (line string, whole bool) {
	c := present.Call(name, args)
	if r := []rune(c); len(r) > maxCallLine {
		return string(r[:maxCallLine-1]) + "…", false
	}
	return c, true
}

// questionParts decides what an approval question prints before its call
// line, so nothing is printed twice: the preview (if any), and the
// arguments the call line then leaves out as (shown above). A shell
// command on one line is the call line's and its preview (the same
// command) is not printed; a command of several lines is printed as its
// lines, once. Of another tool's arguments, those the preview shows whole
// and that are long or of several lines (a file's content, a memory) are
// left out; short ones (a path, a URL) stay, so the call line still says
// what the call is about.
func questionParts(c agent.PendingCall) (preview string, omit map[string]bool) {
	preview = strings.TrimRight(c.Check.Preview, "\n")
	if c.Tool == message.BangTool {
		cmd := present.BangCommand(c.Args)
		if strings.TrimSpace(preview) != strings.TrimSpace(cmd) {
			return preview, nil
		}
		if !strings.Contains(strings.TrimSpace(cmd), "\n") {
			return "", nil
		}
		return preview, map[string]bool{"cmd": true}
	}
	omit = map[string]bool{}
	values := argStrings(c.Args)
	for k := range present.InPreview(c.Args, preview) {
		if v := values[k]; strings.Contains(v, "\n") || len([]rune(v)) > longArg {
			omit[k] = true
		}
	}
	return preview, omit
}

// longArg is how long (in characters) an argument the preview shows may be
// and still be repeated on the call line.
const longArg = 60

// argStrings are a JSON object's string arguments.
func argStrings(args string) map[string]string {
	var obj map[string]json.RawMessage
	out := map[string]string{}
	if json.Unmarshal([]byte(args), &obj) != nil {
		return out
	}
	for k, raw := range obj {
		var v string
		if json.Unmarshal(raw, &v) == nil {
			out[k] = v
		}
	}
	return out
}

// confirm asks r's yes/no question and runs r.OnConfirm on yes. It
// returns true when input ended.
func (s *session) confirm(r slash.Result) (inputEnded bool) {
	yes, ended := s.yesNo(r.Confirm)
	if ended {
		return true
	}
	switch {
	case yes:
		res := r.OnConfirm()
		if res.Err {
			s.println("error: " + res.Output)
		} else if res.Output != "" {
			s.println(res.Output)
		}
	default:
		s.println("Not done.")
	}
	return false
}

// isYes reports whether line answers a question yes.
func isYes(line string) bool {
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true
	}
	return false
}

// think prints a piece of reasoning: each line prefixed, blank lines
// dropped, dimmed when colour is allowed.
func (s *session) think(text string) {
	if s.o.HideReasoning {
		return
	}
	if !s.thinking {
		s.newline()
		s.thinking, s.thinkBOL = true, true
	}
	for i, part := range strings.Split(safe.Text(text), "\n") {
		if i > 0 && !s.thinkBOL {
			s.print("\n")
			s.thinkBOL = true
		}
		if part == "" {
			continue
		}
		if s.thinkBOL {
			s.print(ThinkingPrefix)
			s.thinkBOL = false
		}
		if s.o.Color {
			part = "\x1b[2m" + part + "\x1b[22m"
		}
		s.print(part)
	}
}

// endThinking ends the reasoning's last line before anything else prints.
func (s *session) endThinking() {
	if s.thinking {
		s.newline()
		s.thinking = false
	}
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(s, "\n", "\n  ")
}
