package app

import (
	"context"
	"github.com/co-cli/co/lib/cost"
	"time"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/provider"
	"github.com/co-cli/co/config"
	"github.com/co-cli/co/sandbox"
)

// ProviderSettings maps the settings the provider resolution needs.
func ProviderSettings(l *config.Loaded) provider.ProviderSettings {
	s := l.Settings
	return provider.ProviderSettings{
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

// NeedsProbe reports whether resolving the provider may touch the network
// (only when the default provider has no key and nothing else is set).
func NeedsProbe(ps provider.ProviderSettings) bool {
	return (ps.Provider == "" || ps.Provider == "gemini") && ps.GeminiAPIKey == "" && !ps.ProviderExplicit && ps.OpenAIBaseURL == ""
}

// agentConfig is the agent's configuration, from the settings and the
// parts made before it. It never waits on the network: the Ollama probe,
// when needed, runs in the background.
func (a *App) agentConfig(ctx context.Context) agent.Config {
	st := a.Config.Settings
	ps := ProviderSettings(a.Config)
	where := "in a Docker sandbox with the workspace mounted at /workspace"
	if a.Sandbox.Isolation() != sandbox.Full {
		where = "directly on the user's machine in the workspace directory (no sandbox)"
	}
	cfg := agent.Config{
		SystemPrompt: agent.SystemPrompt(agent.PromptInfo{Shell: where, Workspace: a.Workspace, Today: time.Now().Format("2006-01-02")}),
		MorePrompt:   a.morePrompt,
		Tools:        a.Tools,
		Approvals:    a.Approvals,
		MaxRequests:  st.MaxRequestLimit,
		Prices:       cost.Builtin().With(st.ModelPrices),
		MaxCost:      st.MaxCost,
		ToolRetries:  st.ToolRetries,
		StallTimeout: time.Duration(st.LLMStallTimeout) * time.Second,
		SessionID:    a.SessionID,
		Tracer:       a.Telemetry.Tracer,
		History: agent.HistoryOptions{
			TrimChars:     st.ToolOutputTrimChars,
			MaxMessages:   st.MaxHistoryMessages,
			SummaryModel:  st.SummarizationModel,
			ContextWindow: st.LLMContextWindow,
		},
		ToolGroups: st.LLMToolGroups,
		Settings:   ps,
		Recall:     a.memoryRecall(),
		Hooks:      a.hooks,
		Request: provider.RequestOptions{
			ReasoningEffort: st.ReasoningEffort,
			MaxTokens:       st.LLMMaxTokens,
			OllamaNumCtx:    st.OllamaNumCtx,
		},
	}
	if a.MCP != nil {
		cfg.ToolsStart, cfg.ToolsReady = a.MCP.Start, a.MCP.Ready
	}
	if a.watch != nil {
		cfg.Protected = watchAdapter{a.watch}
		start := cfg.ToolsStart
		cfg.ToolsStart = func() {
			a.primeWatch()
			if start != nil {
				start()
			}
		}
	}
	if st, ok := a.Sandbox.(sandbox.Starter); ok {
		// The container is created after the first frame (agent.Warm), or
		// when co run's turn begins, not while co starts.
		mcpStart := cfg.ToolsStart
		cfg.ToolsStart = func() {
			st.Start()
			if mcpStart != nil {
				mcpStart()
			}
		}
	}
	a.undoConfig(&cfg)
	if st.LLMTemperature >= 0 {
		t := st.LLMTemperature
		cfg.Request.Temperature = &t
	}
	if NeedsProbe(ps) {
		cfg.Resolve = func(ctx context.Context) (provider.Provider, string, error) {
			return provider.ResolveProvider(ctx, ps, provider.ProbeHTTP)
		}
	} else {
		cfg.Provider, _, cfg.ProviderErr = provider.ResolveProvider(ctx, ps, nil)
	}
	return cfg
}

// morePrompt is what the extensions add to the system prompt: the project
// instructions and the skills' names and descriptions.
func (a *App) morePrompt(ctx context.Context) (string, error) {
	set, err := a.Extensions.Wait(ctx)
	if err != nil {
		return "", err
	}
	return set.Prompt(), nil
}
