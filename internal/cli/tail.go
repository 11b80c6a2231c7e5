package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/co-cli/co/config"
	"github.com/co-cli/co/telemetry"
)

// telemetryCommands are co tail, co traces and co logs. They read the span
// store and never write it.
func telemetryCommands(s streams) []*cobra.Command {
	return []*cobra.Command{newTailCmd(s), newTracesCmd(s), newLogsCmd(s)}
}

// storePath is the span store of the data dir (XDG honoured), without
// loading the whole configuration.
func storePath() (string, error) {
	p, err := config.ResolvePaths(config.LoadOptions{})
	if err != nil {
		return "", err
	}
	return telemetry.DBPath(p.DataDir), nil
}

func interruptible() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
}

func newTailCmd(s streams) *cobra.Command {
	var o telemetry.TailOptions
	var toolsOnly, noFollow bool
	cmd := &cobra.Command{
		Use:   "tail",
		Short: "Follow co's spans (turns, LLM calls, tool calls) as they are written",
		Long: `co tail prints co's telemetry from the local store, one line per span: time,
kind (AGENT, LLM, TOOL), name, key attributes, duration and ERROR. A line
marks each new trace (one user turn). It keeps following the store while co
runs in another terminal, until Ctrl-C.

--detail adds tool arguments and results, prompt and response text (when
telemetry_capture_content is on) and errors. --json prints each span as one
JSON object per line.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if toolsOnly && o.Filter.LLMOnly {
				return usageError{errors.New("--tools-only and --llm-only exclude each other")}
			}
			if o.Last < 0 {
				return usageError{errors.New("--last must be 0 or more")}
			}
			if toolsOnly {
				o.Filter.Tool = "*"
			}
			o.Follow = !noFollow
			o.Waiting = s.err
			if f, ok := s.out.(*os.File); ok && !o.JSON && os.Getenv("NO_COLOR") == "" && term.IsTerminal(f.Fd()) {
				o.Color = true
			}
			path, err := storePath()
			if err != nil {
				return err
			}
			st := telemetry.OpenStore(path)
			defer st.Close()
			ctx, stop := interruptible()
			defer stop()
			return telemetry.Tail(ctx, st, s.out, o)
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
	return cmd
}

func newTracesCmd(s streams) *cobra.Command {
	var out string
	var noOpen bool
	cmd := &cobra.Command{
		Use:   "traces [TRACE_ID]",
		Short: "Write a trace as a self-contained HTML waterfall and open it",
		Long: `co traces writes one trace (the latest when no id is given; the first
characters of an id are enough) as a single HTML file that needs no network:
the span tree as a waterfall, each span's attributes on a click. It opens a
browser when one is available and prints the file's path.`,
		Args: usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			path, err := storePath()
			if err != nil {
				return err
			}
			st := telemetry.OpenStore(path)
			defer st.Close()
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			id := ""
			if len(args) == 1 {
				id = args[0]
			} else if id, err = st.LatestTraceID(ctx); err != nil {
				return tracesErr(err, path)
			}
			spans, err := st.Trace(ctx, id)
			if err != nil {
				return tracesErr(err, path)
			}
			id = spans[0].TraceID
			if out == "" {
				out = filepath.Join(os.TempDir(), "co-trace-"+id[:16]+".html")
			}
			f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
			if err != nil {
				return err
			}
			if err := telemetry.WriteTraceHTML(f, id, spans); err != nil {
				f.Close()
				return err
			}
			if err := f.Close(); err != nil {
				return err
			}
			abs, _ := filepath.Abs(out)
			fmt.Fprintf(s.out, "%s\n", abs)
			if !noOpen {
				if err := openBrowser("file://" + abs); err != nil {
					fmt.Fprintf(s.err, "co traces: open %s in a browser (%v)\n", abs, err)
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "write the HTML here (default: a file in the temp dir)")
	cmd.Flags().BoolVar(&noOpen, "no-open", false, "only write the file and print its path")
	return cmd
}

func tracesErr(err error, path string) error {
	switch {
	case errors.Is(err, telemetry.ErrNoStore):
		return fmt.Errorf("no traces yet: co has not written %s", path)
	case errors.Is(err, telemetry.ErrNoTrace):
		return fmt.Errorf("no such trace in %s (co tail lists them)", path)
	}
	return err
}

// errNoBrowser: nothing to open a page with (a server, an SSH session).
var errNoBrowser = errors.New("no browser available")

// openBrowser opens url with $BROWSER, or the desktop's opener when there
// is a display. It does not wait for the browser.
func openBrowser(url string) error {
	var cmd *exec.Cmd
	switch {
	case os.Getenv("BROWSER") != "":
		cmd = exec.Command(os.Getenv("BROWSER"), url)
	case runtime.GOOS == "darwin":
		cmd = exec.Command("open", url)
	case os.Getenv("DISPLAY") != "" || os.Getenv("WAYLAND_DISPLAY") != "":
		if _, err := exec.LookPath("xdg-open"); err != nil {
			return errNoBrowser
		}
		cmd = exec.Command("xdg-open", url)
	default:
		return errNoBrowser
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _ = cmd.Wait() }()
	return nil
}

func newLogsCmd(s streams) *cobra.Command {
	var port int
	var open bool
	cmd := &cobra.Command{
		Use:   "logs",
		Short: "Serve a local dashboard of co's traces on 127.0.0.1",
		Long: `co logs serves a read-only dashboard of the local telemetry store on
127.0.0.1 (a random port unless --port is given) and prints its URL: recent
sessions and traces, filters (tool, errors only, text search), a trace's
waterfall, span details, live refresh. Everything it needs is in the co
binary; the page makes no request beyond this server. Ctrl-C stops it.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if port < 0 || port > 65535 {
				return usageError{fmt.Errorf("--port %d is not a port", port)}
			}
			path, err := storePath()
			if err != nil {
				return err
			}
			st := telemetry.OpenStore(path)
			defer st.Close()
			ctx, stop := interruptible()
			defer stop()
			d := telemetry.NewDashboard(st)
			return d.Serve(ctx, net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), func(url string) {
				fmt.Fprintf(s.out, "co logs: %s (store %s) — Ctrl-C stops it\n", url, path)
				if open {
					if err := openBrowser(url); err != nil {
						fmt.Fprintf(s.err, "co logs: open %s in a browser (%v)\n", url, err)
					}
				}
			})
		},
	}
	cmd.Flags().IntVar(&port, "port", 0, "port on 127.0.0.1 (0: a free one)")
	cmd.Flags().BoolVar(&open, "open", false, "open the dashboard in a browser")
	return cmd
}
