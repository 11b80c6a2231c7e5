package e2e

import (
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/co-cli/co/agent/llmtest"
)

// closedPort is a loopback address nothing listens on: a port the kernel
// gave and that was closed again, so a connection is refused.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// statusRows are the names of co status's rows, in order.
func statusRows(out string) []string {
	var rows []string
	for _, line := range strings.Split(out, "\n") {
		if name, _, ok := strings.Cut(line, "  "); ok && name != "" && !strings.HasPrefix(line, " ") {
			rows = append(rows, name)
		}
	}
	return rows
}

// co status exits 0 when the provider answers and 3 when it cannot (here:
// nothing listens at its address), saying why on stdout and stderr, with
// the same report either way; a malformed settings file still exits 1.
func TestStatusExitsNonZeroWhenTheProviderCannotAnswer(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	out, errOut, code := runCo(t, t.TempDir(), env(t, srv), "", "status")
	if code != 0 || strings.Contains(errOut, "not ready") {
		t.Fatalf("llmtest answers: exit %d, want 0\n%s\n%s", code, out, errOut)
	}
	ready := statusRows(out)

	closed := "http://" + closedPort(t) + "/v1"
	out, errOut, code = runCo(t, t.TempDir(), env(t, srv, "OPENAI_BASE_URL="+closed), "", "status")
	t.Logf("not ready:\n%s%s", out, errOut)
	if code != 3 {
		t.Errorf("nothing at %s: exit %d, want 3\n%s\n%s", closed, code, out, errOut)
	}
	if !strings.Contains(out, "reachable       NO — ") || !strings.Contains(out, "connection refused") {
		t.Errorf("the report does not say why:\n%s", out)
	}
	if !strings.Contains(errOut, "co: not ready: the provider does not answer — ") || !strings.Contains(errOut, "connection refused") {
		t.Errorf("stderr does not say why: %q", errOut)
	}
	// Everything a ready report has is reported.
	if got := statusRows(out); !slices.Equal(got, ready) {
		t.Errorf("rows when not ready %q, when ready %q", got, ready)
	}

	// No provider at all (none configured, no Ollama at its address).
	_, errOut, code = runCo(t, t.TempDir(), env(t, nil, "OLLAMA_HOST=http://"+closedPort(t)), "", "status")
	if code != 3 || !strings.Contains(errOut, "co: not ready: no provider usable: ") {
		t.Errorf("no provider: exit %d, want 3; stderr %q", code, errOut)
	}

	// A malformed settings file comes first.
	e := env(t, srv, "OPENAI_BASE_URL="+closed)
	file := filepath.Join(envValue(e, "XDG_CONFIG_HOME"), "co-cli", "settings.json")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("{,}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code = runCo(t, t.TempDir(), e, "", "status"); code != 1 {
		t.Errorf("malformed settings and no provider: exit %d, want 1; stderr %q", code, errOut)
	}
}

// co status and /status count and name the tools co sends on a window
// too small for all of them (llama-server -c 2048: co learns the window
// from /props and sends only the shell and file tools), the very ones co
// run's request carries.
func TestStatusCountsTheToolsSentOnASmallWindow(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.SetProfile(llmtest.ProfileLlamaCpp)
	srv.SetLlamaContext(2048)

	srv.Script(llmtest.Reply{Text: "small"})
	if out, errOut, code := runCo(t, t.TempDir(), env(t, srv), "", "run", "hi"); code != 0 || out != "small\n" {
		t.Fatalf("co run: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	var sent []string
	for _, tool := range srv.Requests()[0].Body.Tools {
		sent = append(sent, tool.Function.Name)
	}
	want := regexp.MustCompile(`(?m)^tools +(\d+) of (\d+) sent — (.*) \(the context window is small: co sends only the shell and files tools`)

	out, errOut, code := runCo(t, t.TempDir(), env(t, srv), "", "status")
	if code != 0 {
		t.Fatalf("co status: exit %d\n%s\n%s", code, out, errOut)
	}
	m := want.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("co status's tools line does not say what is sent (%d tools: %v):\n%s", len(sent), sent, out)
	}
	t.Logf("co status: %s", m[0])
	if m[1] != itoa(len(sent)) || m[3] != strings.Join(sent, ", ") || m[2] == m[1] {
		t.Errorf("co status: %s of %s sent: %s; co run sent %d: %v", m[1], m[2], m[3], len(sent), sent)
	}

	// /status in the chat, after a turn on that window.
	srv.Script(llmtest.Reply{Text: "plain"})
	out, errOut, code = runCo(t, t.TempDir(), env(t, srv), "hi\n/status\n", "--plain")
	if code != 0 {
		t.Fatalf("co --plain: exit %d\n%s\n%s", code, out, errOut)
	}
	m = want.FindStringSubmatch(out)
	if m == nil || m[1] != itoa(len(sent)) || m[3] != strings.Join(sent, ", ") {
		t.Errorf("/status's tools line does not name the %d tools sent (%v):\n%s", len(sent), sent, out)
	}
}
