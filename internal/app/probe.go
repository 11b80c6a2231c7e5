package app

import (
	"context"

	"github.com/co-cli/co/agent/provider"
)

// OllamaStatus asks the Ollama server of p (the run's provider) for its
// version and context windows, with the num_ctx the settings ask for: co
// status's probe.
func (a *App) OllamaStatus(ctx context.Context, p provider.Provider) (provider.OllamaInfo, error) {
	return provider.OllamaStatus(ctx, p, a.Config.Settings.OllamaNumCtx, nil)
}

// Reachable asks the server of p (the run's provider) for its model list,
// with the key, and says whether p.Model is served: co status's probe.
func (a *App) Reachable(ctx context.Context, p provider.Provider) (ok bool, msg, warning string) {
	return provider.CheckReachableModel(ctx, p)
}

// ResolveProvider chooses the provider for ps as a start does (a saved
// choice, else Ollama if it answers), probing over HTTP: a scheduled run
// that found none looks again before each attempt. note says what was chosen.
func (a *App) ResolveProvider(ctx context.Context, ps provider.ProviderSettings) (provider.Provider, string, error) {
	return provider.ResolveProvider(ctx, ps, provider.ProbeHTTP)
}
