package e2e

// The viewers in a real browser: Debian's headless Chromium, driven over
// the DevTools protocol (a small client on gorilla/websocket). Install it
// with `apt-get install -y chromium`; CO_TEST_NO_BROWSER=1 skips these
// tests where it cannot be installed. Screenshots go to e2e/artifacts/.

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/lib/testneeds"
)

// browser is one headless Chromium with one page, recording the page's
// console errors, uncaught exceptions and network requests.
type browser struct {
	t       *testing.T
	cmd     *exec.Cmd
	profile string
	conn    *websocket.Conn

	mu       sync.Mutex
	nextID   int
	pending  map[int]chan cdpReply
	errors   []string // console errors, exceptions, error log entries
	requests []string // URLs the page requested
	loaded   chan struct{}
}

type cdpReply struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error"`
}

func findChromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	testneeds.Browser.Missing(t, "no chromium, chromium-browser, google-chrome or google-chrome-stable on PATH")
	return ""
}

func startBrowser(t *testing.T) *browser {
	t.Helper()
	bin := findChromium(t)
	// Its own profile dir, removed after the whole process group is gone
	// (t.TempDir would race with Chromium's helpers still writing).
	profile, err := os.MkdirTemp("", "co-e2e-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--no-first-run", "--no-default-browser-check", "--disable-extensions", "--disable-component-update",
		"--user-data-dir="+profile, "--remote-debugging-port=0", "--window-size=1280,900", "about:blank")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	b := &browser{t: t, cmd: cmd, profile: profile, pending: map[int]chan cdpReply{}, loaded: make(chan struct{}, 16)}
	t.Cleanup(b.close)

	// "DevTools listening on ws://127.0.0.1:PORT/devtools/browser/ID"
	portc := make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`DevTools listening on ws://127\.0\.0\.1:(\d+)/`)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				portc <- m[1]
			}
		}
	}()
	var port string
	select {
	case port = <-portc:
	case <-time.After(30 * time.Second):
		t.Fatal("Chromium did not start its DevTools endpoint")
	}
	var targets []struct {
		Type string `json:"type"`
		WS   string `json:"webSocketDebuggerUrl"`
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(targets) == 0 || targets[0].WS == "" {
		resp, err := http.Get("http://127.0.0.1:" + port + "/json/list")
		if err == nil {
			var all []struct {
				Type string `json:"type"`
				WS   string `json:"webSocketDebuggerUrl"`
			}
			_ = json.NewDecoder(resp.Body).Decode(&all)
			resp.Body.Close()
			targets = targets[:0]
			for _, x := range all {
				if x.Type == "page" {
					targets = append(targets, x)
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("no page target in Chromium")
		}
		if len(targets) == 0 {
			time.Sleep(50 * time.Millisecond)
		}
	}
	b.conn, _, err = websocket.DefaultDialer.Dial(targets[0].WS, nil)
	if err != nil {
		t.Fatal(err)
	}
	go b.read()
	for _, m := range []string{"Runtime.enable", "Log.enable", "Network.enable", "Page.enable"} {
		b.call(m, nil)
	}
	b.call("Emulation.setDeviceMetricsOverride", map[string]any{"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": false})
	return b
}

func (b *browser) close() {
	if b.conn != nil {
		b.conn.Close()
	}
	if b.cmd.Process != nil {
		// The browser and its helper processes: the group we started.
		_ = syscall.Kill(-b.cmd.Process.Pid, syscall.SIGKILL)
		_ = b.cmd.Wait()
	}
	for i := 0; i < 20; i++ {
		if os.RemoveAll(b.profile) == nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (b *browser) read() {
	for {
		_, data, err := b.conn.ReadMessage()
		if err != nil {
			return
		}
		var msg struct {
			ID     int             `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			cdpReply
		}
		if json.Unmarshal(data, &msg) != nil {
			continue
		}
		if msg.ID != 0 {
			b.mu.Lock()
			ch := b.pending[msg.ID]
			delete(b.pending, msg.ID)
			b.mu.Unlock()
			if ch != nil {
				ch <- msg.cdpReply
			}
			continue
		}
		b.event(msg.Method, msg.Params)
	}
}

func (b *browser) event(method string, params json.RawMessage) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch method {
	case "Runtime.consoleAPICalled":
		var p struct {
			Type string `json:"type"`
			Args []struct {
				Value       any    `json:"value"`
				Description string `json:"description"`
			} `json:"args"`
		}
		_ = json.Unmarshal(params, &p)
		if p.Type == "error" || p.Type == "assert" {
			var parts []string
			for _, a := range p.Args {
				parts = append(parts, fmt.Sprint(a.Value, a.Description))
			}
			b.errors = append(b.errors, "console."+p.Type+": "+strings.Join(parts, " "))
		}
	case "Runtime.exceptionThrown":
		b.errors = append(b.errors, "exception: "+string(params))
	case "Log.entryAdded":
		var p struct {
			Entry struct {
				Level, Text, URL string
			} `json:"entry"`
		}
		_ = json.Unmarshal(params, &p)
		if p.Entry.Level == "error" {
			b.errors = append(b.errors, "log: "+p.Entry.Text+" "+p.Entry.URL)
		}
	case "Network.requestWillBeSent":
		var p struct {
			Request struct {
				URL string `json:"url"`
			} `json:"request"`
		}
		_ = json.Unmarshal(params, &p)
		b.requests = append(b.requests, p.Request.URL)
	case "Page.loadEventFired":
		select {
		case b.loaded <- struct{}{}:
		default:
		}
	}
}

func (b *browser) call(method string, params any) json.RawMessage {
	b.t.Helper()
	if params == nil {
		params = map[string]any{}
	}
	b.mu.Lock()
	b.nextID++
	id := b.nextID
	ch := make(chan cdpReply, 1)
	b.pending[id] = ch
	b.mu.Unlock()
	msg, _ := json.Marshal(map[string]any{"id": id, "method": method, "params": params})
	b.mu.Lock()
	err := b.conn.WriteMessage(websocket.TextMessage, msg)
	b.mu.Unlock()
	if err != nil {
		b.t.Fatalf("%s: %v", method, err)
	}
	select {
	case r := <-ch:
		if r.Error != nil {
			b.t.Fatalf("%s: %s", method, r.Error.Message)
		}
		return r.Result
	case <-time.After(30 * time.Second):
		b.t.Fatalf("%s: no answer from Chromium", method)
	}
	return nil
}

// navigate loads url and waits for its load event.
func (b *browser) navigate(url string) {
	b.t.Helper()
	for len(b.loaded) > 0 {
		<-b.loaded
	}
	b.call("Page.navigate", map[string]any{"url": url})
	select {
	case <-b.loaded:
	case <-time.After(30 * time.Second):
		b.t.Fatalf("%s did not load", url)
	}
}

// eval runs a JavaScript expression in the page and decodes its value.
func (b *browser) eval(expr string, out any) {
	b.t.Helper()
	res := b.call("Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true})
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails json.RawMessage `json:"exceptionDetails"`
	}
	if err := json.Unmarshal(res, &r); err != nil || r.ExceptionDetails != nil {
		b.t.Fatalf("evaluating %s: %v %s", expr, err, r.ExceptionDetails)
	}
	if out != nil {
		if err := json.Unmarshal(r.Result.Value, out); err != nil {
			b.t.Fatalf("evaluating %s: value %s: %v", expr, r.Result.Value, err)
		}
	}
}

// waitFor polls a boolean expression until it holds.
func (b *browser) waitFor(what, expr string, timeout time.Duration) {
	b.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		var ok bool
		b.eval("!!("+expr+")", &ok)
		if ok {
			return
		}
		if time.Now().After(deadline) {
			b.screenshot("failed-" + strings.ReplaceAll(what, " ", "-"))
			b.t.Fatalf("timed out waiting for %s (%s)", what, expr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (b *browser) num(expr string) int {
	b.t.Helper()
	var n int
	b.eval(expr, &n)
	return n
}

func (b *browser) text(expr string) string {
	b.t.Helper()
	var s string
	b.eval(expr, &s)
	return s
}

// screenshot saves the page to e2e/artifacts/NAME.png.
func (b *browser) screenshot(name string) {
	res := b.call("Page.captureScreenshot", map[string]any{"format": "png"})
	var r struct {
		Data string `json:"data"`
	}
	_ = json.Unmarshal(res, &r)
	png, err := base64.StdEncoding.DecodeString(r.Data)
	if err != nil || len(png) == 0 {
		b.t.Errorf("screenshot %s: %v", name, err)
		return
	}
	if err := os.MkdirAll("artifacts", 0o755); err != nil {
		b.t.Error(err)
		return
	}
	p := filepath.Join("artifacts", name+".png")
	if err := os.WriteFile(p, png, 0o644); err != nil {
		b.t.Error(err)
		return
	}
	abs, _ := filepath.Abs(p)
	b.t.Logf("screenshot: %s", abs)
}

// checkClean fails on any console error or exception, and on any request
// that does not start with one of the allowed prefixes.
func (b *browser) checkClean(allowed ...string) {
	b.t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, e := range b.errors {
		b.t.Errorf("browser: %s", e)
	}
	for _, u := range b.requests {
		ok := false
		for _, a := range allowed {
			if strings.HasPrefix(u, a) {
				ok = true
			}
		}
		if !ok {
			b.t.Errorf("the page requested %s", u)
		}
	}
}

// twoSessions writes a store with two co sessions: a turn with a failing
// tool call and a turn without tools.
func twoSessions(t *testing.T) []string {
	t.Helper()
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	srv.Script(
		llmtest.Reply{Text: "Let me look.", ToolCalls: []llmtest.ToolCall{{ID: "call_7", Name: "find_needle", Args: `{"q":"needle"}`}}},
		llmtest.Reply{Text: "Not found."},
		llmtest.Reply{Text: "Hello <b>there</b> & welcome."},
	)
	e := env(t, srv)
	for _, prompt := range []string{"search the haystack", "say hello"} {
		if _, errOut, code := runCo(t, t.TempDir(), e, "", "run", prompt); code != 0 {
			t.Fatalf("co run: %s", errOut)
		}
	}
	return e
}

func TestTelemetryTracesPageInChromium(t *testing.T) {
	b := startBrowser(t)
	e := twoSessions(t)
	rows := spanRows(t, storeFile(e))
	id := rows[0]["trace_id"].(string) // the tool-call turn
	file := filepath.Join(t.TempDir(), "trace.html")
	out, errOut, code := runCo(t, t.TempDir(), e, "", "traces", id[:10], "-o", file)
	if code != 0 || strings.TrimSpace(out) != file {
		t.Fatalf("co traces: exit %d, %q %q", code, out, errOut)
	}
	if !strings.Contains(errOut, "no browser available") {
		t.Errorf("without a display co traces says where the file is: %q", errOut)
	}
	b.navigate("file://" + file)
	b.waitFor("the page to render", `document.body.dataset.ready === "1"`, 10*time.Second)

	if n := b.num(`document.querySelectorAll(".wf-row").length`); n != 4 {
		t.Errorf("%d span rows, want 4", n)
	}
	names := b.text(`[...document.querySelectorAll(".wf-row")].map(r => r.dataset.name).join("|")`)
	if names != "invoke_agent|chat test-model|execute_tool find_needle|chat test-model" {
		t.Errorf("rows in order: %s", names)
	}
	if n := b.num(`document.querySelectorAll(".wf-row.is-error").length`); n != 1 {
		t.Errorf("%d error rows, want 1", n)
	}
	if pad := b.text(`document.querySelector('.wf-row[data-name="execute_tool find_needle"] .wf-label').style.paddingLeft`); pad != "16px" {
		t.Errorf("the tool call is not nested under the turn: padding %q", pad)
	}
	// Expand a span: its attributes.
	b.eval(`document.querySelector('.wf-row[data-name="execute_tool find_needle"]').click()`, nil)
	detail := b.text(`document.querySelector('.wf-row[data-name="execute_tool find_needle"]').nextElementSibling.innerText`)
	for _, want := range []string{"gen_ai.tool.call.id", "call_7", "needle", "no tool named", "exception"} {
		if !strings.Contains(detail, want) {
			t.Errorf("span details lack %q:\n%s", want, detail)
		}
	}
	b.eval(`document.getElementById("expand").click()`, nil)
	if n := b.num(`[...document.querySelectorAll(".wf-detail")].filter(d => !d.hidden).length`); n != 4 {
		t.Errorf("expand all opened %d of 4", n)
	}
	b.eval(`document.getElementById("collapse").click(); document.querySelector('.wf-row[data-name="execute_tool find_needle"]').click()`, nil)
	b.screenshot("co-traces")
	b.checkClean("file://"+file, "data:")
}

func TestTelemetryLogsDashboardInChromium(t *testing.T) {
	b := startBrowser(t)
	e := twoSessions(t)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logs := exec.CommandContext(ctx, coBin, "logs")
	logs.Env = e
	stdout, _ := logs.StdoutPipe()
	logsErr := &syncBuffer{}
	logs.Stderr = logsErr
	if err := logs.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cancel(); _ = logs.Wait() }()
	urlc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := regexp.MustCompile(`http://127\.0\.0\.1:\d+/`).FindString(sc.Text()); m != "" {
				urlc <- m
			}
		}
	}()
	var url string
	select {
	case url = <-urlc:
	case <-time.After(20 * time.Second):
		t.Fatalf("co logs printed no URL; stderr %s", logsErr)
	}
	origin := strings.TrimSuffix(url, "/")

	renders := func() int { return b.num(`+(document.body.dataset.renders || 0)`) }
	rowCount := `document.querySelectorAll("tr.trace-row").length`
	b.navigate(url)
	b.waitFor("the first render", `+(document.body.dataset.renders || 0) >= 1`, 10*time.Second)
	if n := b.num(rowCount); n != 2 {
		t.Fatalf("%d traces listed, want 2", n)
	}
	if n := b.num(`document.querySelectorAll(".session[data-session]:not([data-session=''])").length`); n != 2 {
		t.Errorf("%d sessions listed, want 2", n)
	}
	if p := b.text(`document.querySelector("tr.trace-row").innerText`); !strings.Contains(p, "say hello") {
		t.Errorf("the newest trace first, with its prompt: %q", p)
	}

	// Filters: errors only, a tool, text search.
	apply := func(what, js string, want int) {
		t.Helper()
		before := renders()
		b.eval(js, nil)
		b.waitFor(what, fmt.Sprintf(`+(document.body.dataset.renders || 0) > %d && %s === %d`, before, rowCount, want), 10*time.Second)
	}
	apply("errors only", `document.getElementById("errors").click()`, 1)
	apply("errors off", `document.getElementById("errors").click()`, 2)
	apply("the tool filter", `(() => { const s = document.getElementById("tool"); s.value = "find_needle"; s.dispatchEvent(new Event("change")); })()`, 1)
	apply("no tool filter", `(() => { const s = document.getElementById("tool"); s.value = ""; s.dispatchEvent(new Event("change")); })()`, 2)
	apply("text search", `(() => { const q = document.getElementById("q"); q.value = "<b>there</b>"; q.dispatchEvent(new Event("input")); })()`, 1)
	apply("no text search", `(() => { const q = document.getElementById("q"); q.value = ""; q.dispatchEvent(new Event("input")); })()`, 2)
	// A session.
	apply("a session", `[...document.querySelectorAll(".session")].find(s => s.dataset.session && s.innerText.length)?.click()`, 1)
	apply("all sessions", `document.querySelector('.session[data-session=""]').click()`, 2)

	// A trace's waterfall and a span's details.
	b.eval(`[...document.querySelectorAll("tr.trace-row")].find(r => r.innerText.includes("find_needle")).click()`, nil)
	b.waitFor("the waterfall", `document.querySelectorAll("#trace .wf-row").length === 4`, 10*time.Second)
	b.eval(`document.querySelector('#trace .wf-row[data-name="execute_tool find_needle"]').click()`, nil)
	detail := b.text(`document.querySelector('#trace .wf-row[data-name="execute_tool find_needle"]').nextElementSibling.innerText`)
	if !strings.Contains(detail, "call_7") || !strings.Contains(detail, "no tool named") {
		t.Errorf("span details: %s", detail)
	}
	// HTML in span text is shown as text.
	if n := b.num(`document.querySelectorAll("td b, .wf-detail b").length`); n != 0 {
		t.Errorf("span text was rendered as HTML (%d <b> elements)", n)
	}

	// Live refresh: a new turn appears without reloading.
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(llmtest.Reply{Text: "third"})
	e2 := append(append([]string(nil), e...), "OPENAI_BASE_URL="+srv.URL)
	if _, errOut, code := runCo(t, t.TempDir(), e2, "", "run", "a third turn"); code != 0 {
		t.Fatal(errOut)
	}
	b.waitFor("live refresh", rowCount+" === 3", 10*time.Second)
	// The open span stays open across the refresh.
	if open := b.num(`document.querySelectorAll("#trace .wf-row.open").length`); open != 1 {
		t.Errorf("%d open spans after a refresh, want 1", open)
	}
	b.screenshot("co-logs")
	b.checkClean(origin+"/", "data:")
	if s := logsErr.String(); s != "" {
		t.Errorf("co logs stderr: %s", s)
	}
}
