package agent

import (
	"context"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/co-cli/co/agent/provider"
)

// Warm opens the connection to the provider in the background (DNS, TCP,
// TLS), so that the first prompt does not pay for the handshakes. Front ends
// call it after their first frame, never before. It sends a HEAD request for
// the API's base path, with no credentials and no content, through the
// transport the chat requests use: the connection then waits in that
// transport's pool, where net/http notices if the server closes it. Any
// failure is silent: the real request reports it. It also starts the tools
// that come up in the background (Config.ToolsStart).
func (a *Agent) Warm() {
	a.startTools()
	go func() {
		defer func() { _ = recover() }()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		p, _, err := a.WaitProvider(ctx)
		if err != nil || p.BaseURL == "" {
			return
		}
		u := strings.TrimRight(p.BaseURL, "/") + "/"
		if provider.OllamaNative(p) {
			u = provider.OllamaRoot(p.BaseURL) + "/"
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodHead, u, nil)
		if err != nil {
			return
		}
		base := a.cfg.Transport
		if base == nil {
			base = http.DefaultTransport
		}
		resp, err := base.RoundTrip(req)
		if err != nil {
			return
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
		resp.Body.Close()
		// Then the context window (budget.go), over the same connection.
		a.learnWindow(ctx, p)
	}()
}
