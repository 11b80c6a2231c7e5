package agent

import (
	"context"
	"fmt"
	"strings"

	"github.com/co-cli/co/agent/provider"
)

// Model switching (/model) and the provider set up again (Configure).

// SetModel switches the model for the next request on. spec is a model
// name of the current provider, or "PROVIDER:NAME" (gemini, ollama,
// openai) to switch provider too; the settings give that provider's key
// and address. Reasoning and signatures of the earlier messages stay in
// the history and on screen but are only sent back to where they came
// from.
func (a *Agent) SetModel(spec string) (provider.Provider, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return provider.Provider{}, fmt.Errorf("no model given: /model NAME, or /model PROVIDER:NAME (gemini, ollama, openai)")
	}
	cur, done, err := a.Provider()
	if !done {
		return provider.Provider{}, fmt.Errorf("the provider is still being resolved; try again in a moment")
	}
	name, model := "", spec
	if i := strings.IndexByte(spec, ':'); i > 0 {
		switch prefix := spec[:i]; prefix {
		case "gemini", "ollama", "openai":
			name, model = prefix, spec[i+1:]
		}
	}
	if model == "" {
		return provider.Provider{}, fmt.Errorf("no model name after %q: /model %s:NAME", name+":", name)
	}
	next := cur
	if err != nil {
		next = provider.Provider{}
	}
	if name != "" && name != cur.Name || err != nil {
		if name == "" {
			name = cur.Name
		}
		s := a.cfg.Settings
		s.Provider, s.ProviderExplicit = name, true
		switch name {
		case "gemini":
			s.GeminiModel = model
		case "ollama":
			s.OllamaModel = model
		case "openai":
			s.OpenAIModel = model
		}
		p, _, rerr := provider.ResolveProvider(context.Background(), s, nil)
		if rerr != nil {
			return provider.Provider{}, rerr
		}
		next = p
	}
	next.Model = model
	a.mu.Lock()
	// A running turn picks it up at its next request.
	a.switched = &next
	a.mu.Unlock()
	return next, nil
}

// current returns the provider for the next request: a /model switch, if
// any, else the resolved one. The client follows it.
func (a *Agent) current(p provider.Provider) provider.Provider {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.switched == nil {
		return p
	}
	np := *a.switched
	a.switched = nil
	a.provider, a.provErr = np, nil
	a.client = provider.NewClient(np, a.cfg.Retry, a.cfg.Transport)
	a.reported = ""
	a.ctxInForce = 0 // learned again from the new model's first request
	a.budget.reduced, a.budget.compact = false, false
	return np
}

// setReported keeps the model name the server reported in its response
// to a request for p's model.
func (a *Agent) setReported(p provider.Provider, m string) {
	a.mu.Lock()
	a.reported, a.reportedFor = m, reportKey(p)
	a.mu.Unlock()
}

// reportKey names the model a request asked for, at its endpoint.
func reportKey(p provider.Provider) string { return p.Origin() + "\x00" + p.Model }

// ReportedModel is the model the server said answered the last request
// (the "model" of its response) for the model in use now: "" before the
// first, and "" after a /model switch (taken up or not) until the server
// answers for the new model, so an alias arrow is never drawn from
// another model's answer (issue 27).
func (a *Agent) ReportedModel() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	cur := a.provider
	if a.switched != nil {
		cur = *a.switched
	}
	if a.reportedFor != reportKey(cur) {
		return ""
	}
	return a.reported
}

// Configure makes s the provider settings from now on, as if co had
// started with them: the provider they name (resolved without probing:
// s.Provider must be set) is used from the next request on, and /model
// PROVIDER:NAME switches within them. It is for the chat's first-run setup,
// which saves the same settings to the user file. It waits for the start-up
// resolution if that is still under way.
func (a *Agent) Configure(ctx context.Context, s provider.ProviderSettings) (provider.Provider, error) {
	s.ProviderExplicit = true
	p, _, err := provider.ResolveProvider(ctx, s, nil)
	if err != nil {
		return provider.Provider{}, err
	}
	select {
	case <-a.resolved:
	case <-ctx.Done():
		return provider.Provider{}, ctx.Err()
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.cfg.Settings = s
	a.provider, a.note, a.provErr = p, "", nil
	a.switched = &p // a running turn takes it up at its next request, as after /model
	a.client = provider.NewClient(p, a.cfg.Retry, a.cfg.Transport)
	return p, nil
}
