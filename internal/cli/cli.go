// Package cli is co's command line: the cobra tree, one file per command
// (chat.go is the root command), the exit codes and the standard streams.
// Commands load the settings, build an app.App when they need one, and
// render what they report: the display text of the commands lives here.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/co-cli/co/config"
	"github.com/co-cli/co/internal/app"
	"github.com/co-cli/co/lib/safe"
)

// Exit codes shared by every command (co run documents its own on top).
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

// usageError marks a mistake in the command line (exit code 2). cmd is
// the command whose line it is ("co policy check"), for the hint to its
// help; empty means co itself.
type usageError struct {
	err error
	cmd string
}

func (e usageError) Error() string { return e.err.Error() }

// lineShown is a usage error whose message ends with the command's usage
// line ("missing KEY: co config unset KEY"): the hint to run --help then
// does not name the command a second time.
type lineShown struct{ error }

// exitCode carries a command's own exit code through cobra.
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit %d", int(e)) }

// Streams are the process's standard streams (tests pass their own).
type Streams struct {
	In       io.Reader
	Out, Err io.Writer
}

// env is what every command is given: the streams and co's version.
type env struct {
	Streams
	version string
}

// Main runs co as the process co: args without the program name, the
// process's streams, and the CO_CPUPROFILE and CO_MEMPROFILE hooks. It
// returns the exit code.
func Main(args []string, version string) int {
	if os.Getenv("CO_MEMPROFILE") != "" {
		runtime.MemProfileRate = 1 // every allocation: the heap is small
	}
	stop := startCPUProfile(os.Getenv("CO_CPUPROFILE"))
	code := Run(args, Streams{os.Stdin, os.Stdout, os.Stderr}, version)
	stop()
	writeHeapProfile(os.Getenv("CO_MEMPROFILE"))
	return code
}

// startCPUProfile writes a CPU profile of the whole run to path, for
// measuring co as a user runs it (`go tool pprof co FILE`). Developers
// only; an unwritable path is reported and ignored.
func startCPUProfile(path string) (stop func()) {
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "co: CO_CPUPROFILE: %v\n", err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}

// writeHeapProfile writes the live heap at exit to path (developers only).
func writeHeapProfile(path string) {
	if path == "" {
		return
	}
	f, err := os.Create(path)
	if err == nil {
		runtime.GC()
		err = pprof.WriteHeapProfile(f)
		f.Close()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "co: CO_MEMPROFILE: %v\n", err)
	}
}

// Run runs the command line args with the streams s and returns the exit
// code.
func Run(args []string, s Streams, version string) int {
	root := newRootCmd(env{s, version})
	root.SetArgs(args)
	root.SetIn(s.In)
	root.SetOut(s.Out)
	root.SetErr(s.Err)
	err := root.Execute()
	var code exitCode
	var uerr usageError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &code):
		return int(code)
	case errors.As(err, &uerr):
		name := uerr.cmd
		if name == "" {
			name = "co"
		}
		var shown lineShown
		if errors.As(uerr.err, &shown) {
			fmt.Fprintf(s.Err, "co: %s (--help says more)\n", safe.Text(uerr.err.Error()))
			return exitUsage
		}
		fmt.Fprintf(s.Err, "co: %s\nRun '%s --help' for usage.\n", safe.Text(uerr.err.Error()), name)
		return exitUsage
	default:
		fmt.Fprintf(s.Err, "co: %s\n", safe.Text(err.Error()))
		return exitError
	}
}

// noColor reports whether NO_COLOR (https://no-color.org: set and not
// empty) asks for output without colour. It is read here only, for every
// front end and command (the full-screen chat as tui.Options.NoColor,
// --plain, co tail).
func noColor() bool { return os.Getenv("NO_COLOR") != "" }

// termDumb reports whether TERM says the terminal cannot draw (TERM=dumb):
// no full-screen chat, no colour. Read here only.
func termDumb() bool { return os.Getenv("TERM") == "dumb" }

// newRootCmd is the cobra tree: co (the chat, chat.go) and its commands.
func newRootCmd(s env) *cobra.Command {
	root := newChatCmd(s)
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error { return usageError{err, cmd.CommandPath()} })
	root.AddCommand(
		newChatSubCmd(s), newRunCmd(s), newStatusCmd(s), newModelsCmd(s), newConfigCmd(s), newPolicyCmd(s), newSessionsCmd(s), newMemoryCmd(s), newVersionCmd(s),
		newTailCmd(s), newTracesCmd(s), newLogsCmd(s),
		newGoogleCmd(s), newCompletionCmd(s), newMCPCmd(s), newHooksCmd(s), newScheduleCmd(s),
		newInboxCmd(s), newUndoCmd(s),
	)
	root.CompletionOptions.DisableDefaultCmd = true
	root.SetHelpFunc(helpFunc) // every command's help fits 80 columns
	// co --version, as co version.
	root.Version = s.version
	root.SetVersionTemplate("co {{.Version}}\n")
	root.Flags().BoolP("version", "v", false, "print co's version (as co version does)")
	return root
}

// usageArgs wraps a cobra argument validator so its errors are usage errors.
func usageArgs(v cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := v(cmd, args); err != nil {
			// co status of my build: words after a command of co's that
			// takes none may be a question; the root's hint (promptArgs)
			// says how to send them.
			if len(args) > 0 && cmd.HasParent() && !cmd.Parent().HasParent() && strings.HasPrefix(err.Error(), "unknown command") {
				words := strings.Join(append([]string{cmd.Name()}, args...), " ")
				err = fmt.Errorf("%w\n\n(To send %q to the model as your first message: %s -- %s)", err, words, cmd.Root().CommandPath(), words)
			}
			return usageError{argCount(err, cmd, args), cmd.CommandPath()}
		}
		return nil
	}
}

// argCount words cobra's "accepts 1 arg(s), received 0" as what is missing
// or too many, with the command's line.
func argCount(err error, cmd *cobra.Command, args []string) error {
	var want, got int
	msg := err.Error()
	if _, e := fmt.Sscanf(msg, "accepts %d arg(s), received %d", &want, &got); e != nil {
		if _, e := fmt.Sscanf(msg, "requires at least %d arg(s), only received %d", &want, &got); e != nil {
			return err
		}
	}
	words := strings.Fields(cmd.Use)[1:]
	line := strings.Join(append([]string{cmd.CommandPath()}, words...), " ")
	switch {
	case got < want && len(words) == 1:
		return lineShown{fmt.Errorf("missing %s: %s", words[0], line)}
	case got < want && len(words) > 1:
		return lineShown{fmt.Errorf("missing arguments: %s", line)}
	case got > want && want >= 0 && want < len(args):
		extra := args[want:]
		n := "one argument"
		if len(extra) > 1 {
			n = fmt.Sprintf("%d arguments", len(extra))
		}
		return lineShown{fmt.Errorf("%s too many (%q): %s", n, strings.Join(extra, " "), line)}
	}
	return err
}

// signalContext is a context cancelled by one of sigs, and received, the
// exit code that signal calls for by convention (128 + its number: 130
// for SIGINT, 143 for SIGTERM, 129 for SIGHUP), or 0 while none came.
func signalContext(sigs ...os.Signal) (ctx context.Context, stop func(), received func() int) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, sigs...)
	var code atomic.Int32
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-ch:
			if n, ok := sig.(syscall.Signal); ok {
				code.Store(128 + int32(n))
			}
			cancel()
		case <-done:
		}
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			signal.Stop(ch)
			close(done)
			cancel()
		})
	}
	return ctx, stop, func() int { return int(code.Load()) }
}

// loadConfig loads the settings and prints their warnings.
func loadConfig(s env) (*config.Loaded, error) {
	l, err := loadSettings()
	if err != nil {
		return nil, err
	}
	printConfigWarnings(s, l)
	return l, nil
}

// loadSettings loads the settings without printing their warnings, for the
// commands that show them where they are read: the chat (the full-screen
// transcript, the --plain banner) and co status (its report).
func loadSettings() (*config.Loaded, error) {
	return app.LoadSettings(false)
}

// loadReport loads the settings for the commands that report on them (co
// status, co config): past a malformed file or a wrong value, which it
// leaves out, so they can show what they can. l is nil only when nothing
// could be loaded (no home directory); err holds the problems.
func loadReport() (l *config.Loaded, err error) {
	return app.LoadSettings(true)
}

// settingsProblems describe what a partial load left out (loadReport), one
// line each, plus, for a JSON syntax error, the line of the file and a
// caret under the column; "" lines never. Each problem's first line starts
// "ERROR: "; the text is safe to print.
func settingsProblems(l *config.Loaded) []string {
	var out []string
	for _, p := range l.Problems {
		what := "this value is left out here (the row shows the value in effect without it)"
		if p.Key == "" {
			what = "the whole file is left out here"
		}
		out = append(out, safe.Text("ERROR: "+p.Error()))
		out = append(out, sourceExcerpt(p)...)
		out = append(out, "  "+what+"; co and co run refuse to start until it is fixed")
	}
	return out
}

// sourceExcerpt is the line of the file a syntax error is on, and a caret
// under its column, or nothing when the error has no position or the
// line cannot be read.
func sourceExcerpt(p *config.Error) []string {
	if p.Line <= 0 || p.Source == "" {
		return nil
	}
	data, err := os.ReadFile(p.Source)
	if err != nil {
		return nil
	}
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	if p.Line > len(lines) {
		return nil
	}
	text := []rune(strings.ReplaceAll(lines[p.Line-1], "\t", " "))
	col := p.Column - 1 // 0-based, in runes (Column is 1-based)
	// Show at most 60 runes of a long line, around the column.
	const width = 60
	start := max(0, min(col-width/2, len(text)-width))
	end := min(len(text), start+width)
	shown := safe.Text(string(text[start:end]))
	if len([]rune(shown)) != end-start {
		// The sanitiser changed the line's length: the caret cannot be placed.
		return []string{fmt.Sprintf("  %d | %s", p.Line, shown)}
	}
	prefix := fmt.Sprintf("  %d | ", p.Line)
	return []string{prefix + shown, strings.Repeat(" ", len(prefix)-2) + "| " + strings.Repeat(" ", max(0, col-start)) + "^"}
}

// printConfigWarnings prints the settings' warnings on stderr.
func printConfigWarnings(s env, l *config.Loaded) {
	for _, w := range l.Warnings {
		fmt.Fprintf(s.Err, "co: warning: %s\n", safe.Text(fmt.Sprint(w)))
	}
}

// startupWarnings are every warning of the run's start, one line each,
// "warning: ...": the settings' (configNotes) and the app's (a store of
// saved sessions that cannot be opened, telemetry's). Every front end
// shows all of them: the full-screen transcript, the --plain banner, co
// run's stderr, co status and /status.
func startupWarnings(a *app.App) []string {
	out := configNotes(a.Config)
	for _, w := range a.Warnings() {
		out = append(out, safe.Text("warning: "+w))
	}
	return out
}

// configNotes are the settings' warnings (unknown keys, settings a project
// file may not set, ...) as the chat and co status show them: one line
// each, "warning: ...".
func configNotes(l *config.Loaded) []string {
	out := make([]string, 0, len(l.Warnings))
	for _, w := range l.Warnings {
		out = append(out, safe.Text("warning: "+fmt.Sprint(w)))
	}
	return out
}
