package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/agent/provider"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/tools"
	"github.com/co-cli/co/tools/mcp"
)

// formSchema has a field of every kind the spec allows, with defaults
// (SEP-1034) on some, in an order that is not alphabetical.
const formSchema = `{"type":"object","properties":{
"name":{"type":"string","title":"Your name","default":"Ada"},
"email":{"type":"string","format":"email","description":"where to reply"},
"age":{"type":"integer","minimum":0,"maximum":150,"default":36},
"score":{"type":"number","default":9.5},
"subscribe":{"type":"boolean","default":true},
"colour":{"type":"string","oneOf":[{"const":"r","title":"Red"},{"const":"g","title":"Green"}],"default":"g"},
"size":{"type":"string","enum":["s","m","l"]},
"tags":{"type":"array","items":{"type":"string","enum":["a","b","c"]},"default":["a","c"]},
"api_token":{"type":"string","description":"your API token"}},
"required":["email","api_token"]}`

// elicitServer is an MCP server over streamable HTTP whose tools ask the
// client for input: "ask" with the schema in its "schema" argument (or
// formSchema), "url" a URL-mode request; each returns what the client
// answered, as JSON. sessions receives each server session, for a request
// made outside any call.
func elicitServer(t *testing.T, sessions chan<- *sdk.ServerSession) string {
	t.Helper()
	srv := httptest.NewServer(elicitHandler(sessions, nil))
	t.Cleanup(srv.Close)
	return srv.URL
}

// elicitHandler is elicitServer's handler, with two more tools: "stall"
// asks for a field x, then, answered, works for an hour (returning
// "worked an hour") unless the call is cancelled first, which it sends
// to stalled; "two" asks two forms at once and returns their actions.
func elicitHandler(sessions chan<- *sdk.ServerSession, stalled chan<- error) http.Handler {
	return sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server {
		s := sdk.NewServer(&sdk.Implementation{Name: "asker", Version: "1"}, nil)
		s.AddTool(&sdk.Tool{Name: "ask", Description: "Ask the user.", InputSchema: objectSchema},
			func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				var a struct{ Schema json.RawMessage }
				_ = json.Unmarshal(req.Params.Arguments, &a)
				if a.Schema == nil {
					a.Schema = json.RawMessage(formSchema)
				}
				res, err := req.Session.Elicit(ctx, &sdk.ElicitParams{Message: "Tell me about you\x1b[31m", RequestedSchema: a.Schema})
				if err != nil {
					r := text("elicit failed: " + err.Error())
					r.IsError = true
					return r, nil
				}
				b, _ := json.Marshal(res)
				return text(string(b)), nil
			})
		s.AddTool(&sdk.Tool{Name: "url", Description: "Send the user to a page.", InputSchema: objectSchema},
			func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				res, err := req.Session.Elicit(ctx, &sdk.ElicitParams{Mode: "url", Message: "Authorise", URL: "https://example.com/authorise", ElicitationID: "e1"})
				if err != nil {
					return nil, err
				}
				b, _ := json.Marshal(res)
				return text(string(b)), nil
			})
		s.AddTool(&sdk.Tool{Name: "login", Description: "Log in; the password is not echoed.", InputSchema: objectSchema},
			func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				res, err := req.Session.Elicit(ctx, &sdk.ElicitParams{Message: "Log in", RequestedSchema: json.RawMessage(
					`{"type":"object","properties":{"user":{"type":"string"},"password":{"type":"string"}},"required":["user","password"]}`)})
				if err != nil {
					return nil, err
				}
				return text("login: " + res.Action), nil
			})
		s.AddTool(&sdk.Tool{Name: "hello", Description: "Hand the session to the test.", InputSchema: objectSchema},
			func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				sessions <- req.Session
				return text("hello"), nil
			})
		s.AddTool(&sdk.Tool{Name: "stall", Description: "Ask, then work for an hour.", InputSchema: objectSchema},
			func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				res, err := req.Session.Elicit(ctx, &sdk.ElicitParams{Message: "x?", RequestedSchema: json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}}}`)})
				if err != nil {
					return nil, err
				}
				if res.Action != "accept" {
					return text("stall: " + res.Action), nil
				}
				select {
				case <-time.After(time.Hour):
					return text("worked an hour"), nil
				case <-ctx.Done():
					stalled <- ctx.Err()
					return nil, ctx.Err()
				}
			})
		s.AddTool(&sdk.Tool{Name: "later", Description: "Work a second, then ask.", InputSchema: objectSchema},
			func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				select {
				case <-time.After(time.Second):
				case <-ctx.Done():
					return nil, ctx.Err()
				}
				res, err := req.Session.Elicit(ctx, &sdk.ElicitParams{Message: "x?", RequestedSchema: json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}}}`)})
				if err != nil {
					return nil, err
				}
				b, _ := json.Marshal(res)
				return text(string(b)), nil
			})
		s.AddTool(&sdk.Tool{Name: "work", Description: "Work five seconds.", InputSchema: objectSchema},
			func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				select {
				case <-time.After(5 * time.Second):
					return text("worked"), nil
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			})
		s.AddTool(&sdk.Tool{Name: "two", Description: "Ask two forms at once.", InputSchema: objectSchema},
			func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				var wg sync.WaitGroup
				actions := make([]string, 2)
				for i := range actions {
					wg.Go(func() {
						res, err := req.Session.Elicit(ctx, &sdk.ElicitParams{Message: fmt.Sprintf("form %d", i+1),
							RequestedSchema: json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}}}`)})
						if err != nil {
							actions[i] = err.Error()
							return
						}
						actions[i] = res.Action
					})
				}
				wg.Wait()
				return text(strings.Join(actions, ",")), nil
			})
		return s
	}, nil)
}

// runAsking runs tool tl with ask as the call's form function (as the
// agent gives every call).
func runAsking(tl tools.Tool, args string, ask tools.FormFunc) (tools.Result, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return tl.Run(tools.WithForm(ctx, ask), json.RawMessage(args))
}

// A form asked during a call reaches the call's form function with its
// fields in the server's order, typed defaults, required marks and the
// secret-looking field marked; the answer goes back to the server, the
// defaults of fields left out applied.
func TestElicitationFormDuringCall(t *testing.T) {
	url := elicitServer(t, nil)
	f := newFixture(t, mcp.ServerConfig{Name: "asker", URL: url, Timeout: 10 * time.Second, Project: true, Definition: []byte(`{}`)})
	f.start(t) // a project server waits for the user's consent
	if err := f.m.Trust("asker"); err != nil {
		t.Fatal(err)
	}
	f.m.Wait(context.Background())
	var got tools.Form
	res, err := runAsking(f.tool(t, "mcp__asker__ask"), `{}`, func(_ context.Context, form tools.Form) (tools.FormAnswer, error) {
		got = form
		return tools.FormAnswer{Action: tools.FormAccept, Content: map[string]any{
			"email": "ada@example.com", "api_token": "tok-123", "age": int64(37), "tags": []string{"b"}}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got.Server != "asker" || !got.Project || got.Message != "Tell me about you\x1b[31m" {
		t.Errorf("form: %+v", got)
	}
	var names []string
	for _, fl := range got.Fields {
		names = append(names, fl.Name)
	}
	// The SDK hands the schema over as a map: the required fields first,
	// as listed, then the others by name.
	if strings.Join(names, ",") != "email,api_token,age,colour,name,score,size,subscribe,tags" {
		t.Errorf("fields in order: %v", names)
	}
	byName := map[string]tools.Field{}
	for _, fl := range got.Fields {
		byName[fl.Name] = fl
	}
	checks := []struct {
		name string
		ok   bool
	}{
		{"name default", byName["name"].Default == "Ada" && byName["name"].Title == "Your name"},
		{"email", byName["email"].Format == "email" && byName["email"].Required && byName["email"].Default == nil},
		{"age", byName["age"].Kind == tools.FieldInteger && byName["age"].Default == int64(36)},
		{"score", byName["score"].Kind == tools.FieldNumber && byName["score"].Default == 9.5},
		{"subscribe", byName["subscribe"].Kind == tools.FieldBoolean && byName["subscribe"].Default == true},
		{"colour", byName["colour"].Kind == tools.FieldChoice && byName["colour"].Default == "g" &&
			fmt.Sprint(byName["colour"].Options) == "[{r Red} {g Green}]"},
		{"size", byName["size"].Kind == tools.FieldChoice && len(byName["size"].Options) == 3},
		{"tags", byName["tags"].Kind == tools.FieldMulti && fmt.Sprint(byName["tags"].Default) == "[a c]"},
		{"api_token secret", byName["api_token"].Secret && byName["api_token"].Required && !byName["name"].Secret},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("%s: %+v", c.name, byName)
		}
	}
	if w := got.SecretWarning(); !strings.Contains(w, "MCP server asker (from this project's settings)") || !strings.Contains(w, "api_token") {
		t.Errorf("secret warning: %q", w)
	}
	var back sdk.ElicitResult
	if err := json.Unmarshal([]byte(res.Display), &back); err != nil {
		t.Fatalf("result %q: %v", res.Display, err)
	}
	// The secret came back as typed, and was taken out of the result
	// (only "tok-123" itself is replaced).
	want := map[string]any{"email": "ada@example.com", "api_token": "[REDACTED]", "age": 37.0, "tags": []any{"b"},
		// left out: the schema's defaults, applied (SEP-1034)
		"name": "Ada", "score": 9.5, "subscribe": true, "colour": "g"}
	if back.Action != "accept" || fmt.Sprint(back.Content) != fmt.Sprint(want) {
		t.Errorf("the server got %+v, want %v", back, want)
	}
}

// Decline and cancel reach the server as they are, without content; a
// URL-mode request shows its URL and accept is passed on.
func TestElicitationDeclineCancelAndURL(t *testing.T) {
	url := elicitServer(t, nil)
	f := newFixture(t, mcp.ServerConfig{Name: "asker", URL: url, Timeout: 10 * time.Second})
	if n := f.start(t); len(n) != 0 {
		t.Fatalf("notices: %v", n)
	}
	for _, action := range []tools.FormAction{tools.FormDecline, tools.FormCancel} {
		res, err := runAsking(f.tool(t, "mcp__asker__ask"), `{}`, func(context.Context, tools.Form) (tools.FormAnswer, error) {
			return tools.FormAnswer{Action: action, Content: map[string]any{"email": "leak@example.com"}}, nil
		})
		if err != nil || res.Display != fmt.Sprintf(`{"action":%q}`, action) {
			t.Errorf("%s: %q %v", action, res.Display, err)
		}
	}
	var got tools.Form
	res, err := runAsking(f.tool(t, "mcp__asker__url"), `{}`, func(_ context.Context, form tools.Form) (tools.FormAnswer, error) {
		got = form
		return tools.FormAnswer{Action: tools.FormAccept}, nil
	})
	if err != nil || res.Display != `{"action":"accept"}` {
		t.Errorf("url: %q %v", res.Display, err)
	}
	if got.URL != "https://example.com/authorise" || len(got.Fields) != 0 || got.Message != "Authorise" {
		t.Errorf("url form: %+v", got)
	}
}

// A schema that is not a flat form is refused before any form shows: the
// server gets an error naming the property, the user a notice.
func TestElicitationBadSchemaIsRefusedWithANotice(t *testing.T) {
	url := elicitServer(t, nil)
	f := newFixture(t, mcp.ServerConfig{Name: "asker", URL: url, Timeout: 10 * time.Second})
	heard := make(chan string, 8)
	f.m.Listen(func(text string, _ bool) { heard <- text })
	f.m.Start()
	waitHeard(t, heard, "connected")
	asked := false
	res, err := runAsking(f.tool(t, "mcp__asker__ask"), `{"schema":{"type":"object","properties":{"address":{"type":"object","properties":{"street":{"type":"string"}}}}}}`,
		func(context.Context, tools.Form) (tools.FormAnswer, error) {
			asked = true
			return tools.FormAnswer{Action: tools.FormAccept}, nil
		})
	if asked {
		t.Error("a form with a nested object was shown")
	}
	if err == nil || !strings.Contains(err.Error(), "elicit failed") || !strings.Contains(err.Error(), `"address"`) {
		t.Errorf("the server's view: %q %v", res.Display, err)
	}
	if n := waitHeard(t, heard, "cannot show"); !strings.Contains(n, "MCP server asker") || !strings.Contains(n, `"address"`) {
		t.Errorf("notice: %q", n)
	}
}

// A server that asks while none of its calls runs is declined, and the
// user told so.
func TestElicitationOutsideACallIsDeclined(t *testing.T) {
	sessions := make(chan *sdk.ServerSession, 1)
	url := elicitServer(t, sessions)
	f := newFixture(t, mcp.ServerConfig{Name: "asker", URL: url, Timeout: 10 * time.Second})
	heard := make(chan string, 8)
	f.m.Listen(func(text string, _ bool) { heard <- text })
	f.m.Start()
	waitHeard(t, heard, "connected")
	if _, err := runAsking(f.tool(t, "mcp__asker__hello"), `{}`, func(context.Context, tools.Form) (tools.FormAnswer, error) {
		t.Error("asked")
		return tools.FormAnswer{}, nil
	}); err != nil {
		t.Fatal(err)
	}
	ss := <-sessions
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := ss.Elicit(ctx, &sdk.ElicitParams{Message: "out of the blue", RequestedSchema: json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}}}`)})
	if err != nil || res.Action != "decline" {
		t.Errorf("out of a call: %+v %v", res, err)
	}
	if n := waitHeard(t, heard, "none of its tools was running"); !strings.Contains(n, "MCP server asker") {
		t.Errorf("notice: %q", n)
	}
}

// memAsker is a manager connected to elicitHandler's server over an
// in-memory network, its call timeout timeout, for a test inside a
// testing/synctest bubble: the bubble's clock moves only when every
// goroutine of the test waits, so the server's start and the call's round
// trips take no time, and a form held for a duration is held exactly that.
func memAsker(t *testing.T, timeout time.Duration, stalled chan<- error) *fixture {
	t.Helper()
	rt := memHTTP(t, elicitHandler(nil, stalled))
	f := newFixture(t, mcp.ServerConfig{Name: "asker", URL: "http://asker.test/mcp", Timeout: timeout})
	mcp.SetRoundTripper(f.m, rt)
	if n := f.start(t); len(n) != 0 {
		t.Fatalf("notices: %v", n)
	}
	return f
}

// holdForm is a form function that answers x="late" after d, unless the
// form is withdrawn first; answered receives the moment it answers.
func holdForm(d time.Duration, answered *time.Time) tools.FormFunc {
	return func(ctx context.Context, _ tools.Form) (tools.FormAnswer, error) {
		select {
		case <-time.After(d):
		case <-ctx.Done():
			return tools.FormAnswer{}, ctx.Err()
		}
		*answered = time.Now()
		return tools.FormAnswer{Action: tools.FormAccept, Content: map[string]any{"x": "late"}}, nil
	}
}

// The call's timeout does not run while the user fills the form in: a form
// answered after ten times the timeout still gets the call its result.
// The clock is testing/synctest's: the call takes exactly as long as the
// form was open.
func TestElicitationPausesTheCallTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const timeout = 10 * time.Second
		f := memAsker(t, timeout, nil)
		start := time.Now()
		var answered time.Time
		res, err := f.tool(t, "mcp__asker__ask").Run(tools.WithForm(t.Context(), holdForm(10*timeout, &answered)),
			json.RawMessage(`{"schema":{"type":"object","properties":{"x":{"type":"string"}}}}`))
		if err != nil || res.Display != `{"action":"accept","content":{"x":"late"}}` {
			t.Fatalf("a form held past the timeout: %q %v", res.Display, err)
		}
		if took := time.Since(start); took != 10*timeout {
			t.Errorf("the call took %v, want the %v the form was open", took, 10*timeout)
		}
	})
}

// The pause is a pause, not an off switch: once the form is answered the
// call's timeout runs again, whole (the user's time is not the server's),
// so a server that then stalls is cancelled that timeout after the answer.
func TestElicitationTimeoutRunsAgainAfterTheAnswer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const timeout = 10 * time.Second
		stalled := make(chan error, 1)
		f := memAsker(t, timeout, stalled)
		var answered time.Time
		res, err := f.tool(t, "mcp__asker__stall").Run(tools.WithForm(t.Context(), holdForm(10*timeout, &answered)), json.RawMessage(`{}`))
		if err == nil || !strings.Contains(err.Error(), "MCP server asker did not answer the call of stall within 10s") {
			t.Fatalf("a server stalling after the answer: %q %v", res.Display, err)
		}
		if answered.IsZero() {
			t.Fatal("the form was withdrawn before it was answered")
		}
		if after := time.Since(answered); after != timeout {
			t.Errorf("the call was cancelled %v after the answer, want its timeout, %v", after, timeout)
		}
		// The server heard the cancellation (notifications/cancelled).
		if err := <-stalled; !errors.Is(err, context.Canceled) {
			t.Errorf("the server's call ended with %v", err)
		}
	})
}

// With two forms open at once, the timeout waits for the last: answering
// one does not start it while the other is still open.
func TestElicitationTwoFormsPauseTheTimeoutUntilBothAreAnswered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const timeout = 10 * time.Second
		f := memAsker(t, timeout, nil)
		second := make(chan struct{})
		var mu sync.Mutex
		arrived := 0
		start := time.Now()
		res, err := f.tool(t, "mcp__asker__two").Run(tools.WithForm(t.Context(), func(ctx context.Context, _ tools.Form) (tools.FormAnswer, error) {
			mu.Lock()
			arrived++
			n := arrived
			mu.Unlock()
			wait := 10 * timeout // the second form is held long
			if n == 1 {
				// The first is answered at once, but only once the second is
				// open too.
				select {
				case <-second:
				case <-ctx.Done():
					return tools.FormAnswer{}, ctx.Err()
				case <-time.After(time.Hour):
					t.Error("the second form did not come while the first was open")
				}
				wait = 0
			} else {
				close(second)
			}
			select {
			case <-time.After(wait):
			case <-ctx.Done():
				return tools.FormAnswer{}, ctx.Err()
			}
			return tools.FormAnswer{Action: tools.FormDecline}, nil
		}), json.RawMessage(`{}`))
		if err != nil || res.Display != "decline,decline" {
			t.Fatalf("two forms, one held past the timeout: %q %v", res.Display, err)
		}
		if took := time.Since(start); took != 10*timeout {
			t.Errorf("the call took %v, want the %v the second form was open", took, 10*timeout)
		}
	})
}

// mrtrHandler is a stateless server on protocol 2026-07-28, where a tool
// asks by returning input requests (multi round-trip requests, SEP-2322)
// and is called again with the answers: "later" works a second, then asks
// for x and returns the answer as JSON; "work" works five seconds.
func mrtrHandler() http.Handler {
	return sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server {
		s := sdk.NewServer(&sdk.Implementation{Name: "asker", Version: "1"}, nil)
		s.AddTool(&sdk.Tool{Name: "later", Description: "Work a second, then ask.", InputSchema: objectSchema},
			func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				if r, ok := req.Params.InputResponses["x"].(*sdk.ElicitResult); ok {
					b, _ := json.Marshal(r)
					return text(string(b)), nil
				}
				select {
				case <-time.After(time.Second):
				case <-ctx.Done():
					return nil, ctx.Err()
				}
				return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{"x": &sdk.ElicitParams{Message: "x?",
					RequestedSchema: json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}}}`)}}}, nil
			})
		s.AddTool(&sdk.Tool{Name: "work", Description: "Work five seconds.", InputSchema: objectSchema},
			func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				select {
				case <-time.After(5 * time.Second):
					return text("worked"), nil
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			})
		return s
	}, &sdk.StreamableHTTPOptions{Stateless: true})
}

// A form pauses the timeout of the call that asked for it, not of another
// call of the same server running at the same time: call A asks a second
// in, after call B has started; B, which asked for nothing, ends on its
// own after five seconds. A's form is shown through A's form function and
// held ten times the timeout, and A still gets its answer; B's end does
// not withdraw it. On protocol 2025-11-25 the server's request comes on
// A's stream; on 2026-07-28 A's result carries it.
func TestElicitationPausesTheCallThatAsked(t *testing.T) {
	for _, tc := range []struct {
		protocol string
		handler  http.Handler
	}{
		{"2025-11-25", elicitHandler(nil, nil)},
		{"2026-07-28", mrtrHandler()},
	} {
		t.Run(tc.protocol, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				const timeout = 10 * time.Second
				rt := memHTTP(t, tc.handler)
				f := newFixture(t, mcp.ServerConfig{Name: "asker", URL: "http://asker.test/mcp", Timeout: timeout})
				mcp.SetRoundTripper(f.m, rt)
				if n := f.start(t); len(n) != 0 {
					t.Fatalf("notices: %v", n)
				}
				if st := f.m.Statuses()[0]; st.Protocol != tc.protocol {
					t.Fatalf("protocol %q, want %q", st.Protocol, tc.protocol)
				}
				start := time.Now()
				type result struct {
					res  tools.Result
					err  error
					took time.Duration
				}
				var answered time.Time
				aDone, bDone := make(chan result, 1), make(chan result, 1)
				go func() {
					res, err := f.tool(t, "mcp__asker__later").Run(tools.WithForm(t.Context(), holdForm(10*timeout, &answered)), json.RawMessage(`{}`))
					aDone <- result{res, err, time.Since(start)}
				}()
				synctest.Wait() // A is under way
				var wrong sync.Once
				go func() {
					res, err := f.tool(t, "mcp__asker__work").Run(tools.WithForm(t.Context(), func(context.Context, tools.Form) (tools.FormAnswer, error) {
						wrong.Do(func() { t.Error("call A's form was shown as call B's") })
						return tools.FormAnswer{Action: tools.FormDecline}, nil
					}), json.RawMessage(`{}`))
					bDone <- result{res, err, time.Since(start)}
				}()
				b, a := <-bDone, <-aDone
				if b.err != nil || b.res.Display != "worked" || b.took != 5*time.Second {
					t.Errorf("call B: %q %v after %v", b.res.Display, b.err, b.took)
				}
				if a.err != nil || a.res.Display != `{"action":"accept","content":{"x":"late"}}` {
					t.Fatalf("call A, its form held past its timeout: %q %v", a.res.Display, a.err)
				}
				if want := time.Second + 10*timeout; a.took != want {
					t.Errorf("call A took %v, want %v: a second, then its form", a.took, want)
				}
			})
		})
	}
}

// elicitStdioServer is a local server on protocol 2025-11-25, whose
// elicitation/create requests name no call: "held" waits until a form of
// "gate" has been answered; "gate" waits until "held" is running, then
// asks for x and returns the answer as JSON.
func elicitStdioServer() *sdk.Server {
	arrived, answered := make(chan struct{}), make(chan struct{})
	var arrive, answer sync.Once
	s := sdk.NewServer(&sdk.Implementation{Name: "asker", Version: "1"}, &sdk.ServerOptions{SupportedProtocolVersions: []string{"2025-11-25"}})
	s.AddTool(&sdk.Tool{Name: "held", Description: "Wait for gate's form.", InputSchema: objectSchema},
		func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			arrive.Do(func() { close(arrived) })
			select {
			case <-answered:
				return text("held"), nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		})
	s.AddTool(&sdk.Tool{Name: "gate", Description: "Ask once held runs.", InputSchema: objectSchema},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			select {
			case <-arrived:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			res, err := req.Session.Elicit(ctx, &sdk.ElicitParams{Message: "x?", RequestedSchema: json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}}}`)})
			answer.Do(func() { close(answered) })
			if err != nil {
				return nil, err
			}
			b, _ := json.Marshal(res)
			return text(string(b)), nil
		})
	return s
}

// A local server on an older protocol does not say which call a form is
// for, so it pauses every call of the server then running: "gate" asks
// while "held" runs, and the form, held past the timeout, times out
// neither. The hold is a real one (a process is no testing/synctest
// bubble), and only its being longer than the timeout matters.
func TestElicitationOverStdioPausesEveryCallOfTheServer(t *testing.T) {
	// What runs of the calls outside the form (both reaching the server,
	// then their answers: milliseconds) must fit in the timeout; a busy
	// CI machine under -race gets a thousandfold margin.
	const timeout = 8 * time.Second
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, mcp.ServerConfig{Name: "asker", Command: exe, Env: map[string]string{"CO_MCP_TEST_SERVER": "elicit"}, Timeout: timeout})
	if n := f.start(t); len(n) != 0 {
		t.Fatalf("notices: %v", n)
	}
	if st := f.m.Statuses()[0]; st.Protocol != "2025-11-25" {
		t.Fatalf("protocol %q, want 2025-11-25", st.Protocol)
	}
	var answered time.Time
	form := holdForm(2*timeout, &answered)
	var wg sync.WaitGroup
	results := make([]string, 2)
	for i, tool := range []string{"mcp__asker__gate", "mcp__asker__held"} {
		wg.Go(func() {
			res, err := f.tool(t, tool).Run(tools.WithForm(t.Context(), form), json.RawMessage(`{}`))
			results[i] = fmt.Sprintf("%s %v", res.Display, err)
		})
	}
	wg.Wait()
	if results[0] != `{"action":"accept","content":{"x":"late"}} <nil>` || results[1] != "held <nil>" {
		t.Errorf("two calls, a form held past their timeout: %q", results)
	}
}

// A form is withdrawn when its call is interrupted: the form function's
// context ends.
func TestElicitationWithdrawnWhenTheCallEnds(t *testing.T) {
	url := elicitServer(t, nil)
	f := newFixture(t, mcp.ServerConfig{Name: "asker", URL: url, Timeout: 10 * time.Second})
	if n := f.start(t); len(n) != 0 {
		t.Fatalf("notices: %v", n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var once sync.Once
	withdrawn := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		_, err := f.tool(t, "mcp__asker__ask").Run(tools.WithForm(ctx, func(actx context.Context, _ tools.Form) (tools.FormAnswer, error) {
			cancel() // the user interrupts the turn
			<-actx.Done()
			once.Do(func() { close(withdrawn) })
			return tools.FormAnswer{}, actx.Err()
		}), json.RawMessage(`{}`))
		done <- err
	}()
	select {
	case <-withdrawn:
	case <-time.After(20 * time.Second):
		t.Fatal("the form was not withdrawn when its call was interrupted")
	}
	if err := <-done; err == nil {
		t.Error("an interrupted call succeeded")
	}
}

func waitHeard(t *testing.T, heard <-chan string, part string) string {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case n := <-heard:
			if strings.Contains(n, part) {
				return n
			}
		case <-deadline:
			t.Fatalf("no notice with %q", part)
		}
	}
}

// Through the agent: the form is a FormRequested event for the running
// call; the span says an elicitation happened, which server, the field
// names and the answer, and no span holds a value typed into it.
func TestElicitationThroughAgentKeepsValuesOutOfSpans(t *testing.T) {
	url := elicitServer(t, nil)
	f := newFixture(t, mcp.ServerConfig{Name: "asker", URL: url, Timeout: 10 * time.Second})
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	ag := agent.New(agent.Config{
		Tracer:     tp.Tracer("test"),
		Provider:   provider.Provider{Name: "openai", BaseURL: srv.URL, APIKey: "k", Model: "m"},
		Tools:      f.reg,
		Approvals:  agent.NewApprovals(agent.ApprovalOptions{Isolated: true}),
		ToolsStart: f.m.Start,
		ToolsReady: f.m.Ready,
	})
	srv.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "mcp__asker__login", Args: `{}`}}},
		llmtest.Reply{Text: "in"},
	)
	const secret = "hunter2-very-secret"
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var forms []agent.FormRequested
	for ev := range ag.Submit(ctx, "log in") {
		switch e := ev.(type) {
		case agent.ApprovalRequested:
			e.Reply([]message.Verdict{message.ApproveOnce})
		case agent.FormRequested:
			forms = append(forms, e)
			e.Reply(tools.FormAnswer{Action: tools.FormAccept, Content: map[string]any{"user": "ada-lovelace-user", "password": secret}})
		case agent.TurnFailed:
			t.Fatalf("turn failed: %s", e.Message)
		}
	}
	if len(forms) != 1 || forms[0].CallID != "c1" || forms[0].Form.Server != "asker" {
		t.Fatalf("forms: %+v", forms)
	}
	results := srv.Requests()[1].ToolResults()
	if got := results[len(results)-1]; !strings.Contains(got, "login: accept") {
		t.Errorf("the model got %q", got)
	}
	if err := tp.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, s := range rec.Ended() {
		attrs := map[string]string{}
		for _, kv := range s.Attributes() {
			attrs[string(kv.Key)] = kv.Value.String()
			if strings.Contains(kv.Value.String(), secret) || strings.Contains(kv.Value.String(), "ada-lovelace-user") {
				t.Errorf("span %s holds a value of the form: %s=%s", s.Name(), kv.Key, kv.Value.String())
			}
		}
		if s.Name() == "elicitation" {
			found = true
			if attrs["co.mcp.server"] != "asker" || attrs["co.elicitation.fields"] != `["user","password"]` || attrs["co.elicitation.action"] != "accept" {
				t.Errorf("elicitation span: %v", attrs)
			}
		}
	}
	if !found {
		t.Error("no elicitation span")
	}
}

// What the user types into a field that looks like a secret goes to the
// span store's redactor (Options.Secrets, as a login's token does), and is
// taken out of the results: a server that echoes it puts it neither in a
// span nor before the model or in the saved session.
func TestElicitationSecretValuesAreRedacted(t *testing.T) {
	url := elicitServer(t, nil)
	f := newFixture(t, mcp.ServerConfig{Name: "asker", URL: url, Timeout: 10 * time.Second})
	var mu sync.Mutex
	var got []string
	f.m.RedactWith(func(v ...string) {
		mu.Lock()
		got = append(got, v...)
		mu.Unlock()
	})
	f.start(t)
	res, err := runAsking(f.tool(t, "mcp__asker__ask"), `{}`, func(context.Context, tools.Form) (tools.FormAnswer, error) {
		return tools.FormAnswer{Action: tools.FormAccept, Content: map[string]any{
			"email": "ada@example.com", "api_token": "tok-typed-4567", "age": int64(37)}}, nil
	})
	// The server echoes every field: the secret's value is taken out of
	// the result the model and the saved session get; the others stay.
	if err != nil || strings.Contains(res.Display, "tok-typed-4567") || !strings.Contains(res.Display, `"api_token":"[REDACTED]"`) ||
		!strings.Contains(res.Display, "ada@example.com") {
		t.Fatalf("%v %q", err, res.Display)
	}
	mu.Lock()
	defer mu.Unlock()
	if fmt.Sprint(got) != "[tok-typed-4567]" {
		t.Errorf("the redactor got %q, want only the secret field's value", got)
	}
}
