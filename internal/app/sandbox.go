package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/co-cli/co/sandbox"
)

// startSandbox chooses where shell commands run. It does not wait for the
// container: creation runs in the background and is traced when it ends.
func (a *App) startSandbox(ctx context.Context) error {
	st := a.Config.Settings
	cfg := sandbox.Config{
		Backend:     st.SandboxBackend,
		Fallback:    st.SandboxFallback,
		Image:       st.DockerImage,
		Workspace:   a.Workspace,
		RunID:       a.RunID,
		Network:     st.SandboxNetwork,
		MemLimit:    st.SandboxMemLimit,
		CPUs:        st.SandboxCPUs,
		MaxTimeout:  time.Duration(st.SandboxMaxTimeout) * time.Second,
		GitReadOnly: st.SandboxGitReadonly,
		// Protected from commands like AGENTS.md (lib/protect), as from the file tools.
		InstructionFiles: st.ContextFiles,
		// A home folder's start-up and credential files, co's own folders.
		Places: Places(a.Config),
		// Created after the front end's first frame (agent.Config.ToolsStart),
		// or by the first command, whichever comes first.
		Defer: true,
	}
	if !a.opts.ReportOnly {
		// The second check of the protected paths, on the same set; unsandboxed commands
		// are approved: their changes to protected paths are theirs.
		a.startWatch(cfg)
		cfg.Watch = a.watch
	}
	var sb sandbox.Sandbox
	var sel sandbox.Selection
	var err error
	if a.opts.ReportOnly {
		sel, err = sandbox.Select(ctx, cfg)
		sb = reportOnly{sel.Isolation}
	} else {
		sb, sel, err = sandbox.New(ctx, cfg)
	}
	if err != nil {
		if errors.Is(err, sandbox.ErrImageMissing) { // Docker runs: the error says how to build the image
			return fmt.Errorf("%w\nTo run commands without isolation instead, set CO_CLI_SANDBOX_BACKEND=subprocess (every command will then ask)", err)
		}
		return fmt.Errorf("%w\nTo run commands without isolation instead, set CO_CLI_SANDBOX_BACKEND=subprocess (every command will then ask), or start Docker (scripts/docker-up.sh builds the sandbox image)", err)
	}
	a.Sandbox, a.Selection = sb, sel
	a.onClose(func() { _ = sb.Close() })
	return nil
}

// Isolation reports where shell commands run.
func (a *App) Isolation() (level string, unsandboxed bool) {
	if a.Sandbox == nil {
		return "none", true
	}
	iso := a.Sandbox.Isolation()
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
// background; the chat never waits for it). It runs once the agent exists:
// the span's co.session.id is the saved session's id, as on every other
// span (agent.Agent.SessionID, when the container is ready), and co.run.id
// the run's, which names the container.
func (a *App) traceSandboxStart() {
	st, ok := a.Sandbox.(sandbox.Starter)
	if !ok {
		return
	}
	tracer, image, runID, ag := a.Telemetry.Tracer, a.Config.Settings.DockerImage, a.RunID, a.Agent
	ctx, cancel := context.WithCancel(context.Background())
	a.onClose(cancel)
	go func() {
		err := st.Ready(ctx)
		begin, took, _ := st.Started()
		if begin.IsZero() || ctx.Err() != nil {
			return
		}
		_, span := tracer.Start(context.Background(), "sandbox_start", trace.WithTimestamp(begin), trace.WithAttributes(
			attribute.String("co.sandbox.backend", "docker"),
			attribute.String("co.sandbox.image", image),
			attribute.String("co.run.id", runID),
			attribute.String("co.session.id", ag.SessionID()),
		))
		if err != nil {
			span.RecordError(err)
			span.SetStatus(codes.Error, err.Error())
			took = time.Since(begin)
		}
		span.End(trace.WithTimestamp(begin.Add(took)))
	}()
}
