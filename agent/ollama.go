package agent

import "context"

// ollamaNative reports whether p's chats go through Ollama's native
// /api/chat.
func (a *Agent) ollamaNative(p Provider) bool { return false }

// startOllama starts a streaming /api/chat request.
func (a *Agent) startOllama(ctx context.Context, p Provider, msgs []Message) (chatStream, error) {
	panic("not yet")
}
