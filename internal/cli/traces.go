package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"github.com/co-cli/co/telemetry"
)

func newTracesCmd(s env) *cobra.Command {
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
			st, path, err := spanStore()
			if err != nil {
				return err
			}
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
			fmt.Fprintf(s.Out, "%s\n", abs)
			if !noOpen {
				if err := openBrowser("file://" + abs); err != nil {
					fmt.Fprintf(s.Err, "co traces: open %s in a browser (%v)\n", abs, err)
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
		cmd = browserCommand(os.Getenv("BROWSER"), url)
		if cmd == nil {
			return fmt.Errorf("none of the browsers $BROWSER names (%q) was found", os.Getenv("BROWSER"))
		}
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

// browserCommand reads $BROWSER as the convention has it and as Python's
// webbrowser module does: a list of commands separated by ':', the first
// that is found wins; a command may carry arguments, and %s in them is the
// URL (else the URL comes last). nil when none is found.
// (http://www.catb.org/~esr/BROWSER/, docs.python.org/3/library/webbrowser.html)
func browserCommand(browser, url string) *exec.Cmd {
	for _, entry := range strings.Split(browser, ":") {
		args := strings.Fields(entry)
		if len(args) == 0 {
			continue
		}
		if _, err := exec.LookPath(args[0]); err != nil {
			continue
		}
		placed := false
		for i, a := range args[1:] {
			if strings.Contains(a, "%s") {
				args[i+1], placed = strings.ReplaceAll(a, "%s", url), true
			}
		}
		if !placed {
			args = append(args, url)
		}
		return exec.Command(args[0], args[1:]...)
	}
	return nil
}
