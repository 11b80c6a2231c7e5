package app

import (
	"fmt"
	"strings"
	"time"

	"github.com/co-cli/co/config"
	"github.com/co-cli/co/tools"
	"github.com/co-cli/co/tools/shell"
)

// buildTools makes the run's tools: the shell (in the sandbox, under
// policy), then the local and cloud families. Families whose service is
// not configured are left out and listed in a.Unconfigured.
func (a *App) buildTools(policy *shell.Policy) error {
	st := a.Config.Settings
	sh := shell.NewTool(a.Sandbox, policy, time.Duration(st.SandboxMaxTimeout)*time.Second)
	sh.SetNetwork(st.SandboxNetwork != "" && st.SandboxNetwork != "none")
	sh.SetWorkspace(a.Workspace)
	all := []tools.Tool{sh}
	var unconfigured []tools.Unconfigured
	for _, family := range []func() ([]tools.Tool, []tools.Unconfigured, error){a.localTools, a.cloudTools} {
		ts, un, err := family()
		if err != nil {
			return err
		}
		all = append(all, ts...)
		unconfigured = append(unconfigured, un...)
	}
	ts, un := a.memoryTools()
	all, unconfigured = append(all, ts...), append(unconfigured, un...)
	reg, err := tools.NewRegistry(all...)
	if err != nil {
		return err
	}
	a.Tools, a.Unconfigured = reg, unconfigured
	return nil
}

// ShellPolicy builds the command policy from the settings.
func ShellPolicy(st config.Settings) (*shell.Policy, error) {
	var rules []shell.Rule
	for _, r := range st.ShellPolicy {
		d := tools.Ask
		switch strings.ToLower(r.Decision) {
		case "allow":
			d = tools.Allow
		case "deny":
			d = tools.Deny
		}
		rules = append(rules, shell.Rule{Match: r.Match, Decision: d, Reason: r.Reason})
	}
	p, err := shell.NewPolicy(rules, st.ShellSafeCommands)
	if err != nil {
		return nil, fmt.Errorf("shell_policy: %w", err)
	}
	return p, nil
}
