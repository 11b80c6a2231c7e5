package mcp

import (
	"context"
	"net/http"
)

// SetStartHook makes each start attempt of m's servers call f first, with
// the attempt's context, before it touches anything: a test holds a start
// under way there. Set it before Start.
func SetStartHook(m *Manager, f func(ctx context.Context)) { m.startHook = f }

// SetRoundTripper makes m's remote servers' requests go through rt
// instead of http.DefaultTransport. Set it before Start.
func SetRoundTripper(m *Manager, rt http.RoundTripper) { m.roundTrip = rt }
