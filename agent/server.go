package agent

// What the server behind an OpenAI-compatible endpoint is, when it says
// so: llama.cpp's llama-server names its build in GET /props (asked with
// the window, budget.go). co then calls it "llama.cpp", not "openai", in
// co status and /status, on its chat spans (gen_ai.provider.name) and in
// its messages. Sources: docs/providers.md, llama.cpp.

import "github.com/co-cli/co/agent/provider"

// setServer records what p's endpoint said it is; a.mu is held.
func (a *Agent) setServer(p provider.Provider, info provider.ServerInfo) {
	if a.budget.servers == nil {
		a.budget.servers = map[string]provider.ServerInfo{}
	}
	a.budget.servers[p.Origin()] = info
}

// serverOf is what p's endpoint said it is (zero when it said nothing).
func (a *Agent) serverOf(p provider.Provider) provider.ServerInfo {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.budget.servers[p.Origin()]
}

// nameOf is what co calls p: the server's own name when it said it, else
// the provider's kind (gemini, ollama, openai).
func (a *Agent) nameOf(p provider.Provider) string {
	if s := a.serverOf(p).Server; s != "" {
		return s
	}
	return p.Name
}

// ProviderName is what co calls the current provider (co status, /status):
// "llama.cpp" once its /props said so, else gemini, ollama or openai.
func (a *Agent) ProviderName() string {
	p, _, _ := a.Provider()
	return a.nameOf(p)
}

// ServerBuild is the build the current provider's server reported (llama.cpp's
// build_info), "" when none.
func (a *Agent) ServerBuild() string {
	p, _, _ := a.Provider()
	return a.serverOf(p).Build
}

// isLlamaCpp reports whether p is known to be llama.cpp's llama-server.
func (a *Agent) isLlamaCpp(p provider.Provider) bool {
	return a.serverOf(p).Server == provider.LlamaCpp
}
