package cli

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/co-cli/co/internal/app"
	"github.com/co-cli/co/telemetry"
)

// co tail, co traces and co logs read the span store and never write it.

// spanStore opens the span store of the data dir (XDG honoured) for
// reading, without loading the whole configuration; path is its file.
func spanStore() (st *telemetry.Store, path string, err error) {
	dir, err := app.DataDir()
	if err != nil {
		return nil, "", err
	}
	return app.OpenSpans(dir), app.SpansPath(dir), nil
}

func interruptible() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
}

func newTailCmd(s env) *cobra.Command {
	var o telemetry.TailOptions
	var toolsOnly, noFollow, all bool
	cmd := &cobra.Command{
		Use:   "tail",
		Short: "Follow co's spans (turns, LLM calls, tool calls) as they are written",
		Long: `co tail prints co's telemetry from the local store, one line per span: time,
kind (AGENT, LLM, TOOL), name, key attributes, duration and ERROR. A line
marks each new trace (one user turn). It keeps following the store while co
runs in another terminal, until Ctrl-C.

--detail adds tool arguments and results, prompt and response text (when
telemetry_capture_content is on) and errors. --json prints each span as one
JSON object per line. Spans are shown in the order they started. --all adds
the spans of other kinds (SPAN: the sandbox's start, the Docker API
client's requests), which are left out by default.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if toolsOnly && o.Filter.LLMOnly {
				return usageError{errors.New("--tools-only and --llm-only exclude each other"), cmd.CommandPath()}
			}
			if o.Last < 0 {
				return usageError{errors.New("--last must be 0 or more"), cmd.CommandPath()}
			}
			if toolsOnly {
				o.Filter.Tool = "*"
			}
			o.Filter.CoKinds = !all
			o.Follow = !noFollow
			o.Waiting = s.Err
			if f, ok := s.Out.(*os.File); ok && !o.JSON && !noColor() && term.IsTerminal(f.Fd()) {
				o.Color = true
			}
			st, _, err := spanStore()
			if err != nil {
				return err
			}
			defer st.Close()
			ctx, stop := interruptible()
			defer stop()
			return telemetry.Tail(ctx, st, s.Out, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Filter.TraceID, "trace", "", "only this trace (an id or its first characters)")
	f.BoolVar(&toolsOnly, "tools-only", false, "only tool calls")
	f.BoolVar(&o.Filter.LLMOnly, "llm-only", false, "only LLM requests")
	f.IntVarP(&o.Last, "last", "n", 20, "start with the last N stored spans (0: all)")
	f.BoolVar(&noFollow, "no-follow", false, "print what is stored and exit")
	f.BoolVar(&o.Detail, "detail", false, "show arguments, results, prompt and response text, errors")
	f.BoolVar(&o.JSON, "json", false, "one JSON object per span")
	f.BoolVar(&all, "all", false, "also spans of other kinds (SPAN: sandbox start, Docker API requests)")
	return cmd
}
