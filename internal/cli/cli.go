// Command co is a personal AI assistant that lives in the terminal.
//
// This file is wiring only: flags and commands (cobra) → config.Load →
// sandbox → tools registry → agent → front end. Each step lives in its own
// package; see ARCHITECTURE.md.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "0.1.0-dev"

// Exit codes shared by every command (co run documents its own on top).
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

// usageError marks a mistake in the command line (exit code 2).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }

// exitCode carries a command's own exit code through cobra.
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit %d", int(e)) }

// streams are the process's standard streams (tests pass their own).
type streams struct {
	in       io.Reader
	out, err io.Writer
}

func main() {
	if os.Getenv("CO_MEMPROFILE") != "" {
		runtime.MemProfileRate = 1 // every allocation: the heap is small
	}
	stop := startCPUProfile(os.Getenv("CO_CPUPROFILE"))
	code := run(os.Args[1:], streams{os.Stdin, os.Stdout, os.Stderr})
	stop()
	writeHeapProfile(os.Getenv("CO_MEMPROFILE"))
	os.Exit(code)
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

func run(args []string, s streams) int {
	root := newRootCmd(s)
	root.SetArgs(args)
	root.SetIn(s.in)
	root.SetOut(s.out)
	root.SetErr(s.err)
	err := root.Execute()
	var code exitCode
	var uerr usageError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &code):
		return int(code)
	case errors.As(err, &uerr):
		fmt.Fprintf(s.err, "co: %v\nRun 'co --help' for usage.\n", uerr.err)
		return exitUsage
	default:
		fmt.Fprintf(s.err, "co: %v\n", err)
		return exitError
	}
}

func newRootCmd(s streams) *cobra.Command {
	var plain, noReasoning bool
	var rf resumeFlags
	root := &cobra.Command{
		Use:   "co",
		Short: "co — a personal AI assistant in your terminal",
		Long: `co opens a chat with an LLM (Gemini, Ollama or any OpenAI-compatible server)
that can call tools: shell commands in a Docker sandbox, workspace files,
notes, the web, Google and Slack. Side-effecting calls stop for your approval.

Without a subcommand, co starts the chat. It uses the line-based --plain mode
when standard output is not a terminal or TERM is dumb.`,
		Args:          usageArgs(cobra.NoArgs),
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runChat(cmd, s, chatFlags{plain: plain, noReasoning: noReasoning}, rf)
		},
	}
	root.Flags().BoolVar(&plain, "plain", false, "line-based chat for dumb terminals, pipes and screen readers")
	root.Flags().BoolVar(&noReasoning, "no-reasoning", false, "hide the model's reasoning (as show_reasoning=false does)")
	rf.add(root)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(newRunCmd(s), newStatusCmd(s), newModelsCmd(s), newConfigCmd(s), newPolicyCmd(s), newSessionsCmd(s), newVersionCmd(s))
	root.AddCommand(telemetryCommands(s)...)
	root.AddCommand(googleCommands(s)...)
	root.CompletionOptions.DisableDefaultCmd = true
	return root
}

// usageArgs wraps a cobra argument validator so its errors are usage errors.
func usageArgs(v cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := v(cmd, args); err != nil {
			return usageError{err}
		}
		return nil
	}
}

func newVersionCmd(s streams) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print co's version",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(*cobra.Command, []string) error {
			fmt.Fprintf(s.out, "co %s\n", version)
			return nil
		},
	}
}
