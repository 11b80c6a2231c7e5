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

	"github.com/co-cli/co/tools"
)

// MaxResultChars is the most characters of one call's result kept for the
// model and the screen, as web_fetch's default: the rest is cut with a
// note saying how much.
const MaxResultChars = 20000

// Tool is one tool of an MCP server, as co offers it to the model.
type Tool struct {
	name   string // mcp__server__tool
	remote string // the tool's name on the server
	desc   string
	schema json.RawMessage
	srv    *server
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
func (t *Tool) Check(_ context.Context, args json.RawMessage) tools.Check {
	label := fmt.Sprintf("%s on MCP server %s", t.remote, t.srv.cfg.Name)
	preview := fmt.Sprintf("server: %s\ntool: %s\narguments:\n%s", t.srv.cfg.Name, t.remote, prettyArgs(args))
	if t.srv.cfg.AutoApprove {
		return tools.Check{Decision: tools.Allow, Reason: fmt.Sprintf(`MCP server %s is set to "approve": "auto"`, t.srv.cfg.Name),
			Scope: t.name, ScopeLabel: label, Preview: preview}
	}
	return tools.Check{Decision: tools.Ask, Reason: fmt.Sprintf("calls tool %s of MCP server %s", t.remote, t.srv.cfg.Name),
		Scope: t.name, ScopeLabel: label, Preview: preview}
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
func (t *Tool) Run(ctx context.Context, args json.RawMessage) (tools.Result, error) {
	res, err := t.srv.call(ctx, t.remote, args)
	if err != nil {
		return tools.Result{}, err
	}
	r := Render(res)
	if res.IsError {
		msg := r.Display
		if msg == "" {
			msg = "(no message)"
		}
		return tools.Result{}, tools.Retryf("MCP tool %s of server %s reported an error: %s", t.remote, t.srv.cfg.Name, msg)
	}
	return r, nil
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
	if n := utf8.RuneCountInString(text); n > MaxResultChars {
		cut := []rune(text)[:MaxResultChars]
		return tools.Result{Display: string(cut) + fmt.Sprintf("\n… (%d more characters cut)", n-MaxResultChars),
			Meta: map[string]any{"truncated": true, "total_chars": n}}
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
	return fmt.Errorf("MCP server %s: calling %s: %v", server, tool, err)
}
