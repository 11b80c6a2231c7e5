package mcp

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"mime"
	"net/http"
)

// Which call a form belongs to (docs/SOURCES.md#mcp-elicitation).
//
// A server on a protocol before 2026-07-28 asks for a form with an
// elicitation/create request of its own, which names no call of the
// client's. Over streamable HTTP it sends that request on the SSE stream
// of the POST that carried the call (the transport: "messages related to
// the originating client request"); the SDK's client merges every stream
// into one and hands the handler the request alone (v1.8.0). So co tags
// each request on a call's stream, on its way in, with the call's
// formTag in its _meta: the SDK's POST (and a GET resuming its stream) is
// made with the call's context, which carries the call (askerKey). Over
// stdio nothing tells: elicit pauses every running call of the server.
// From 2026-07-28 on (multi round-trip requests) the SDK fulfils a
// call's input requests with the call's own context, which names it.

// formTagKey is the _meta key that carries the call's tag. It is never
// sent to a server, and a tag is random: a server cannot name another
// call's.
const formTagKey = "dev.co-cli/call"

// askerKey is the context key of a call's asker.
type askerKey struct{}

func newFormTag() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// formTagOf is the tag co put on an elicitation, "" when none.
func formTagOf(meta map[string]any) string {
	tag, _ := meta[formTagKey].(string)
	return tag
}

// tagTransport tags the elicitation requests that come on a call's
// stream with the call's tag.
type tagTransport struct{ base http.RoundTripper }

func (t tagTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.base
	if base == nil {
		base = http.DefaultTransport
	}
	resp, err := base.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	a, _ := req.Context().Value(askerKey{}).(*asker)
	if a == nil {
		return resp, nil
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "text/event-stream" {
		resp.Body = &tagReader{body: resp.Body, tag: a.tag}
	}
	return resp, nil
}

// withAsker is ctx carrying the call's asker.
func withAsker(ctx context.Context, a *asker) context.Context {
	return context.WithValue(ctx, askerKey{}, a)
}

// maxTagged is the longest event looked into: a form is small; a longer
// event passes through untouched.
const maxTagged = 1 << 20

// tagReader is an SSE body with each elicitation/create request's params
// given _meta[formTagKey] = tag; every other event passes byte for byte.
type tagReader struct {
	body io.ReadCloser
	tag  string
	in   []byte // read, not yet a whole event
	out  []byte // ready for the reader
	buf  []byte
	err  error
}

func (r *tagReader) Read(p []byte) (int, error) {
	for len(r.out) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		if r.buf == nil {
			r.buf = make([]byte, 32<<10)
		}
		n, err := r.body.Read(r.buf)
		r.in = append(r.in, r.buf[:n]...)
		for {
			end := eventEnd(r.in)
			if end < 0 {
				break
			}
			r.out = append(r.out, tagEvent(r.in[:end], r.tag)...)
			r.in = r.in[end:]
		}
		if err != nil && len(r.in) > 0 && r.in[len(r.in)-1] == '\r' && eventEnd(append(r.in, '\n')) > len(r.in) {
			// The stream ended on a CR that ends the last event.
			r.out = append(r.out, tagEvent(r.in, r.tag)...)
			r.in = nil
		}
		if err != nil || len(r.in) > maxTagged {
			r.out = append(r.out, r.in...)
			r.in = nil
			r.err = err
		}
	}
	n := copy(p, r.out)
	r.out = r.out[n:]
	return n, nil
}

func (r *tagReader) Close() error { return r.body.Close() }

// eventEnd is the index just past the blank line that ends b's first
// event, -1 when b holds no whole event yet. Lines end in CRLF, LF or CR
// (the SSE format).
func eventEnd(b []byte) int {
	start := 0
	for i := 0; i < len(b); i++ {
		if b[i] != '\n' && b[i] != '\r' {
			continue
		}
		end := i + 1
		if b[i] == '\r' {
			if i+1 == len(b) {
				return -1 // CR LF may be split between reads
			}
			if b[i+1] == '\n' {
				end++
			}
		}
		if i == start {
			return end
		}
		start = end
		i = end - 1
	}
	return -1
}

// tagEvent is ev, one whole event, with the tag added when its data is an
// elicitation/create request; ev itself otherwise.
func tagEvent(ev []byte, tag string) []byte {
	var rest [][]byte
	var data [][]byte
	for _, line := range bytes.FieldsFunc(ev, func(r rune) bool { return r == '\n' || r == '\r' }) {
		if v, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			data = append(data, bytes.TrimPrefix(v, []byte(" ")))
		} else {
			rest = append(rest, line)
		}
	}
	if len(data) == 0 {
		return ev
	}
	msg, ok := tagged(bytes.Join(data, []byte("\n")), tag)
	if !ok {
		return ev
	}
	var out []byte
	for _, l := range rest {
		out = append(append(out, l...), '\n')
	}
	out = append(append(append(out, "data: "...), msg...), "\n\n"...)
	return out
}

// tagged is the JSON-RPC message with the tag in its params' _meta, when
// it is an elicitation/create request.
func tagged(raw []byte, tag string) ([]byte, bool) {
	var msg map[string]json.RawMessage
	if json.Unmarshal(raw, &msg) != nil {
		return nil, false
	}
	var method string
	if json.Unmarshal(msg["method"], &method) != nil || method != "elicitation/create" || msg["id"] == nil {
		return nil, false
	}
	params := map[string]json.RawMessage{}
	if p, ok := msg["params"]; ok && json.Unmarshal(p, &params) != nil {
		return nil, false
	}
	if params == nil {
		params = map[string]json.RawMessage{}
	}
	meta := map[string]json.RawMessage{}
	if m, ok := params["_meta"]; ok && json.Unmarshal(m, &meta) != nil {
		return nil, false
	}
	if meta == nil {
		meta = map[string]json.RawMessage{}
	}
	meta[formTagKey], _ = json.Marshal(tag)
	var err error
	if params["_meta"], err = json.Marshal(meta); err != nil {
		return nil, false
	}
	if msg["params"], err = json.Marshal(params); err != nil {
		return nil, false
	}
	out, err := json.Marshal(msg)
	return out, err == nil
}
