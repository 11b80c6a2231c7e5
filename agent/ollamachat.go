package agent

import (
	"context"

	"github.com/co-cli/co/agent/provider"
	"github.com/co-cli/co/message"
)

// The agent's side of Ollama's native API (ollama.go): the window in force
// and the reply's bound it chooses, kept for the budget and /status.

// setCtxInForce records the context window in force at the provider, for
// ContextWindow and so the summarising threshold.
func (a *Agent) setCtxInForce(n int) {
	a.mu.Lock()
	a.ctxInForce = n
	a.mu.Unlock()
}

// ContextInForce is the context window co knows the provider applies
// (Ollama's num_ctx, known after the first request), 0 when unknown.
func (a *Agent) ContextInForce() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.ctxInForce
}

// ollamaEncode encodes a request to /api/chat for model with the run's
// request options, and records the reply's bound.
func (a *Agent) ollamaEncode(ctx context.Context, p provider.Provider, model, system string, msgs []message.Message, tools []byte, stream bool) (body []byte, numCtx int, err error) {
	q := p
	q.Model = model
	body, numCtx, bound, err := a.ollama.Encode(ctx, p, provider.OllamaRequest{
		Model: model, System: system, Msgs: msgs, Tools: tools, Stream: stream, Options: a.cfg.Request,
		Window: a.ContextWindow,
		Bound:  func(window int, caps []string) int { return a.replyBound(q, window, caps) },
	})
	a.setBound(bound)
	return body, numCtx, err
}

// startOllama starts a streaming /api/chat request.
func (a *Agent) startOllama(ctx context.Context, p provider.Provider, system string, msgs []message.Message) (provider.Stream, error) {
	// The model's capabilities first (/api/show, once): a model without
	// "tools" gets none (toolless.go).
	a.ollama.Model(ctx, p)
	body, numCtx, err := a.ollamaEncode(ctx, p, p.Model, system, msgs, a.toolsFor(p), true)
	if err != nil {
		return nil, err
	}
	var onDone func()
	if numCtx > 0 {
		a.setCtxInForce(numCtx)
	} else {
		// No num_ctx sent: the window in force is Ollama's default, which
		// /api/ps reports once the model is loaded (asked once a model).
		known, asked := a.ollama.LoadedCtx(p)
		a.setCtxInForce(known)
		if !asked {
			onDone = func() { a.ollamaAskLoaded(p) }
		}
	}
	return a.ollama.Start(ctx, p, body, onDone)
}

// ollamaAskLoaded learns the window in force from /api/ps after a reply,
// when co sent no num_ctx.
func (a *Agent) ollamaAskLoaded(p provider.Provider) {
	n, err := a.ollama.AskLoaded(p)
	// Asked in the background: a /model switch may have come meanwhile.
	if cur, _, _ := a.Provider(); err == nil && n > 0 && provider.OllamaKey(cur) == provider.OllamaKey(p) {
		a.setCtxInForce(n)
	}
}

// ollamaComplete asks /api/chat for one whole answer (the summariser), with
// the same context window as the chat and num_predict as bound chooses for
// the window and the model's capabilities.
func (a *Agent) ollamaComplete(ctx context.Context, p provider.Provider, model, system, user string, bound func(window int, caps []string) int) (text, finish string, u message.Usage, err error) {
	body, _, _, err := a.ollama.Encode(ctx, p, provider.OllamaRequest{
		Model: model, System: system, Msgs: []message.Message{{Role: message.RoleUser, Content: user}},
		Options: a.cfg.Request, Window: a.ContextWindow, Bound: bound,
	})
	if err != nil {
		return "", "", message.Usage{}, err
	}
	return a.ollama.Complete(ctx, p, body)
}
