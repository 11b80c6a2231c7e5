package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/co-cli/co/tools"
)

// asker is one running tools/call of a server that can show the user a
// form (its context carries tools.WithForm), with the call's timeout,
// which does not run while the user fills a form of it in.
type asker struct {
	ask     tools.FormFunc
	call    context.Context
	timer   *time.Timer
	timeout time.Duration
	// tag marks the forms that came on the call's stream (formtag.go).
	tag string
	// Guarded by the manager's mu: the forms open, and whether the first
	// of them stopped the timer (it had not fired).
	open   int
	paused bool
}

// pause stops the call's timeout as a form opens. m.mu is held.
func (a *asker) pause() {
	if a.open == 0 && a.timer != nil {
		a.paused = a.timer.Stop()
	}
	a.open++
}

// resume starts the call's timeout again, whole, once the last form open
// is answered: the user's time is not the server's. m.mu is held.
func (a *asker) resume() {
	a.open--
	if a.open == 0 && a.paused {
		a.paused = false
		a.timer.Reset(a.timeout)
	}
}

// addAsker registers a running call's form function; the returned func
// removes it.
func (s *server) addAsker(a *asker) func() {
	s.m.mu.Lock()
	s.askers = append(s.askers, a)
	s.m.mu.Unlock()
	return func() {
		s.m.mu.Lock()
		s.askers = slices.DeleteFunc(s.askers, func(x *asker) bool { return x == a })
		s.m.mu.Unlock()
	}
}

// askersOf are the running calls a form may belong to (formtag.go): the
// one that asked, when the request says which (a multi round-trip
// request's context, a tag from the call's stream); every running call
// of the server when nothing says (a local server on an older protocol:
// they all wait for the answer, so none of them times out while the user
// types). None when the call that asked has ended, or none runs. m.mu is
// held.
func (s *server) askersOf(ctx context.Context, req *sdk.ElicitRequest) (out []*asker, ended bool) {
	if a, ok := ctx.Value(askerKey{}).(*asker); ok {
		if slices.Contains(s.askers, a) {
			return []*asker{a}, false
		}
		return nil, true
	}
	if tag := formTagOf(req.Params.Meta); tag != "" {
		for _, a := range s.askers {
			if a.tag == tag {
				return []*asker{a}, false
			}
		}
		return nil, true
	}
	return slices.Clone(s.askers), false
}

// elicit answers the server's elicitation/create (docs/SOURCES.md#mcp-elicitation;
// the SDK has checked the
// schema: a bad one never gets here, the server gets an invalid-params
// error naming the property). The form goes to the user through the
// running call it belongs to (askersOf), whose timeout waits meanwhile;
// with none running (a server asking out of the blue) it is declined with
// a notice.
func (s *server) elicit(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
	form, err := formOf(s.cfg, req.Params)
	if err != nil {
		s.m.mu.Lock()
		s.notice("MCP server %s asked for input co cannot show (%v); co declined it", s.cfg.Name, err)
		s.m.mu.Unlock()
		return &sdk.ElicitResult{Action: string(tools.FormDecline)}, nil
	}
	s.m.mu.Lock()
	calls, ended := s.askersOf(ctx, req)
	switch {
	case ended:
		s.notice("MCP server %s asked for input for a call of its tools that has ended; co declined it", s.cfg.Name)
	case len(calls) == 0:
		s.notice("MCP server %s asked for input while none of its tools was running; co declined it (a form is shown only during a call of that server's tools)", s.cfg.Name)
	}
	for _, a := range calls {
		a.pause()
	}
	s.m.mu.Unlock()
	if len(calls) == 0 {
		return &sdk.ElicitResult{Action: string(tools.FormDecline)}, nil
	}
	defer func() {
		s.m.mu.Lock()
		for _, a := range calls {
			a.resume()
		}
		s.m.mu.Unlock()
	}()
	// The form ends with the request (the server cancelled it) or once
	// every call it may belong to has ended (interrupted, or over). It
	// is shown through the latest of them.
	actx, stop := context.WithCancel(ctx)
	defer stop()
	var mu sync.Mutex
	left := len(calls)
	for _, a := range calls {
		defer context.AfterFunc(a.call, func() {
			mu.Lock()
			defer mu.Unlock()
			if left--; left == 0 {
				stop()
			}
		})()
	}
	ans, err := calls[len(calls)-1].ask(actx, form)
	if err != nil {
		return &sdk.ElicitResult{Action: string(tools.FormCancel)}, nil
	}
	res := &sdk.ElicitResult{Action: string(ans.Action)}
	if ans.Action == tools.FormAccept {
		res.Content = wireContent(ans.Content)
		// A secret the user typed must reach neither a span nor, through
		// a result that echoes it, the model and the saved session: the
		// span store and every later result redact it by value.
		add := s.m.secrets()
		for _, fl := range form.Fields {
			if v := fl.Text(ans.Content[fl.Name]); fl.Secret && v != "" {
				s.m.typed.Add(v)
				if add != nil {
					add(v)
				}
			}
		}
	}
	return res, nil
}

// refusedForms tells the user of an elicitation the SDK refused before
// elicit saw it (a schema that is not a flat form, a URL request without
// its URL): the server gets an invalid-params error naming what was wrong,
// and the user the same.
func (s *server) refusedForms(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		res, err := next(ctx, method, req)
		if method == "elicitation/create" && err != nil && ctx.Err() == nil {
			s.m.mu.Lock()
			s.notice("MCP server %s asked for a form co cannot show, so it was refused: %v", s.cfg.Name, err)
			s.m.mu.Unlock()
		}
		return res, err
	}
}

// wireContent is the answer's values as JSON values (the SDK checks them
// against the requested schema).
func wireContent(c map[string]any) map[string]any {
	out := make(map[string]any, len(c))
	for k, v := range c {
		switch v := v.(type) {
		case nil:
			continue
		case int64:
			out[k] = float64(v)
		case []string:
			a := make([]any, len(v))
			for i, s := range v {
				a[i] = s
			}
			out[k] = a
		default:
			out[k] = v
		}
	}
	return out
}

// formOf turns an elicitation's parameters into a form: its fields in the
// schema's order, their defaults (SEP-1034) as the fields' types.
func formOf(cfg ServerConfig, p *sdk.ElicitParams) (tools.Form, error) {
	f := tools.Form{Server: cfg.Name, Project: cfg.Project, Message: p.Message}
	if p.Mode == "url" || p.URL != "" {
		if p.URL == "" {
			return f, fmt.Errorf("a URL request without a URL")
		}
		f.URL = p.URL
		return f, nil
	}
	if p.RequestedSchema == nil {
		return f, nil
	}
	raw, err := json.Marshal(p.RequestedSchema)
	if err != nil {
		return f, err
	}
	var sch jsonschema.Schema
	if err := json.Unmarshal(raw, &sch); err != nil {
		return f, fmt.Errorf("its schema: %v", err)
	}
	order, err := propertyOrder(raw)
	if err != nil {
		return f, fmt.Errorf("its schema: %v", err)
	}
	for _, name := range order {
		ps := sch.Properties[name]
		if ps == nil {
			continue
		}
		fl, err := fieldOf(name, ps)
		if err != nil {
			return f, err
		}
		fl.Required = slices.Contains(sch.Required, name)
		f.Fields = append(f.Fields, fl)
	}
	return f, nil
}

// propertyOrder is the order the form shows the schema's properties in:
// the required ones as "required" lists them, then the rest by name. The
// SDK decodes requestedSchema into a map (ElicitParams.RequestedSchema is
// an any), so the order the server wrote them in is gone by the time the
// handler sees them.
func propertyOrder(raw []byte) ([]string, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, err
	}
	props, ok := top["properties"]
	if !ok {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(props))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("properties is not an object")
	}
	var out []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name, _ := t.(string)
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	var req struct{ Required []string }
	_ = json.Unmarshal(raw, &req)
	slices.SortStableFunc(out, func(a, b string) int {
		ia, ib := slices.Index(req.Required, a), slices.Index(req.Required, b)
		switch {
		case ia >= 0 && ib >= 0:
			return ia - ib
		case ia >= 0:
			return -1
		case ib >= 0:
			return 1
		}
		return strings.Compare(a, b)
	})
	return out, nil
}

func fieldOf(name string, ps *jsonschema.Schema) (tools.Field, error) {
	fl := tools.Field{Name: name, Title: ps.Title, Description: ps.Description, Format: ps.Format,
		MinLength: ps.MinLength, MaxLength: ps.MaxLength, Minimum: ps.Minimum, Maximum: ps.Maximum,
		MinItems: ps.MinItems, MaxItems: ps.MaxItems}
	var err error
	switch ps.Type {
	case "", "string":
		switch {
		case len(ps.Enum) > 0:
			fl.Kind = tools.FieldChoice
			names, _ := ps.Extra["enumNames"].([]any)
			for i, v := range ps.Enum {
				o := tools.Option{Value: fmt.Sprint(v)}
				if i < len(names) {
					o.Title, _ = names[i].(string)
				}
				fl.Options = append(fl.Options, o)
			}
		case len(ps.OneOf) > 0:
			fl.Kind = tools.FieldChoice
			fl.Options = titled(ps.OneOf)
		}
		err = defaultAs[string](&fl, ps.Default)
	case "number":
		fl.Kind = tools.FieldNumber
		err = defaultAs[float64](&fl, ps.Default)
	case "integer":
		fl.Kind = tools.FieldInteger
		var n float64
		if err = json.Unmarshal(orNull(ps.Default), &n); err == nil && ps.Default != nil {
			fl.Default = int64(n)
		}
	case "boolean":
		fl.Kind = tools.FieldBoolean
		err = defaultAs[bool](&fl, ps.Default)
	case "array":
		fl.Kind = tools.FieldMulti
		if it := ps.Items; it != nil {
			if len(it.AnyOf) > 0 {
				fl.Options = titled(it.AnyOf)
			}
			for _, v := range it.Enum {
				fl.Options = append(fl.Options, tools.Option{Value: fmt.Sprint(v)})
			}
		}
		err = defaultAs[[]string](&fl, ps.Default)
	default:
		return fl, fmt.Errorf("field %q has type %q", name, ps.Type)
	}
	if err != nil {
		return fl, fmt.Errorf("field %q has a default that is not its type: %v", name, err)
	}
	// Only what the user types can be a secret: a yes/no or a choice among
	// the server's own options is none. A description that mentions a PIN
	// is taken for a secret only on a text field ("your favourite number,
	// not your PIN" is no secret). writeOnly (JSON Schema's "never read
	// back") marks a secret whatever its name; format "password" never
	// gets here (the SDK refuses formats other than email, uri, date and
	// date-time).
	switch fl.Kind {
	case tools.FieldString:
		fl.Secret = ps.WriteOnly || tools.LooksSecret(name, ps.Title, ps.Description)
	case tools.FieldNumber, tools.FieldInteger:
		fl.Secret = ps.WriteOnly || tools.LooksSecret(name, ps.Title)
	}
	return fl, nil
}

func titled(entries []*jsonschema.Schema) []tools.Option {
	var out []tools.Option
	for _, e := range entries {
		if e == nil || e.Const == nil {
			continue
		}
		out = append(out, tools.Option{Value: fmt.Sprint(*e.Const), Title: e.Title})
	}
	return out
}

func orNull(m json.RawMessage) json.RawMessage {
	if len(m) == 0 {
		return json.RawMessage("null")
	}
	return m
}

func defaultAs[T any](fl *tools.Field, raw json.RawMessage) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		return err
	}
	fl.Default = v
	return nil
}

// urlRequired is the error of a call the server refused with
// URLElicitationRequired (-32042): it needs the user to open a page
// first. The SDK's retry for it is not exported (v1.8.0), so the call
// fails, saying which page and its host; co never opens it. nil for any
// other error.
func urlRequired(server, tool string, err error) error {
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != sdk.CodeURLElicitationRequired {
		return nil
	}
	var data struct{ Elicitations []*sdk.ElicitParams }
	_ = json.Unmarshal(rpcErr.Data, &data)
	var pages []string
	for _, e := range data.Elicitations {
		if e == nil || e.URL == "" {
			continue
		}
		p := fmt.Sprintf("%s (host %s)", e.URL, tools.URLHost(e.URL))
		if m := strings.TrimRight(strings.TrimSpace(e.Message), "."); m != "" {
			p += ": " + m
		}
		pages = append(pages, p)
	}
	if len(pages) == 0 {
		return fmt.Errorf("MCP server %s needs you to open a page before %s can run, and named none: %s", server, tool, rpcErr.Message)
	}
	return fmt.Errorf("MCP server %s needs you to open a page before %s can run: %s. co does not open it: open it yourself if you trust it, then ask again", server, tool, strings.Join(pages, "; "))
}
