package mcp

import "context"

// SetStartHook makes each start attempt of m's servers call f first, with
// the attempt's context, before it touches anything: a test holds a start
// under way there. Set it before Start.
func SetStartHook(m *Manager, f func(ctx context.Context)) { m.startHook = f }
