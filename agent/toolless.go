package agent

// Models without tool support. Ollama refuses any request that carries
// tools for a model whose capabilities lack "tools", on both routes:
//
//	/api/chat             400 {"error":"registry.ollama.ai/library/tiny-chat:latest does not support tools"}
//	/v1/chat/completions  400 {"error":{"message":"registry.ollama.ai/library/tiny-chat:latest does not support tools","type":"invalid_request_error","param":null,"code":null}}
//
// So co sends no tools to such a model: for Ollama it knows beforehand from
// /api/show's capabilities; from any other server it learns it from that
// 400, retries the request once without tools and remembers it per
// endpoint and model. Sources: docs/providers.md, Ollama.

// llama-server run without Jinja templates (--no-jinja, or a build from
// before --jinja became its default) refuses every request with tools,
// 500 "tools param requires --jinja flag": the model may call tools, the
// server cannot render them. co takes the same path (the 500 is not
// retried as a failure) and its notice says once how to get them
// (--jinja). Sources: docs/providers.md, llama.cpp.

import (
	"fmt"

	"github.com/co-cli/co/agent/provider"
)

// noToolsKey names a model at an endpoint.
func noToolsKey(p provider.Provider) string { return p.Origin() + " " + p.Model }

// noToolsWhy is why co sends a model no tools: the server's refusal, and
// whether it was llama-server's for want of --jinja.
type noToolsWhy struct {
	refusal string
	jinja   bool
}

// markNoTools records that p.Model takes no tools, and why.
func (a *Agent) markNoTools(p provider.Provider, why noToolsWhy) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.noTools == nil {
		a.noTools = map[string]noToolsWhy{}
	}
	a.noTools[noToolsKey(p)] = why
}

// noToolsJinja reports whether co sends p.Model no tools because its
// llama-server runs without --jinja.
func (a *Agent) noToolsJinja(p provider.Provider) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.noTools[noToolsKey(p)].jinja
}

// toolsOff reports whether co sends p.Model no tools: it is known to take
// none (a 400 said so, or Ollama's /api/show lists capabilities without
// "tools"; an older Ollama that lists none is given the tools).
func (a *Agent) toolsOff(p provider.Provider) bool {
	a.mu.Lock()
	_, off := a.noTools[noToolsKey(p)]
	a.mu.Unlock()
	if off || !provider.OllamaNative(p) {
		return off
	}
	s, ok := a.ollama.Known(p)
	return ok && s.NoTools()
}

// NoTools says, for the current provider's model, why co sends it no
// tools ("" when it sends them or does not know yet): /status shows it.
func (a *Agent) NoTools() string {
	p, done, err := a.Provider()
	if !done || err != nil {
		return ""
	}
	if !a.toolsOff(p) {
		return ""
	}
	if a.noToolsJinja(p) {
		return NoToolsJinjaLine
	}
	return NoToolsLine(p.Model)
}

// NoToolsJinjaLine is the status text for a llama-server that refuses
// tools without --jinja.
const NoToolsJinjaLine = "none — llama-server refuses tools without --jinja (start it with --jinja)"

// NoToolsLine is the status text for a model that takes no tools.
func NoToolsLine(model string) string {
	return "none — " + model + " does not support tools"
}

// toolsFor is the tools' definitions to send to p: none when its model
// takes none.
func (a *Agent) toolsFor(p provider.Provider) []byte {
	if a.toolsOff(p) || a.isBare() {
		return nil
	}
	return a.toolDefs()
}

// toolsWith is toolsFor with reduced saying whether co sends only the
// core tools for a small window.
func (a *Agent) toolsWith(p provider.Provider, reduced bool) []byte {
	if a.toolsOff(p) {
		return nil
	}
	return a.toolDefsWith(reduced)
}

// toolNotice returns the notice that p's model is used without tools, once
// for each stretch of requests to such a model ("" otherwise).
func (a *Agent) toolNotice(p provider.Provider) string {
	off := a.toolsOff(p) && len(a.cfg.Tools.All()) > 0
	key := noToolsKey(p)
	a.mu.Lock()
	defer a.mu.Unlock()
	if !off {
		a.toolNoticed = ""
		return ""
	}
	if a.toolNoticed == key {
		return ""
	}
	a.toolNoticed = key
	if why := a.noTools[key]; why.jinja {
		return fmt.Sprintf("llama.cpp refused tools (HTTP 500: %s): llama-server runs without Jinja chat templates (started with --no-jinja, or a build from before --jinja became the default). co answers without tools for the rest of this session: it cannot read files, run commands or search for you. To use tools, start llama-server with --jinja.", why.refusal)
	}
	return fmt.Sprintf("%s does not support tools, so co chats with it without them: it cannot read files, run commands or search for you. To use tools, switch to a model that supports them (/model).", p.Model)
}
