package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/co-cli/co/tools"
	"github.com/co-cli/co/tools/mcp"
)

type fixture struct {
	m       *mcp.Manager
	reg     *tools.Registry
	logDir  string
	trust   *mcp.Trust
	project string
}

func newFixture(t *testing.T, servers ...mcp.ServerConfig) *fixture {
	t.Helper()
	dir := t.TempDir()
	f := &fixture{logDir: filepath.Join(dir, "mcp"), trust: mcp.NewTrust(filepath.Join(dir, "mcp-trust.json")), project: filepath.Join(dir, "project")}
	f.reg, _ = tools.NewRegistry()
	f.m = f.manager(servers...)
	t.Cleanup(f.m.Close)
	return f
}

func (f *fixture) manager(servers ...mcp.ServerConfig) *mcp.Manager {
	return mcp.New(mcp.Options{Servers: servers, Registry: f.reg, LogDir: f.logDir, Trust: f.trust, Project: f.project, Version: "test"})
}

// stdioServer is this test binary serving the fault cases over stdio.
func stdioServer(t *testing.T, name string, env map[string]string) mcp.ServerConfig {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	e := map[string]string{"CO_MCP_TEST_SERVER": "stdio"}
	for k, v := range env {
		e[k] = v
	}
	return mcp.ServerConfig{Name: name, Command: exe, Env: e, Timeout: 10 * time.Second}
}

func (f *fixture) start(t *testing.T) []string {
	t.Helper()
	f.m.Start()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return f.m.Wait(ctx)
}

func (f *fixture) tool(t *testing.T, name string) tools.Tool {
	t.Helper()
	tl, ok := f.reg.Get(name)
	if !ok {
		t.Fatalf("no tool %s; the registry has %v; statuses %+v", name, f.reg.Names(), f.m.Statuses())
	}
	return tl
}

func run(t *testing.T, tl tools.Tool, args string) (tools.Result, error) {
	t.Helper()
	return tl.Run(context.Background(), json.RawMessage(args))
}

func TestStdioServerTools(t *testing.T) {
	f := newFixture(t, stdioServer(t, "fx", nil))
	if n := f.start(t); len(n) != 0 {
		t.Fatalf("notices: %v", n)
	}
	st := f.m.Statuses()[0]
	if st.State != mcp.Connected || len(st.Tools) != 7 || st.Protocol == "" {
		t.Fatalf("status: %+v", st)
	}
	echo := f.tool(t, "mcp__fx__echo")
	if strings.Contains(string(echo.Schema()), "$schema") || strings.Contains(string(echo.Schema()), "additionalProperties") {
		t.Errorf("schema not simplified: %s", echo.Schema())
	}
	if !strings.Contains(echo.Description(), "Echo the text back.") || !strings.Contains(echo.Description(), "MCP server fx") {
		t.Errorf("description: %q", echo.Description())
	}
	res, err := run(t, echo, `{"text":"hi"}`)
	if err != nil || res.Display != "echo: hi" {
		t.Fatalf("echo: %q, %v", res.Display, err)
	}

	// isError goes back to the model as a call it can retry.
	_, err = run(t, f.tool(t, "mcp__fx__fail"), `{}`)
	if !tools.IsRetry(err) || !strings.Contains(err.Error(), "the widget is jammed") {
		t.Errorf("isError: %v", err)
	}

	// 1 MB is cut like other tools' output: head and tail kept.
	res, err = run(t, f.tool(t, "mcp__fx__big"), `{}`)
	if err != nil || len([]rune(res.Display)) > mcp.MaxResultChars+200 || res.Meta["truncated"] != true || res.Meta["total_chars"] != 1<<20 ||
		!strings.HasSuffix(res.Display, "characters; the 1028576 between are left out …]\n"+strings.Repeat("x", mcp.MaxResultChars-mcp.MaxResultChars/4)) {
		t.Errorf("big: %d chars, meta %v, %v", len(res.Display), res.Meta, err)
	}

	// Images and resources are summarised.
	res, err = run(t, f.tool(t, "mcp__fx__picture"), `{}`)
	if err != nil || res.Display != "here it is\n[image: image/png, 2 KB]\n[resource: file:///a.txt, text/plain, 3 B]" {
		t.Errorf("picture: %q, %v", res.Display, err)
	}

	// The server's stderr went to its log file.
	log, err := os.ReadFile(filepath.Join(f.logDir, "fx.log"))
	if err != nil || !strings.Contains(string(log), "test server: serving on stdio") {
		t.Errorf("log: %q, %v", log, err)
	}
}

// Calls ask by default, showing the server, the tool and the arguments; a
// session grant covers that tool of that server; "approve": "auto" allows.
func TestApproval(t *testing.T) {
	ask := stdioServer(t, "asks", nil)
	auto := stdioServer(t, "trusted", nil)
	auto.AutoApprove = true
	f := newFixture(t, ask, auto)
	f.start(t)
	ch := tools.Decide(context.Background(), f.tool(t, "mcp__asks__echo"), json.RawMessage(`{"text":"hi"}`))
	if ch.Decision != tools.Ask || ch.Scope != "mcp__asks__echo" || !strings.Contains(ch.Preview, "server: asks\ntool: echo\narguments:\n{\n  \"text\": \"hi\"\n}") {
		t.Errorf("ask: %+v", ch)
	}
	ch = tools.Decide(context.Background(), f.tool(t, "mcp__trusted__echo"), json.RawMessage(`{}`))
	if ch.Decision != tools.Allow {
		t.Errorf("auto: %+v", ch)
	}
	sa, ok := f.tool(t, "mcp__asks__echo").(tools.SpanAttributer)
	if !ok || sa.SpanAttributes()["co.mcp.server"] != "asks" {
		t.Errorf("span attributes: %v", sa)
	}
}

func TestServerExitsMidCall(t *testing.T) {
	f := newFixture(t, stdioServer(t, "fx", nil))
	f.start(t)
	_, err := run(t, f.tool(t, "mcp__fx__exit"), `{}`)
	if err == nil || tools.IsRetry(err) {
		t.Fatalf("a server that exits fails the call: %v", err)
	}
	waitFor(t, func() bool { return f.m.Statuses()[0].State == mcp.Failed })
	notices := f.m.Wait(context.Background())
	if len(notices) != 1 || !strings.Contains(notices[0], "MCP server fx failed: the server process exited") || !strings.Contains(notices[0], "7 tools were withdrawn") {
		t.Errorf("notices: %v", notices)
	}
	if n := f.reg.Len(); n != 0 {
		t.Errorf("tools left: %v", f.reg.Names())
	}
	// Restart brings it back.
	if err := f.m.Restart("fx"); err != nil {
		t.Fatal(err)
	}
	f.m.Wait(context.Background())
	if st := f.m.Statuses()[0]; st.State != mcp.Connected || f.reg.Len() != 7 {
		t.Errorf("after restart: %+v", st)
	}
}

// A call past its timeout fails cleanly, naming it, exactly at the
// timeout (the clock is testing/synctest's: the server's start and the
// round trips take none of it), and the server hears the protocol's
// cancellation; the server stays connected.
func TestCallTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cancelled := make(chan error, 1)
		s := sdk.NewServer(&sdk.Implementation{Name: "co-test", Version: "1"}, nil)
		s.AddTool(&sdk.Tool{Name: "hang", Description: "Never answer.", InputSchema: objectSchema},
			func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				<-ctx.Done() // the SDK cancels it on notifications/cancelled
				cancelled <- ctx.Err()
				return nil, ctx.Err()
			})
		rt := memHTTP(t, sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil))
		f := newFixture(t, mcp.ServerConfig{Name: "fx", URL: "http://fx.test/mcp", Timeout: 2 * time.Second})
		mcp.SetRoundTripper(f.m, rt)
		if n := f.start(t); len(n) != 0 {
			t.Fatalf("notices: %v", n)
		}
		start := time.Now()
		_, err := run(t, f.tool(t, "mcp__fx__hang"), `{}`)
		if err == nil || !strings.Contains(err.Error(), "did not answer the call of hang within 2s") {
			t.Fatalf("timeout: %v", err)
		}
		if took := time.Since(start); took != 2*time.Second {
			t.Errorf("the call ended after %v, want its timeout, 2s", took)
		}
		select {
		case err := <-cancelled:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("the server's call ended with %v", err)
			}
		case <-time.After(time.Minute): // the bubble's clock: only when all else waits
			t.Error("the server did not hear the cancellation")
		}
		if st := f.m.Statuses()[0]; st.State != mcp.Connected {
			t.Errorf("the server stays connected: %+v", st)
		}
	})
}

// A call the user interrupts (Ctrl+C: its context cancelled) once the
// server is handling it returns at once, and the server, a process over
// stdio, hears the protocol's cancellation and stays connected. Its
// timeout is long enough never to be what ends the call.
func TestInterruptCancelsTheCall(t *testing.T) {
	dir := t.TempDir()
	marker, hanging := filepath.Join(dir, "cancelled"), filepath.Join(dir, "hanging")
	cfg := stdioServer(t, "fx", map[string]string{"CO_MCP_TEST_CANCELLED": marker, "CO_MCP_TEST_HANGING": hanging})
	cfg.Timeout = 10 * time.Minute
	f := newFixture(t, cfg)
	if n := f.start(t); len(n) != 0 {
		t.Fatalf("notices: %v", n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := f.tool(t, "mcp__fx__hang").Run(ctx, json.RawMessage(`{}`))
		done <- err
	}()
	waitFor(t, func() bool { _, err := os.Stat(hanging); return err == nil })
	cancel()
	var err error
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the interrupted call did not return (hang detector)")
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted call: %v", err)
	}
	waitFor(t, func() bool { _, err := os.Stat(marker); return err == nil })
	if st := f.m.Statuses()[0]; st.State != mcp.Connected {
		t.Errorf("the server stays connected: %+v", st)
	}
}

func TestToolListChanged(t *testing.T) {
	f := newFixture(t, stdioServer(t, "fx", nil))
	f.start(t)
	if _, err := run(t, f.tool(t, "mcp__fx__grow"), `{}`); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { _, ok := f.reg.Get("mcp__fx__added"); return ok })
	res, err := run(t, f.tool(t, "mcp__fx__added"), `{}`)
	if err != nil || res.Display != "added" {
		t.Errorf("added: %q %v", res.Display, err)
	}
	waitFor(t, func() bool {
		for _, n := range f.m.Wait(context.Background()) {
			if strings.Contains(n, "MCP server fx changed its tools: 8 now (was 7)") {
				return true
			}
		}
		return false
	})
}

// A server that never finishes starting, or cannot start, is reported and
// bounded by its timeout; the others work.
func TestStartFailures(t *testing.T) {
	exe, _ := os.Executable()
	hang := mcp.ServerConfig{Name: "slow", Command: exe, Env: map[string]string{"CO_MCP_TEST_SERVER": "hang-start"}, Timeout: time.Second}
	missing := mcp.ServerConfig{Name: "gone", Command: filepath.Join(t.TempDir(), "no-such-server")}
	unset := mcp.ServerConfig{Name: "unset", Command: "${CO_TEST_SURELY_UNSET_VAR}"}
	f := newFixture(t, hang, missing, unset, stdioServer(t, "ok", nil))
	// The notices name the 1s timeout; f.start's own deadline is the hang
	// detector (how long the wait took on a busy machine is not asserted).
	notices := f.start(t)
	all := strings.Join(notices, "\n")
	for _, want := range []string{
		"MCP server slow failed to start: did not finish starting within 1s",
		"MCP server gone failed to start:",
		"MCP server unset failed to start: the settings reference ${CO_TEST_SURELY_UNSET_VAR}, which is not set",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("notices lack %q:\n%s", want, all)
		}
	}
	if _, ok := f.reg.Get("mcp__ok__echo"); !ok {
		t.Errorf("the working server's tools: %v", f.reg.Names())
	}
}

// A project's server does not start before the user consents to its exact
// definition; consent survives a restart of co; a changed definition asks
// again.
func TestProjectConsent(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "started")
	exe, _ := os.Executable()
	cfg := mcp.ServerConfig{Name: "repo", Command: "sh", Args: []string{"-c", `touch "$0"; exec "$1"`, marker, exe},
		Env: map[string]string{"CO_MCP_TEST_SERVER": "stdio"}, Project: true, Definition: []byte(`{"v":1}`)}
	f := newFixture(t, cfg)
	// f.start waits for every server that starts: a project server
	// started without consent would have touched the marker by now.
	f.start(t)
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a project server started without consent")
	}
	if st := f.m.Statuses()[0]; st.State != mcp.AwaitingConsent || !st.Project {
		t.Fatalf("status: %+v", st)
	}
	if err := f.m.Restart("repo"); err == nil || !strings.Contains(err.Error(), "/mcp trust repo") {
		t.Errorf("restart before consent: %v", err)
	}
	if err := f.m.Trust("repo"); err != nil {
		t.Fatal(err)
	}
	f.m.Wait(context.Background())
	if _, err := os.Stat(marker); err != nil {
		t.Fatal("consented server did not start")
	}
	if st := f.m.Statuses()[0]; st.State != mcp.Connected {
		t.Fatalf("after trust: %+v", st)
	}
	if m2 := f.manager(cfg); m2.Statuses()[0].State != mcp.NotStarted {
		t.Errorf("consent was not kept: %+v", m2.Statuses()[0])
	}
	cfg.Definition = []byte(`{"v":2}`)
	if m3 := f.manager(cfg); m3.Statuses()[0].State != mcp.AwaitingConsent {
		t.Errorf("a changed definition must ask again: %+v", m3.Statuses()[0])
	}
	if err := f.m.Trust("nope"); err == nil || !strings.Contains(err.Error(), "the servers are: repo") {
		t.Errorf("unknown: %v", err)
	}
}

// A remote server over streamable HTTP, headers with ${VAR} expanded.
func TestStreamableHTTP(t *testing.T) {
	var auth atomic.Value
	h := sdk.NewStreamableHTTPHandler(func(r *http.Request) *sdk.Server {
		auth.Store(r.Header.Get("Authorization"))
		return newTestServer()
	}, nil)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close) // after the manager's Close: the SSE stream holds a request open
	cfg := mcp.ServerConfig{Name: "web", URL: srv.URL, Headers: map[string]string{"Authorization": "Bearer ${CO_TEST_MCP_TOKEN}"}, Timeout: 5 * time.Second}
	f := newFixture(t, cfg)
	t.Setenv("CO_TEST_MCP_TOKEN", "s3cret")
	if n := f.start(t); len(n) != 0 {
		t.Fatalf("notices: %v", n)
	}
	if got, _ := auth.Load().(string); got != "Bearer s3cret" {
		t.Errorf("Authorization: %q", got)
	}
	res, err := run(t, f.tool(t, "mcp__web__echo"), `{"text":"over http"}`)
	if err != nil || res.Display != "echo: over http" {
		t.Errorf("echo: %q %v", res.Display, err)
	}
	if _, err := run(t, f.tool(t, "mcp__web__grow"), `{}`); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { _, ok := f.reg.Get("mcp__web__added"); return ok })
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// The failures a new user meets first are said in words, with the setting
// to check: a URL that refuses connections, a command that is not there.
// The raw error stays available as the status's Detail (for /mcp and co
// mcp list) and in a local server's log.
func TestStartFailuresInWords(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + ln.Addr().String() + "/mcp"
	ln.Close() // nothing listens there now: connection refused
	missingCmd := filepath.Join(t.TempDir(), "no-such-mcp-bin")
	f := newFixture(t,
		mcp.ServerConfig{Name: "remote", URL: refused, Timeout: 10 * time.Second},
		mcp.ServerConfig{Name: "gone", Command: missingCmd, Timeout: 10 * time.Second},
	)
	all := strings.Join(f.start(t), "\n")
	for _, want := range []string{
		"MCP server remote failed to start: could not connect to " + refused + ": connection refused — is the server running? (mcp_servers.remote.url)",
		"MCP server gone failed to start: command " + missingCmd + " not found — check mcp_servers.gone.command",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("notices lack %q:\n%s", want, all)
		}
	}
	for _, raw := range []string{"dial tcp", "fork/exec", "rejected by transport"} {
		if strings.Contains(all, raw) {
			t.Errorf("the notices show the raw %q:\n%s", raw, all)
		}
	}
	for _, st := range f.m.Statuses() {
		if st.Detail == "" || !strings.Contains(st.Detail, map[string]string{"remote": "connection refused", "gone": "no-such-mcp-bin"}[st.Name]) {
			t.Errorf("%s: the raw error is not kept: %+v", st.Name, st)
		}
	}
	log, _ := os.ReadFile(filepath.Join(f.logDir, "gone.log"))
	if !strings.Contains(string(log), "fork/exec") && !strings.Contains(string(log), "no such file") {
		t.Errorf("the log lacks the raw error: %q (files: %v)", log, f.logDir)
	}
}
