package mcp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/co-cli/co/tools/mcp"
)

// Resumption of a dropped stream, as the Go SDK (v1.8.0) does it for co's
// remote servers; co only has to leave it on (StreamableClientTransport's
// MaxRetries at its default). What the SDK does, and where it was read:
// docs/SOURCES.md#mcp-go-sdk-resuming-a-dropped-stream. These tests check it
// against a real streamable server with an EventStore, behind a proxy that
// breaks the stream, at the protocol version 2025-11-25 they check is the one
// negotiated (the last with Last-Event-ID resumption).

// sseEvent is one server-sent event as the proxy saw it.
type sseEvent struct {
	id, retry, data string
}

// cutProxy is an HTTP proxy between co and the server that forwards every
// request and streams every response, except that it breaks, once, the SSE
// response of the POST calling tool `cut` right after the first event that
// carries a message: the connection ends with no end of the chunked body, as
// a dropped network connection does. It records what the client sent and
// what each response carried.
type cutProxy struct {
	backend string
	reach   http.RoundTripper // carries the requests to backend
	cut     string            // the tool whose call's stream is broken ("" for none)
	dropped chan struct{}     // closed once the stream is broken
	ended   chan struct{}     // closed once a stream that carried a retry field has ended
	endOnce sync.Once

	mu        sync.Mutex
	cutAfter  string              // id of the last event forwarded before the break
	resumes   []string            // the Last-Event-ID of each GET that had one
	resumedAt []time.Time         // when each of those arrived
	resumed   map[string][]string // Last-Event-ID → data of the events its GET carried
	retryAt   time.Time           // when an event with a retry field was forwarded
	retry     string              // its value
}

func newCutProxy(backend, cut string) *cutProxy {
	return &cutProxy{backend: backend, cut: cut, dropped: make(chan struct{}), ended: make(chan struct{}), resumed: map[string][]string{}}
}

func (p *cutProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	lastID := r.Header.Get("Last-Event-ID")
	if lastID != "" {
		p.mu.Lock()
		p.resumes = append(p.resumes, lastID)
		p.resumedAt = append(p.resumedAt, time.Now())
		p.mu.Unlock()
	}
	out, err := http.NewRequestWithContext(r.Context(), r.Method, p.backend+r.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	out.Header = r.Header.Clone()
	resp, err := p.reach.RoundTrip(out)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		_, _ = io.Copy(w, resp.Body)
		return
	}
	breakIt := p.cut != "" && r.Method == http.MethodPost && callsTool(body, p.cut)
	flush := w.(http.Flusher).Flush
	rd := bufio.NewReader(resp.Body)
	var ev sseEvent
	var raw strings.Builder // the event's lines, sent whole once recorded
	sawRetry := false
	for {
		line, err := rd.ReadString('\n')
		raw.WriteString(line)
		bare := strings.TrimRight(line, "\r\n")
		field, value, _ := strings.Cut(bare, ":")
		value = strings.TrimPrefix(value, " ")
		if bare == "" && line != "" {
			field = "\n" // a blank line, not a comment (":...")
		}
		switch field {
		case "id":
			ev.id = value
		case "retry":
			ev.retry, sawRetry = value, true
		case "data":
			ev.data += value
		case "\n": // a blank line: the end of an event
			p.saw(ev, lastID) // before the client can have it
			if _, werr := io.WriteString(w, raw.String()); werr != nil {
				return
			}
			flush()
			if breakIt && ev.data != "" {
				p.mu.Lock()
				p.cutAfter = ev.id
				p.mu.Unlock()
				close(p.dropped)
				// net/http ends the connection without the chunked body's
				// end: the client reads an unexpected EOF.
				panic(http.ErrAbortHandler)
			}
			ev, raw = sseEvent{}, strings.Builder{}
		}
		if err != nil {
			_, _ = io.WriteString(w, raw.String())
			if sawRetry {
				p.endOnce.Do(func() { close(p.ended) })
			}
			return
		}
	}
}

// saw records a forwarded event.
func (p *cutProxy) saw(ev sseEvent, lastID string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if ev.retry != "" {
		p.retry, p.retryAt = ev.retry, time.Now()
	}
	if lastID != "" && ev.data != "" {
		p.resumed[lastID] = append(p.resumed[lastID], ev.data)
	}
}

// callsTool reports whether a JSON-RPC body is a tools/call of tool.
func callsTool(body []byte, tool string) bool {
	var m struct {
		Method string
		Params struct{ Name string }
	}
	return json.Unmarshal(body, &m) == nil && m.Method == "tools/call" && m.Params.Name == tool
}

// resumableServer is (the handler of) an MCP server with resumable streams (an EventStore)
// and two slow tools that send progress before their result:
//   - "steps" sends step 1, waits until the proxy has dropped the stream,
//     then steps 2 and 3 and its result;
//   - "rest" sends step 1, then ends the stream itself asking the client to
//     come back in serverRetry (an SSE retry field), waits until the proxy
//     has seen that stream end, then sends step 2 and its result.
func resumableServer(t *testing.T, dropped, ended <-chan struct{}) http.Handler {
	s := sdk.NewServer(&sdk.Implementation{Name: "co-resume", Version: "1"}, nil)
	progress := func(ctx context.Context, req *sdk.CallToolRequest, step, of int) {
		tok := req.Params.GetProgressToken()
		if tok == nil {
			tok = "co-test" // co asks for no progress; the server reports it anyway
		}
		if err := req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: tok,
			Progress: float64(step), Total: float64(of), Message: fmt.Sprintf("step %d of %d", step, of)}); err != nil {
			t.Errorf("progress %d: %v", step, err)
		}
	}
	s.AddTool(&sdk.Tool{Name: "steps", Description: "Work in three steps.", InputSchema: objectSchema},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			progress(ctx, req, 1, 3)
			select {
			case <-dropped:
			case <-time.After(10 * time.Second): // the assertions on the proxy then fail
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			for i := 2; i <= 3; i++ {
				progress(ctx, req, i, 3)
			}
			return text("done after 3 steps"), nil
		})
	s.AddTool(&sdk.Tool{Name: "rest", Description: "Pause the stream, then finish.", InputSchema: objectSchema},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			progress(ctx, req, 1, 2)
			// SEP-1699: the server closes the call's stream and sends
			// `retry: 3000` (shared.go, RequestExtra.CloseSSEStream).
			req.Extra.CloseSSEStream(sdk.CloseSSEStreamArgs{RetryAfter: serverRetry})
			select {
			case <-ended:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			progress(ctx, req, 2, 2)
			return text("rested"), nil
		})
	return sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s },
		&sdk.StreamableHTTPOptions{EventStore: sdk.NewMemoryEventStore(nil)})
}

// resumeFixture is co's manager connected, through a cutProxy breaking the
// stream of tool cut, to a resumableServer, over an in-memory network: for
// a test inside a testing/synctest bubble, whose clock moves only when
// every goroutine waits (the SDK's reconnection delays, the tools' pauses).
func resumeFixture(t *testing.T, cut string) (*fixture, *cutProxy) {
	t.Helper()
	p := newCutProxy("http://backend.test", cut)
	// Closed after the manager's Close (cleanups run last first).
	p.reach = memHTTP(t, resumableServer(t, p.dropped, p.ended))
	front := memHTTP(t, p)
	f := newFixture(t, mcp.ServerConfig{Name: "far", URL: "http://far.test/mcp", Timeout: 20 * time.Second})
	mcp.SetRoundTripper(f.m, front)
	if n := f.start(t); len(n) != 0 {
		t.Fatalf("notices: %v", n)
	}
	if st := f.m.Statuses()[0]; st.State != mcp.Connected || st.Protocol != "2025-11-25" {
		// From 2026-07-28 (SEP-2575) the SDK has no Last-Event-ID resumption.
		t.Fatalf("status %+v: the tests expect protocol 2025-11-25, the newest with resumable streams", st)
	}
	return f, p
}

// A tool call whose SSE response is cut after its first event (a progress
// notification) still returns its whole result through co's tool: the SDK
// reconnects with a GET carrying Last-Event-ID (the id of that event) and
// the server replays the rest of the call's stream from there.
func TestStreamableHTTPResumesDroppedCallStream(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f, p := resumeFixture(t, "steps")
		res, err := run(t, f.tool(t, "mcp__far__steps"), `{}`)
		if err != nil || res.Display != "done after 3 steps" {
			t.Fatalf("steps: %q, %v; statuses %+v", res.Display, err, f.m.Statuses())
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.cutAfter == "" {
			t.Fatal("the proxy never broke the call's stream")
		}
		if len(p.resumes) != 1 || p.resumes[0] != p.cutAfter {
			t.Fatalf("reconnections' Last-Event-ID: %q; want one, %q (the last event before the break)", p.resumes, p.cutAfter)
		}
		// The resumed stream carried what came after the break, not step 1 again.
		got := strings.Join(p.resumed[p.cutAfter], "\n")
		for _, want := range []string{"step 2 of 3", "step 3 of 3", "done after 3 steps"} {
			if !strings.Contains(got, want) {
				t.Errorf("the resumed stream lacks %q:\n%s", want, got)
			}
		}
		if strings.Contains(got, "step 1 of 3") {
			t.Errorf("the resumed stream replayed what the client had:\n%s", got)
		}
		if st := f.m.Statuses()[0]; st.State != mcp.Connected {
			t.Errorf("after the call: %+v", st)
		}
	})
}

// serverRetry is the SSE retry a server asks for in TestStreamableHTTPHonoursServerRetry:
// longer than the SDK's own first backoff, 1 s plus up to 1 s of jitter (go-sdk v1.8.0,
// mcp/streamable.go: calculateReconnectDelay; connectSSE takes the server's delay instead).
const serverRetry = 3 * time.Second

// A server that ends a call's stream itself with an SSE retry field (SEP-1699)
// is honoured: the client comes back with Last-Event-ID after the server's
// 3 s, not after the SDK's own backoff (1 to 2 s), and gets the result. The
// clock is testing/synctest's: the wait is exactly the server's.
func TestStreamableHTTPHonoursServerRetry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f, p := resumeFixture(t, "")
		res, err := run(t, f.tool(t, "mcp__far__rest"), `{}`)
		if err != nil || res.Display != "rested" {
			t.Fatalf("rest: %q, %v; statuses %+v", res.Display, err, f.m.Statuses())
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.retry != "3000" {
			t.Fatalf("the server's retry field: %q", p.retry)
		}
		if len(p.resumes) != 1 {
			t.Fatalf("reconnections' Last-Event-ID: %q; want one", p.resumes)
		}
		if wait := p.resumedAt[0].Sub(p.retryAt); wait != serverRetry {
			t.Errorf("the client came back after %v, not the server's %v: the retry field was not honoured", wait, serverRetry)
		}
		if got := strings.Join(p.resumed[p.resumes[0]], "\n"); !strings.Contains(got, "step 2 of 2") || !strings.Contains(got, "rested") {
			t.Errorf("the resumed stream:\n%s", got)
		}
	})
}
