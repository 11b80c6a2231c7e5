package agent

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/co-cli/co/agent/provider"
)

// What the server says about its models: the list, fetched once a run.

// modelCache holds each endpoint's model list, fetched once a session.
type modelCache struct {
	mu    sync.Mutex
	lists map[string]*modelList // by Provider.Origin
}

type modelList struct {
	done  chan struct{}
	names []string
	err   error
}

// Models returns the chat models of the current provider, fetched in the
// background the first time and then cached for the session.
func (a *Agent) Models(ctx context.Context) ([]string, error) {
	if _, _, err := a.WaitProvider(ctx); err != nil && ctx.Err() != nil {
		return nil, err
	}
	// After /model PROVIDER:NAME, the provider switched to, before its
	// first request.
	p, _, err := a.Provider()
	if err != nil {
		return nil, err
	}
	return a.modelsOf(ctx, p)
}

func (a *Agent) modelsOf(ctx context.Context, p provider.Provider) ([]string, error) {
	a.models.mu.Lock()
	if a.models.lists == nil {
		a.models.lists = map[string]*modelList{}
	}
	l, ok := a.models.lists[p.Origin()]
	if !ok {
		l = &modelList{done: make(chan struct{})}
		a.models.lists[p.Origin()] = l
		go func() {
			defer close(l.done)
			defer func() {
				if r := recover(); r != nil {
					l.err = fmt.Errorf("listing models panicked: %v", r)
				}
			}()
			cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			l.names, l.err = provider.ListModels(cctx, p, a.httpClient())
		}()
	}
	a.models.mu.Unlock()
	select {
	case <-l.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if l.err != nil {
		// Not cached: the next /model asks again.
		a.models.mu.Lock()
		if a.models.lists[p.Origin()] == l {
			delete(a.models.lists, p.Origin())
		}
		a.models.mu.Unlock()
	}
	return l.names, l.err
}

// CachedModels returns the current provider's model list if it has been
// fetched, without waiting (Tab completion).
func (a *Agent) CachedModels() []string {
	p, done, err := a.Provider()
	if !done || err != nil {
		return nil
	}
	a.models.mu.Lock()
	l := a.models.lists[p.Origin()]
	a.models.mu.Unlock()
	if l == nil {
		return nil
	}
	select {
	case <-l.done:
		return l.names
	default:
		return nil
	}
}

// httpClient is a plain client over the configured transport.
func (a *Agent) httpClient() *http.Client {
	if a.cfg.Transport != nil {
		return &http.Client{Transport: a.cfg.Transport}
	}
	return http.DefaultClient
}
