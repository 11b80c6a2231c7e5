package main

import (
	"context"

	"fmt"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"strings"
	"time"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/config"
	"github.com/co-cli/co/sandbox"
	"github.com/co-cli/co/tools"
	"github.com/co-cli/co/tools/shell"
)

// buildTools makes the session's tools. It returns the registry, the
// families left out because their service is not configured, and a
// sentence for the system prompt saying where shell commands run.
func (ss *session) buildTools(ctx context.Context, approvals *agent.Approvals) (*tools.Registry, []tools.Unconfigured, string, error) {
	st := ss.loaded.Settings
	policy, err := shellPolicy(st)
	if err != nil {
		return nil, nil, "", err
	}
	cfg := sandbox.Config{
		Backend:     st.SandboxBackend,
		Fallback:    st.SandboxFallback,
		Image:       st.DockerImage,
		Workspace:   ss.workspace,
		SessionID:   ss.id,
		Network:     st.SandboxNetwork,
		MemLimit:    st.SandboxMemLimit,
		CPUs:        st.SandboxCPUs,
		MaxTimeout:  time.Duration(st.SandboxMaxTimeout) * time.Second,
		GitReadOnly: st.SandboxGitReadonly,
	}
	var sb sandbox.Sandbox
	var sel sandbox.Selection
	if ss.probeOnly {
		sel, err = sandbox.Select(ctx, cfg)
		sb = reportOnly{sel.Isolation}
	} else {
		sb, sel, err = sandbox.New(ctx, cfg)
	}
	if err != nil {
		return nil, nil, "", fmt.Errorf("%w\nTo run commands without isolation instead, set CO_CLI_SANDBOX_BACKEND=subprocess (every command will then ask), or start Docker (scripts/docker-up.sh builds the sandbox image)", err)
	}
	ss.sandbox, ss.selection = sb, sel
	ss.closers = append(ss.closers, func() { _ = sb.Close() })
	approvals.SetIsolated(sb.Isolation() == sandbox.Full, st.YoloUnsandboxed)

	all := []tools.Tool{shell.NewTool(sb, policy, time.Duration(st.SandboxMaxTimeout)*time.Second)}
	var unconfigured []tools.Unconfigured
	for _, family := range []func() ([]tools.Tool, []tools.Unconfigured, error){ss.localTools, ss.cloudTools} {
		ts, un, err := family()
		if err != nil {
			return nil, nil, "", err
		}
		all = append(all, ts...)
		unconfigured = append(unconfigured, un...)
	}
	reg, err := tools.NewRegistry(all...)
	if err != nil {
		return nil, nil, "", err
	}
	where := "in a Docker sandbox with the workspace mounted at /workspace"
	if sb.Isolation() != sandbox.Full {
		where = "directly on the user's machine in the workspace directory (no sandbox)"
	}
	return reg, unconfigured, where, nil
}

// shellPolicy builds the command policy from the settings.
func shellPolicy(st config.Settings) (*shell.Policy, error) {
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

// isolation reports where shell commands run.
func (ss *session) isolation() (level string, unsandboxed bool) {
	if ss.sandbox == nil {
		return "none", true
	}
	iso := ss.sandbox.Isolation()
	return string(iso), iso != sandbox.Full
}

// reportOnly stands for the sandbox in commands that only report (co
// status, co policy check): it knows the isolation New would give and runs
// nothing.
type reportOnly struct{ iso sandbox.Isolation }

func (r reportOnly) Run(context.Context, string, sandbox.Options) (sandbox.Output, error) {
	return sandbox.Output{}, fmt.Errorf("this command only reports; it runs no shell commands")
}
func (r reportOnly) Isolation() sandbox.Isolation { return r.iso }
func (r reportOnly) Close() error                 { return nil }

// traceSandboxStart records the container's creation as a sandbox_start
// span, with its real start and end, once it is ready (creation runs in the
// background; the chat never waits for it).
func (ss *session) traceSandboxStart() {
	st, ok := ss.sandbox.(sandbox.Starter)
	if !ok {
		return
	}
	tracer, image, id := ss.tracing.tracer, ss.loaded.Settings.DockerImage, ss.id
	ctx, cancel := context.WithCancel(context.Background())
	ss.closers = append(ss.closers, cancel)
	go func() {
		err := st.Ready(ctx)
		begin, took, _ := st.Started()
		if begin.IsZero() || ctx.Err() != nil {
			return
		}
		_, span := tracer.Start(context.Background(), "sandbox_start", trace.WithTimestamp(begin), trace.WithAttributes(
			attribute.String("co.sandbox.backend", "docker"),
			attribute.String("co.sandbox.image", image),
			attribute.String("co.session.id", id),
		))
		if err != nil {
			span.RecordError(err)
			span.SetStatus(codes.Error, err.Error())
			took = time.Since(begin)
		}
		span.End(trace.WithTimestamp(begin.Add(took)))
	}()
}
