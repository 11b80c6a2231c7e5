package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/co-cli/co/internal/app"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/sessions"
	"github.com/co-cli/co/ui/headless"
)

func newRunCmd(s env) *cobra.Command {
	var jsonOut, yes, noReasoning bool
	var maxCost float64
	var attach []string
	var rf resumeFlags
	cmd := &cobra.Command{
		Use:   "run [PROMPT]",
		Short: "Run one prompt without a person: answer to stdout",
		Long: `co run sends one prompt to the model and prints the answer. The prompt is the
arguments joined by spaces, or standard input when there are none (or the
only argument is "-").

With a prompt given as arguments, text piped to standard input (git diff |
co run "review this") goes with the prompt as data: untrusted, since nobody
typed it, so every call that sends data out after it needs a person. At
most 100,000 characters of UTF-8 text; binary or larger input is refused
(exit code 2) and nothing is sent. A terminal or /dev/null is not read;
a pipe is read until it closes.

It never waits for a person: calls that need approval do not run and are
reported. --yes approves exactly what /yolo would approve in the same
isolation (so nothing of the ask class unsandboxed, unless yolo_unsandboxed);
calls the policy denies never run.

With --json, every event is one JSON object per line (docs/commands.md),
the model's reasoning included ("reasoning" events) unless --no-reasoning.
Without --json, reasoning never reaches standard output.

Exit codes: 0 success; 1 error (provider, limit, configuration); 2 usage
error (piped input that is binary or too large too); 3 finished, but a
call was denied; 5 stopped at the cost limit (--max-cost or max_cost: the
turn ends after the call that reached it, the session saved); 130 interrupted (SIGINT), 143 after SIGTERM, 129 after
SIGHUP.

--attach FILE (repeatable) sends an image (PNG, JPEG, GIF, WebP) or a PDF
with the prompt; see "Images and PDFs" in docs/chat.md.

When shell commands would run without a sandbox, a warning says so on
standard error.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			prompt := strings.Join(args, " ")
			var piped *message.Piped
			if len(args) == 0 || prompt == "-" {
				b, err := io.ReadAll(s.In)
				if err != nil {
					return fmt.Errorf("reading the prompt from standard input: %w", err)
				}
				prompt = string(b)
			} else if stdinPiped(s.In) {
				p, err := readPiped(s)
				if message.IsPipedError(err) {
					return usageError{err, cmd.CommandPath()}
				}
				if err != nil {
					return err
				}
				if p.Text != "" {
					piped = &p
				}
			}
			if strings.TrimSpace(prompt) == "" {
				return usageError{fmt.Errorf("no prompt: give it as arguments (co run \"what is 2+2\") or on standard input"), cmd.CommandPath()}
			}
			var atts []message.Attachment
			seen := map[string]bool{}
			for _, f := range attach {
				a, err := message.ReadAttachment(f)
				if err != nil {
					return usageError{fmt.Errorf("--attach %s: %w", f, err), cmd.CommandPath()}
				}
				if seen[a.Path] { // a file named twice goes once, as in the chat
					continue
				}
				seen[a.Path] = true
				if len(atts) == message.MaxPerMessage {
					return usageError{fmt.Errorf("--attach %s: a message attaches at most %d images and PDFs", f, message.MaxPerMessage), cmd.CommandPath()}
				}
				atts = append(atts, a)
			}
			l, err := loadSettings()
			if err != nil {
				return err
			}
			if cmd.Flags().Changed("max-cost") {
				if maxCost <= 0 {
					return usageError{fmt.Errorf("--max-cost %v: give the most this run may cost in US dollars, more than 0 (e.g. --max-cost 0.50)", maxCost), cmd.CommandPath()}
				}
				l.Settings.MaxCost = maxCost
			}
			ctx, stop, received := signalContext(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
			defer stop()
			a, err := app.New(ctx, l, app.Options{Version: s.version, Resume: rf.resume(), Kind: sessions.Run})
			if err != nil {
				printConfigWarnings(s, l)
				return err
			}
			defer a.Close()
			// Every warning of the start, the settings' and the app's, on
			// stderr (the chat shows the same in its transcript).
			for _, w := range startupWarnings(a) {
				fmt.Fprintf(s.Err, "co: %s\n", w)
			}
			if n := homeNotice(a); n != "" {
				fmt.Fprintf(s.Err, "co: %s\n", n)
			}
			// A project's hooks never run headless without consent.
			if n := hooksNotice(a.Hooks(), "co hooks", "co hooks trust"); n != "" {
				fmt.Fprintf(s.Err, "co: note: %s\n", n)
			}
			if w := sandboxWarning(a, yes); w != "" {
				fmt.Fprintf(s.Err, "co: warning: %s\n", w)
			}
			// The request waits for the instruction files and skills
			// anyway: their problems go to stderr first.
			for _, n := range extensionNotes(a.Extensions.Get()) {
				fmt.Fprintf(s.Err, "co: %s\n", n)
			}
			code := headless.Run(ctx, headless.Options{Agent: a.Agent, Prompt: prompt, Attachments: atts, Piped: piped, Out: s.Out, Err: s.Err, JSON: jsonOut, Yes: yes, HideReasoning: noReasoning,
				AtExit: func() (string, []string) { return a.ExitCheck(ctx) }})
			if sig := received(); sig != 0 && code == headless.ExitInterrupted {
				code = sig // 143 after SIGTERM, 129 after SIGHUP
			}
			if code != 0 {
				return exitCode(code)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print one JSON object per event, one per line")
	cmd.Flags().Float64Var(&maxCost, "max-cost", 0, "stop the turn once this session has cost this many US dollars (exit code 5); overrides max_cost")
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "approve what /yolo would approve in this isolation (denied calls still never run)")
	cmd.Flags().BoolVar(&noReasoning, "no-reasoning", false, "leave the model's reasoning out (no \"reasoning\" events with --json)")
	cmd.Flags().StringArrayVar(&attach, "attach", nil, "send an image (PNG, JPEG, GIF, WebP) or a PDF with the prompt (repeatable)")
	rf.add(cmd, true)
	return cmd
}

// stdinPiped reports whether co run reads in as data beside a prompt given
// as arguments: a pipe, a file or a socket is read; a terminal or another
// character device (/dev/null) is not. A reader that is no file (a test's)
// is read.
func stdinPiped(in io.Reader) bool {
	f, ok := in.(*os.File)
	if !ok {
		return in != nil
	}
	fi, err := f.Stat()
	if err != nil { // closed (co run x <&-)
		return false
	}
	return fi.Mode()&os.ModeCharDevice == 0
}

// pipedWait is how long co run reads standard input before it says it is
// waiting for the pipe to close.
const pipedWait = 3 * time.Second

// readPiped reads standard input as data for the prompt. It reads until the
// pipe closes, however long the writer takes (a slow build piped in must
// not be cut short and answered without); when nothing has ended it after
// pipedWait, a line on stderr says what co waits for and how not to pipe.
func readPiped(s env) (message.Piped, error) {
	stop, said := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(said)
		t := time.NewTimer(pipedWait)
		defer t.Stop()
		select {
		case <-t.C:
			fmt.Fprintf(s.Err, "co: reading standard input (not a terminal) to send with the prompt; co run goes on when it closes. Nothing to pipe? Run it with < /dev/null\n")
		case <-stop:
		}
	}()
	p, err := message.ReadPiped(s.In)
	close(stop)
	<-said
	return p, err
}
