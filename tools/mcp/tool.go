package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/co-cli/co/journal"
	"github.com/co-cli/co/tools"
)

// MaxResultChars is the most characters of one call's result kept for the
// model and the screen, as web_fetch's default: its first quarter and last
// three quarters are kept (tools.HeadTail, as for shell output), with a note
// between saying how much was left out.
const MaxResultChars = 20000

// Tool is one tool of an MCP server, as co offers it to the model.
type Tool struct {
	name   string // mcp__server__tool
	remote string // the tool's name on the server
	desc   string
	schema json.RawMessage
	srv    *server
	// readOnly: the server's readOnlyHint, a hint only (co asks all the
	// same); the journal's entry says it.
	readOnly bool
}

// Name is mcp__<server>__<tool>.
func (t *Tool) Name() string { return t.name }

// Description is the server's, naming the server.
func (t *Tool) Description() string { return t.desc }

// Schema is the server's input schema, simplified (Simplify).
func (t *Tool) Schema() json.RawMessage { return t.schema }

// Class: an MCP tool can do anything, so it asks unless the user trusts
// its server.
func (t *Tool) Class() tools.Class { return tools.SideEffect }

// Server is the name of the tool's server.
func (t *Tool) Server() string { return t.srv.cfg.Name }

// Remote is the tool's name on its server.
func (t *Tool) Remote() string { return t.remote }

// SpanAttributes name the server and the tool's own name on it.
func (t *Tool) SpanAttributes() map[string]string {
	return map[string]string{"co.mcp.server": t.srv.cfg.Name, "co.mcp.tool": t.remote}
}

// Check asks, showing the server, the tool and the arguments, unless the
// user set "approve": "auto" for the server. A session grant ("a") covers
// this tool of this server only.
//
// Every call is outbound (tools.Outbound): its arguments leave co for the
// server, which may send them on, post them, or act on them, whatever it
// says of itself (a tool marked readOnlyHint that fetches a URL is a web
// request). So after untrusted content every MCP call asks, "approve":
// "auto" and "trusted_content" included.
func (t *Tool) Check(_ context.Context, args json.RawMessage) tools.Check {
	label := fmt.Sprintf("%s on MCP server %s", t.remote, t.srv.cfg.Name)
	preview := fmt.Sprintf("server: %s\ntool: %s\narguments:\n%s", t.srv.cfg.Name, t.remote, prettyArgs(args))
	out := &tools.Outbound{To: fmt.Sprintf("MCP server %s (tool %s)", t.srv.cfg.Name, t.remote), What: argsWhat(args)}
	if rel, why := t.srv.m.protectedArg(args); rel != "" {
		// Always asks, as write_file does: no "approve": "auto", grant or --yes.
		return tools.Check{Decision: tools.Ask, AlwaysAsk: true, NoYolo: true,
			Reason: fmt.Sprintf("calls tool %s of MCP server %s; it always asks: an argument names the protected file %s: %s", t.remote, t.srv.cfg.Name, rel, why),
			Scope:  t.name, ScopeLabel: label, Preview: preview, Outbound: out}
	}
	if t.srv.cfg.AutoApprove {
		return tools.Check{Decision: tools.Allow, Reason: fmt.Sprintf(`MCP server %s is set to "approve": "auto"`, t.srv.cfg.Name),
			Scope: t.name, ScopeLabel: label, Preview: preview, Outbound: out}
	}
	c := tools.Check{Decision: tools.Ask, Reason: fmt.Sprintf("calls tool %s of MCP server %s", t.remote, t.srv.cfg.Name),
		Scope: t.name, ScopeLabel: label, Preview: preview, Outbound: out}
	c.Unattended = fmt.Sprintf(`set "approve": "auto" on the MCP server %q in your user settings (mcp_servers) to run its tools without asking`, t.srv.cfg.Name)
	if t.srv.cfg.Project {
		// A project file's "approve": "auto" is ignored (config warns); the
		// user's own definition of the name replaces the project's.
		c.Unattended = fmt.Sprintf(`define the MCP server %q in your user settings (mcp_servers) with "approve": "auto" to run its tools without asking`, t.srv.cfg.Name)
	}
	return c
}

// maxWhat bounds the arguments an Outbound shows (the preview has them
// all).
const maxWhat = 500

// argsWhat is the arguments as compact JSON, cut at maxWhat characters.
func argsWhat(args json.RawMessage) string {
	var b bytes.Buffer
	if len(bytes.TrimSpace(args)) == 0 {
		return "{}"
	}
	s := string(args)
	if json.Compact(&b, args) == nil {
		s = b.String()
	}
	if r := []rune(s); len(r) > maxWhat {
		return string(r[:maxWhat]) + fmt.Sprintf("… (%d more characters)", len(r)-maxWhat)
	}
	return s
}

// origins are where a result of this tool comes from: the server, which
// is someone else's text unless the user vouched for its content
// ("trusted_content": true in their own settings).
func (t *Tool) origins() []tools.Origin {
	if t.srv.cfg.TrustedContent {
		return nil
	}
	return []tools.Origin{tools.UntrustedPrivate("mcp", "mcp "+t.srv.cfg.Name+"."+t.remote)}
}

func prettyArgs(args json.RawMessage) string {
	var b bytes.Buffer
	if len(bytes.TrimSpace(args)) == 0 {
		return "{}"
	}
	if err := json.Indent(&b, args, "", "  "); err != nil {
		return string(args)
	}
	return b.String()
}

// Run calls the tool on its server, within the server's timeout. A result
// the server marks isError goes back to the model as a call it may retry;
// a server that is gone, a timeout or a protocol error is a failed call.
// Cancelling ctx (Ctrl+C) makes the SDK send notifications/cancelled.
//
// What the user typed into a secret field of any server's form is taken
// out of the result and the error (elicit.go).
//
// Whatever came back from the server, a result or an error that quotes it,
// carries the server as its origin (origins); an error before any request
// (the server is not connected) carries none.
func (t *Tool) Run(ctx context.Context, args json.RawMessage) (tools.Result, error) {
	res, sent, err := t.srv.call(ctx, t.remote, args)
	if sent {
		t.journalled(ctx)
	}
	if err != nil {
		if !sent {
			return tools.Result{}, err
		}
		if v := t.srv.m.typed.Values(err.Error()); v != err.Error() {
			err = errors.New(v)
		}
		return tools.Result{Origins: t.origins()}, err
	}
	r := Render(res)
	// What the user typed into a secret field of a form, echoed back,
	// reaches neither the model nor the saved session.
	r.Display = t.srv.m.typed.Values(r.Display)
	r.Origins = t.origins()
	if res.IsError {
		msg := r.Display
		if msg == "" {
			msg = "(no message)"
		}
		return tools.Result{Origins: r.Origins}, tools.Retryf("MCP tool %s of server %s reported an error: %s", t.remote, t.srv.cfg.Name, msg)
	}
	return r, nil
}

// journalled records a call the server received in the turn's journal:
// undo lists it as what co cannot take back. Every call is, as every call
// asks (Class): a tool the server marks read-only may still act or send
// its arguments on, so the entry only says what the server claims. It
// names the server and the tool, never the arguments.
func (t *Tool) journalled(ctx context.Context) {
	what := fmt.Sprintf("called %s on the MCP server %s", tools.CutRunes(t.remote, 64), t.srv.cfg.Name)
	if t.readOnly {
		what += " (the server marks it read-only)"
	}
	if _, err := journal.RecordIn(ctx, journal.NotUndoable(0, t.name, journal.MCPCall, what, journal.WhyMCP)); err != nil {
		tools.Notify(ctx, "co could not record the MCP call for undo's list: "+err.Error())
	}
}

// Render turns a call's result into co's Result: text shown and returned,
// images, audio and resources summarised, structured content as JSON when
// there is no text, all cut at MaxResultChars.
func Render(res *sdk.CallToolResult) tools.Result {
	var parts []string
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			parts = append(parts, c.Text)
		case *sdk.ImageContent:
			parts = append(parts, fmt.Sprintf("[image: %s, %s]", orUnknown(c.MIMEType), tools.Size(int64(len(c.Data)))))
		case *sdk.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio: %s, %s]", orUnknown(c.MIMEType), tools.Size(int64(len(c.Data)))))
		case *sdk.ResourceLink:
			s := "[resource link: " + c.URI
			if c.Name != "" {
				s += " (" + c.Name + ")"
			}
			parts = append(parts, s+"]")
		case *sdk.EmbeddedResource:
			if c.Resource == nil {
				continue
			}
			size := len(c.Resource.Text) + len(c.Resource.Blob)
			parts = append(parts, fmt.Sprintf("[resource: %s, %s, %s]", c.Resource.URI, orUnknown(c.Resource.MIMEType), tools.Size(int64(size))))
		default:
			b, _ := json.Marshal(c)
			parts = append(parts, "[content: "+string(b)+"]")
		}
	}
	text := strings.Join(parts, "\n")
	if text == "" && res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		text = string(b)
	}
	if kept, cut := tools.HeadTail(text, MaxResultChars); cut {
		return tools.Result{Display: kept, Meta: map[string]any{"truncated": true, "total_chars": utf8.RuneCountInString(text)}}
	}
	return tools.Result{Display: text}
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown type"
	}
	return s
}

// callError describes a failed call for the model and the user.
func callError(server, tool string, timeout bool, limit string, err error) error {
	switch {
	case timeout:
		return fmt.Errorf("MCP server %s did not answer the call of %s within %s (its timeout_seconds); the call was cancelled", server, tool, limit)
	case errors.Is(err, sdk.ErrConnectionClosed):
		return fmt.Errorf("MCP server %s closed the connection during the call of %s (it may have exited; see /mcp)", server, tool)
	}
	if u := urlRequired(server, tool, err); u != nil {
		return u
	}
	return fmt.Errorf("MCP server %s: calling %s: %v", server, tool, err)
}
