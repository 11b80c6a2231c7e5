package cli

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/co-cli/co/telemetry"
)

func newLogsCmd(s env) *cobra.Command {
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
				return usageError{fmt.Errorf("--port %d is not a port", port), cmd.CommandPath()}
			}
			st, path, err := spanStore()
			if err != nil {
				return err
			}
			defer st.Close()
			ctx, stop := interruptible()
			defer stop()
			d := telemetry.NewDashboard(st)
			err = d.Serve(ctx, net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), func(url string) {
				fmt.Fprintf(s.Out, "co logs: %s (store %s) — Ctrl-C stops it\n", url, path)
				if open {
					if err := openBrowser(url); err != nil {
						fmt.Fprintf(s.Err, "co logs: open %s in a browser (%v)\n", url, err)
					}
				}
			})
			if errors.Is(err, syscall.EADDRINUSE) {
				return fmt.Errorf("port %d is in use (another co logs?): give another with --port N, or leave --port out for a free one", port)
			}
			return err
		},
	}
	cmd.Flags().IntVar(&port, "port", 0, "port on 127.0.0.1 (0: a free one)")
	cmd.Flags().BoolVar(&open, "open", false, "open the dashboard in a browser")
	return cmd
}
