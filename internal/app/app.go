package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"go.opentelemetry.io/otel/trace/noop"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/config"
	"github.com/co-cli/co/sandbox"
	"github.com/co-cli/co/sessions"
	"github.com/co-cli/co/tools"
)

// session is one chat session's wiring: settings, agent, tools, sandbox.
type session struct {
	loaded       *config.Loaded
	id           string
	workspace    string
	agent        *agent.Agent
	tools        *tools.Registry
	unconfigured []tools.Unconfigured
	closers      []func()
	tracing      tracing
	store        *sessions.Store
	resumed      []sessions.Entry // the transcript of a resumed session, to show
	sandbox      sandbox.Sandbox
	selection    sandbox.Selection
	// hideReasoning leaves the model's reasoning out of the chat
	// (show_reasoning false or --no-reasoning).
	hideReasoning bool
	// probeOnly sessions report (co status, co policy check): they create
	// no container and open no telemetry.
	probeOnly bool
}

// loadConfig loads the settings and prints their warnings.
func loadConfig(s streams) (*config.Loaded, error) {
	l, err := config.Load(config.LoadOptions{})
	if err != nil {
		return nil, err
	}
	for _, w := range l.Warnings {
		fmt.Fprintf(s.err, "co: warning: %s\n", w)
	}
	return l, nil
}

func newSessionID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// providerSettings maps the settings the provider resolution needs.
func providerSettings(l *config.Loaded) agent.ProviderSettings {
	s := l.Settings
	return agent.ProviderSettings{
		Provider:         s.LLMProvider,
		ProviderExplicit: l.IsSet("llm_provider"),
		GeminiAPIKey:     s.GeminiAPIKey,
		GeminiModel:      s.GeminiModel,
		GeminiBaseURL:    s.GeminiBaseURL,
		OllamaHost:       s.OllamaHost,
		OllamaModel:      s.OllamaModel,
		OpenAIBaseURL:    s.OpenAIBaseURL,
		OpenAIAPIKey:     s.OpenAIAPIKey,
		OpenAIModel:      s.OpenAIModel,
	}
}

// needsProbe reports whether resolving the provider may touch the network
// (only when the default provider has no key and nothing else is set).
func needsProbe(ps agent.ProviderSettings) bool {
	return (ps.Provider == "" || ps.Provider == "gemini") && ps.GeminiAPIKey == "" && !ps.ProviderExplicit && ps.OpenAIBaseURL == ""
}

// newSession wires a chat session. It never waits on the network: the
// Ollama probe, when needed, runs in the background.
func newSession(ctx context.Context, l *config.Loaded) (*session, error) {
	return buildSession(ctx, l, false)
}

// newReportSession wires a session that only reports: no container, no
// telemetry.
func newReportSession(ctx context.Context, l *config.Loaded) (*session, error) {
	return buildSession(ctx, l, true)
}

func buildSession(ctx context.Context, l *config.Loaded, probeOnly bool) (*session, error) {
	wd, err := workingDir()
	if err != nil {
		return nil, err
	}
	ss := &session{loaded: l, id: newSessionID(), workspace: wd, probeOnly: probeOnly}
	st := l.Settings

	approvals := agent.NewApprovals(agent.ApprovalOptions{
		GrantMaxUses:    st.GrantMaxUses,
		GrantTTL:        time.Duration(st.GrantTTLMinutes) * time.Minute,
		Isolated:        false,
		YoloUnsandboxed: st.YoloUnsandboxed,
		Yolo:            st.AutoConfirm,
	})
	reg, unconf, shellDesc, err := ss.buildTools(ctx, approvals)
	if err != nil {
		ss.Close()
		return nil, err
	}
	ss.tools, ss.unconfigured = reg, unconf

	if probeOnly {
		ss.tracing = tracing{tracer: noop.NewTracerProvider().Tracer("co"), shutdown: func() {}}
	} else {
		ss.tracing = ss.setupTelemetry(ctx)
	}
	ss.closers = append(ss.closers, ss.tracing.shutdown)
	if !probeOnly {
		ss.traceSandboxStart()
	}

	ps := providerSettings(l)
	cfg := agent.Config{
		SystemPrompt: agent.SystemPrompt(agent.PromptInfo{Shell: shellDesc, Workspace: wd, Today: time.Now().Format("2006-01-02")}),
		Tools:        reg,
		Approvals:    approvals,
		MaxRequests:  st.MaxRequestLimit,
		ToolRetries:  st.ToolRetries,
		StallTimeout: time.Duration(st.LLMStallTimeout) * time.Second,
		SessionID:    ss.id,
		Tracer:       ss.tracing.tracer,
		History: agent.HistoryOptions{
			TrimChars:    st.ToolOutputTrimChars,
			MaxMessages:  st.MaxHistoryMessages,
			SummaryModel: st.SummarizationModel,
		},
		Settings: ps,
		Request: agent.RequestOptions{
			ReasoningEffort: st.ReasoningEffort,
			MaxTokens:       st.LLMMaxTokens,
			OllamaNumCtx:    st.OllamaNumCtx,
		},
	}
	if st.LLMTemperature >= 0 {
		t := st.LLMTemperature
		cfg.Request.Temperature = &t
	}
	if needsProbe(ps) {
		cfg.Resolve = func(ctx context.Context) (agent.Provider, string, error) {
			return agent.ResolveProvider(ctx, ps, agent.ProbeHTTP)
		}
	} else {
		cfg.Provider, _, cfg.ProviderErr = agent.ResolveProvider(ctx, ps, nil)
	}
	ss.agent = agent.New(cfg)
	return ss, nil
}

// Close releases what the session made (the sandbox container).
func (ss *session) Close() {
	for i := len(ss.closers) - 1; i >= 0; i-- {
		ss.closers[i]()
	}
	ss.closers = nil
}

// providerLine describes the provider without waiting for a probe.
func (ss *session) providerLine() string {
	p, done, err := ss.agent.Provider()
	switch {
	case !done:
		return "provider: checking for Ollama…"
	case err != nil:
		return "provider: none usable — " + err.Error()
	}
	return fmt.Sprintf("provider: %s (%s)", p.Name, p.Model)
}

// toolsText is the /tools listing.
func (ss *session) toolsText() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d tools:\n", ss.tools.Len())
	for _, t := range ss.tools.All() {
		fmt.Fprintf(&b, "  %-24s %s\n", t.Name(), approvalClass(t))
	}
	for _, u := range ss.unconfigured {
		fmt.Fprintf(&b, "  %s\n", u)
	}
	return b.String()
}

// sandboxWarning is set when shell commands run without isolation: it is
// shown persistently (banner, status bar badge, co status).
func (ss *session) sandboxWarning() string {
	if _, unsandboxed := ss.isolation(); !unsandboxed {
		return ""
	}
	if ss.selection.Warning != "" {
		return ss.selection.Warning
	}
	return "UNSANDBOXED: shell commands run directly on this machine (sandbox_backend=subprocess); every command asks"
}

// approvalClass says how a tool's calls are approved, for /tools.
func approvalClass(t tools.Tool) string {
	_, perCall := t.(tools.Checker)
	switch {
	case perCall && t.Class() == tools.ReadOnly:
		return "read-only, but some calls ask (decided per call)"
	case perCall:
		return "asks, decided per call by its policy"
	case t.Class() == tools.ReadOnly:
		return "read-only: runs at once"
	}
	return "asks"
}
