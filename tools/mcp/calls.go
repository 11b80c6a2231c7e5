package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/co-cli/co/tools"
)

// listTools lists every tool, page by page.
func listTools(ctx context.Context, cs *sdk.ClientSession) ([]*sdk.Tool, error) {
	var out []*sdk.Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("listing tools: %w", err)
		}
		out = append(out, t)
	}
	return out, nil
}

// setTools replaces the server's tools in the registry. m.mu is held.
func (s *server) setTools(list []*sdk.Tool) {
	reg := s.m.opts.Registry
	if reg == nil {
		return
	}
	reg.Remove(s.tools...)
	s.tools = nil
	sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
	for _, t := range list {
		name := ToolName(s.cfg.Name, t.Name, func(n string) bool { _, taken := reg.Get(n); return taken })
		schema, _ := json.Marshal(t.InputSchema)
		desc := strings.TrimSpace(t.Description)
		if desc == "" {
			desc = t.Title
		}
		tool := &Tool{name: name, remote: t.Name, srv: s, schema: Simplify(schema),
			desc:     fmt.Sprintf("%s (tool %s of MCP server %s)", desc, t.Name, s.cfg.Name),
			readOnly: t.Annotations != nil && t.Annotations.ReadOnlyHint}
		if reg.Add(tool) == nil {
			s.tools = append(s.tools, name)
		}
	}
}

// refresh lists the tools again after notifications/tools/list_changed.
func (s *server) refresh(gen int) {
	defer func() { _ = recover() }()
	m := s.m
	m.mu.Lock()
	cs := s.session
	if s.gen != gen || s.state != Connected || cs == nil {
		m.mu.Unlock()
		return
	}
	m.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.timeout())
	defer cancel()
	list, err := listTools(ctx, cs)
	m.mu.Lock()
	defer m.mu.Unlock()
	if s.gen != gen || s.state != Connected {
		return
	}
	if err != nil {
		s.problem("MCP server %s changed its tools but listing them failed: %s", s.cfg.Name, s.unexp.text(err.Error()))
		return
	}
	before := len(s.tools)
	s.setTools(list)
	s.notice("MCP server %s changed its tools: %d now (was %d)", s.cfg.Name, len(s.tools), before)
}

// call runs one tools/call within the server's timeout. sent is false
// when the call failed before any request (the server is not connected).
func (s *server) call(ctx context.Context, tool string, args json.RawMessage) (res *sdk.CallToolResult, sent bool, err error) {
	m := s.m
	m.mu.Lock()
	cs, state, why, unexp := s.session, s.state, s.err, s.unexp
	m.mu.Unlock()
	if state == NeedsLogin {
		return nil, false, errors.New(why)
	}
	if cs == nil || state != Connected {
		if why != "" {
			return nil, false, fmt.Errorf("MCP server %s is %s (%s); /mcp restart %s", s.cfg.Name, state, why, s.cfg.Name)
		}
		return nil, false, fmt.Errorf("MCP server %s is %s", s.cfg.Name, state)
	}
	timeout := s.cfg.timeout()
	cctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	timer := time.AfterFunc(timeout, func() { cancel(context.DeadlineExceeded) })
	defer timer.Stop()
	callCtx := context.Context(cctx)
	if ask := tools.FormAsker(ctx); ask != nil {
		// The call's context names it to the forms it causes (formtag.go).
		a := &asker{ask: ask, call: cctx, timer: timer, timeout: timeout, tag: newFormTag()}
		defer s.addAsker(a)()
		callCtx = withAsker(cctx, a)
	}
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	res, err = cs.CallTool(callCtx, &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		if ctx.Err() != nil {
			return nil, true, ctx.Err() // the user interrupted: the SDK sent notifications/cancelled
		}
		if ne := s.takeNeeded(); ne != nil {
			return nil, true, ne
		}
		// The error may name the endpoint, a token in it expanded.
		return nil, true, errors.New(unexp.text(callError(s.cfg.Name, tool, errors.Is(context.Cause(cctx), context.DeadlineExceeded), timeout.String(), err).Error()))
	}
	return res, true, nil
}
