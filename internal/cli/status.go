package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/config"
	"github.com/co-cli/co/telemetry"
	"github.com/co-cli/co/ui/safe"
)

func newStatusCmd(s streams) *cobra.Command {
	return &cobra.Command{
		Use:   "status",
		Short: "Show provider, model, reachability, config files, sandbox and telemetry",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(*cobra.Command, []string) error {
			l, err := loadConfig(s)
			if err != nil {
				return err
			}
			ctx := context.Background()
			ss, err := newReportSession(ctx, l)
			if err != nil {
				return err
			}
			defer ss.Close()
			fmt.Fprint(s.out, ss.statusText(ctx, true))
			return nil
		},
	}
}

// statusText is the report of `co status` and /status. With probe, it
// checks that the provider answers (a short network call).
func (ss *session) statusText(ctx context.Context, probe bool) string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(w, "version\t%s\n", version)
	if probe {
		pctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		_, _, _ = ss.agent.WaitProvider(pctx)
		cancel()
	}
	p, done, perr := ss.agent.Provider()
	switch {
	case !done:
		fmt.Fprintf(w, "provider\tchecking for Ollama…\n")
	case perr != nil:
		fmt.Fprintf(w, "provider\tnone usable: %s\n", perr)
	default:
		fmt.Fprintf(w, "provider\t%s\n", p.Name)
		model := p.Model
		if r := ss.agent.ReportedModel(); r != "" && r != p.Model {
			model += " (the server answers as " + r + ")"
		} else if probe {
			model += ss.lastAnswered(ctx, p)
		}
		fmt.Fprintf(w, "model\t%s\n", safe.Text(model))
		fmt.Fprintf(w, "endpoint\t%s\n", p.BaseURL)
		if cw := ss.agent.ContextWindow(); cw > 0 {
			fmt.Fprintf(w, "context window\t%d tokens\n", cw)
		} else {
			fmt.Fprintf(w, "context window\tunknown\n")
		}
		switch {
		case probe && p.Name == "ollama":
			// Native API: the version, and the context window co asks
			// for, the model's maximum and what is loaded (≤ 1 s).
			info, err := agent.OllamaStatus(ctx, p, ss.loaded.Settings.OllamaNumCtx, nil)
			if err != nil {
				fmt.Fprintf(w, "reachable\tNO — Ollama does not answer at %s (%v)\n", p.BaseURL, err)
			} else {
				fmt.Fprintf(w, "reachable\tyes (Ollama %s)\n", info.Version)
				fmt.Fprintf(w, "context\t%s\n", info.ContextLine())
			}
		case probe:
			pctx, cancel := context.WithTimeout(ctx, 3*time.Second)
			ok := agent.Reachable(pctx, p.BaseURL)
			cancel()
			if ok {
				fmt.Fprintf(w, "reachable\tyes\n")
			} else {
				fmt.Fprintf(w, "reachable\tNO — %s does not answer\n", p.BaseURL)
			}
		case p.Name == "ollama":
			// /status: no network; what the last request set.
			if n := ss.agent.ContextInForce(); n > 0 {
				fmt.Fprintf(w, "context\t%d tokens in force (num_ctx)\n", n)
			} else {
				fmt.Fprintf(w, "context\t%d tokens asked at most; known after the first reply\n", agent.OllamaNumCtx(ss.loaded.Settings.OllamaNumCtx, 0))
			}
		}
	}
	files := "none (defaults and environment only)"
	if len(ss.loaded.Files) > 0 {
		files = strings.Join(ss.loaded.Files, ", ")
	}
	fmt.Fprintf(w, "config files\t%s\n", files)
	fmt.Fprintf(w, "data dir\t%s\n", ss.loaded.Paths.DataDir)
	fmt.Fprintf(w, "workspace\t%s\n", ss.workspace)
	fmt.Fprintf(w, "tools\t%d\n", ss.tools.Len())
	for _, u := range ss.unconfigured {
		fmt.Fprintf(w, "\t%s\n", u)
	}
	for _, line := range ss.extraStatus() {
		fmt.Fprintln(w, line)
	}
	w.Flush()
	return b.String()
}

// lastAnswered is " (last answered as MODEL, 2h ago)" when the span
// store's most recent chat with p for p.Model says another model answered
// (an alias such as gemini-flash-latest names the model behind it), else
// "". It reads one row and gives up after a quarter of a second, so
// status stays fast.
func (ss *session) lastAnswered(ctx context.Context, p agent.Provider) string {
	st := telemetry.OpenStore(telemetry.DBPath(ss.loaded.Paths.DataDir))
	defer st.Close()
	ctx, cancel := context.WithTimeout(ctx, 250*time.Millisecond)
	defer cancel()
	a, ok, err := st.LastAnswered(ctx, p.Name, p.Model)
	if err != nil || !ok || strings.TrimPrefix(a.Model, "models/") == strings.TrimPrefix(p.Model, "models/") {
		return ""
	}
	return fmt.Sprintf(" (last answered as %s, %s)", strings.TrimPrefix(a.Model, "models/"), ago(time.Since(a.At)))
}

// ago renders how long ago something was: "just now", "5m ago", "2h ago",
// "3d ago".
func ago(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	default:
		return fmt.Sprintf("%dd ago", int(d.Hours()/24))
	}
}

// extraStatus are status rows of the sandbox and later subsystems.
func (ss *session) extraStatus() []string {
	level, _ := ss.isolation()
	rows := []string{fmt.Sprintf("sandbox\t%s (isolation: %s)", ss.selection.Backend, level)}
	if w := ss.sandboxWarning(); w != "" {
		rows = append(rows, "\tWARNING: "+w)
	}
	rows = append(rows, "telemetry\t"+telemetry.DBPath(ss.loaded.Paths.DataDir))
	if t := ss.tracing.t; t != nil {
		if t.OTLP() {
			rows = append(rows, "\talso exported over OTLP ($OTEL_EXPORTER_OTLP_ENDPOINT)")
		}
		if err, n := t.Err(); err != nil {
			rows = append(rows, fmt.Sprintf("\texport errors: %d, last: %v", n, err))
		}
		if d := t.Dropped(); d > 0 {
			rows = append(rows, fmt.Sprintf("\t%d spans dropped (the store could not keep up)", d))
		}
		for _, w := range t.Warnings() {
			rows = append(rows, "\twarning: "+w)
		}
	}
	if ss.store != nil {
		rows = append(rows, "sessions\t"+ss.store.Path())
	}
	return rows
}

func newConfigCmd(s streams) *cobra.Command {
	return &cobra.Command{
		Use:   "config",
		Short: "Show the effective settings, where each value comes from, secrets masked",
		Long: `co config lists every setting with its effective value and its source:
default, the user file, the project file (./.co-cli/settings.json) or an
environment variable. Precedence: environment > project file > user file >
defaults. Secrets are masked.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(*cobra.Command, []string) error {
			l, err := loadConfig(s)
			if err != nil {
				return err
			}
			printConfig(s, l)
			return nil
		},
	}
}

func printConfig(s streams, l *config.Loaded) {
	fmt.Fprintf(s.out, "user file:    %s\nproject file: %s\ndata dir:     %s\n\n", l.Paths.UserFile, l.Paths.ProjectFile, l.Paths.DataDir)
	w := tabwriter.NewWriter(s.out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "SETTING\tSOURCE\tENV\tVALUE")
	for _, e := range l.Entries() {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", e.Key, e.Source, e.Env, e.Value)
	}
	w.Flush()
}
