package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/co-cli/co/agent/llmtest"
)

// startWarnings is a start with a warning of each kind (issue 27): the
// settings' (a project file's sandbox_network, which only the user may
// set), telemetry's (an OTLP protocol co does not speak) and, unless
// report-only, the app's (a store of saved sessions that cannot be
// opened). dir is the project.
func startWarnings(t *testing.T, e []string) (dir string, env []string, want []string) {
	t.Helper()
	dir = t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".co-cli"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".co-cli", "settings.json"), []byte(`{"sandbox_network": "bridge"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(envValue(e, "XDG_DATA_HOME"), "co-cli")
	if err := os.MkdirAll(data, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "sessions.db"), []byte(strings.Repeat("this is not sqlite ", 300)), 0o600); err != nil {
		t.Fatal(err)
	}
	e = append(e, "OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:1", "OTEL_EXPORTER_OTLP_PROTOCOL=grpc")
	return dir, e, []string{
		`warning: ignored "sandbox_network" in `,
		"warning: OTLP over gRPC is not supported; spans are sent as HTTP/protobuf",
		"warning: this conversation will not be saved: ",
	}
}

// The full-screen chat shows every warning of the start in its transcript.
func TestTUIShowsEveryStartWarning(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	dir, e, want := startWarnings(t, tuiEnv(t, srv))
	s := startTUI(t, dir, e, 200, 50)
	s.ready()
	s.waitFor(tuiWait, want...)
}

// co "what is 2+2": the start's warnings come before the first message and
// its answer, not after them, each with a warning's mark (⚠), not a
// failure's (✗).
func TestTUIWarningsComeBeforeTheFirstMessage(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(llmtest.Reply{Text: "It is four."})
	dir, e, want := startWarnings(t, tuiEnv(t, srv))
	s := startTUI(t, dir, e, 200, 50, "what is 2+2")
	scr := s.waitFor(tuiWait, append(want, "It is four.")...)
	asked := strings.Index(scr, "what is 2+2")
	for _, w := range want {
		if i := strings.Index(scr, w); i < 0 || i > asked {
			t.Errorf("%q is not before the first message:\n%s", w, scr)
		}
	}
	if strings.Contains(scr, "✗ warning") || !strings.Contains(scr, "⚠ warning: ") {
		t.Errorf("the warnings do not have their own mark:\n%s", scr)
	}
}

// --plain's banner has every warning of the start; none goes to stderr.
func TestPlainShowsEveryStartWarning(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	dir, e, want := startWarnings(t, env(t, srv))
	out, errOut, code := runCo(t, dir, e, "", "--plain")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	banner, _, _ := strings.Cut(out, "Type a message")
	for _, w := range want {
		if !strings.Contains(banner, w) {
			t.Errorf("the banner lacks %q:\n%s", w, banner)
		}
	}
	if strings.Contains(errOut, "warning") {
		t.Errorf("warnings on stderr too:\n%s", errOut)
	}
}

// co run has every warning of the start on stderr, none on stdout.
func TestRunShowsEveryStartWarning(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(llmtest.Reply{Text: "the answer"})
	dir, e, want := startWarnings(t, env(t, srv))
	out, errOut, code := runCo(t, dir, e, "", "run", "hi")
	if code != 0 || strings.TrimSpace(out) != "the answer" {
		t.Fatalf("exit %d, stdout %q\n%s", code, out, errOut)
	}
	for _, w := range want {
		if !strings.Contains(errOut, "co: "+w) {
			t.Errorf("stderr lacks %q:\n%s", w, errOut)
		}
	}
}

// co status reports the settings' and telemetry's warnings (it opens no
// store of saved sessions).
func TestStatusShowsEveryStartWarning(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	dir, e, want := startWarnings(t, env(t, srv))
	out, errOut, code := runCo(t, dir, e, "", "status")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	for _, w := range want[:2] {
		if !strings.Contains(out, w) {
			t.Errorf("co status lacks %q:\n%s", w, out)
		}
	}
}
