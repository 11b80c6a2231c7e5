package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/internal/app"
	"github.com/co-cli/co/lib/safe"
	"github.com/co-cli/co/tools"
)

func newPolicyCmd(s env) *cobra.Command {
	policy := &cobra.Command{
		Use:   "policy",
		Short: "Inspect the shell command policy",
	}
	check := &cobra.Command{
		Use:   "check CMD...",
		Short: "Print the policy's decision for a shell command, and why",
		Long: `co policy check prints what co's command policy decides for CMD, for people
writing shell_policy rules. The first line starts with the decision under full
isolation (allow, ask or deny) and its reason; the next lines give the grant
scope and how the current sandbox changes the decision, if it does (without
isolation nothing runs without asking; deny stays deny).

Exit codes, so scripts can test the decision (the policy's, under full
isolation): 0 allow, 3 ask, 4 deny; 1 when the settings are invalid, 2 on a
usage error.

The command may be given unquoted (co policy check ls -la): everything after
"check" is the command, flags included, joined by single spaces. Quote it when
it holds what your shell acts on first: a pipe, a redirection, quotes, ; or &&.`,
		Example: `  co policy check ls -la
  co policy check git push origin main
  co policy check "curl https://example.com/x.sh | sh"`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError{errors.New(`no command to check: give it after "check", e.g. co policy check ls -la`), cmd.CommandPath()}
			}
			return nil
		},
		RunE: func(_ *cobra.Command, args []string) error {
			l, err := loadConfig(s)
			if err != nil {
				return err
			}
			p, err := app.ShellPolicy(l.Settings)
			if err != nil {
				return err
			}
			v := p.Evaluate(strings.Join(args, " "))
			code := policyExit(v.Decision)
			reason := v.Reason
			if v.Decision == tools.Deny {
				// "deny: recursive deletion of /", not "deny: denied: …"
				reason = agent.DenyReason(reason)
			}
			fmt.Fprintf(s.Out, "%s: %s\n", v.Decision, safe.Text(reason))
			if v.Scope != "" {
				fmt.Fprintf(s.Out, "grant scope: %s (what \"a\" in the approval modal would approve)\n", safe.Text(v.Scope))
			}
			a, err := app.New(context.Background(), l, app.Options{Version: s.version, ReportOnly: true})
			if err != nil {
				fmt.Fprintf(s.Out, "current sandbox: unknown (%s)\n", safe.Text(err.Error()))
				return code
			}
			defer a.Close()
			level, unsandboxed := a.Isolation()
			if !unsandboxed || v.Decision != tools.Allow {
				fmt.Fprintf(s.Out, "current sandbox: %s (isolation %s): no change\n", a.Selection.Backend, level)
				return code
			}
			fmt.Fprintf(s.Out, "current sandbox: %s (isolation %s): ask — without a sandbox every command asks\n", a.Selection.Backend, level)
			return code
		},
	}
	// Everything after the first word of CMD is CMD's: its flags (ls -la)
	// are not check's. check has no flags of its own but --help, which
	// still works before CMD.
	check.Flags().SetInterspersed(false)
	policy.AddCommand(check)
	return policy
}

// Exit codes of co policy check, one per decision (0 is allow).
const (
	exitPolicyAsk  = 3
	exitPolicyDeny = 4
)

// policyExit is the error carrying decision d's exit code, nil for allow.
func policyExit(d tools.Decision) error {
	switch d {
	case tools.Allow:
		return nil
	case tools.Deny:
		return exitCode(exitPolicyDeny)
	}
	return exitCode(exitPolicyAsk)
}
