package app

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/co-cli/co/config"
	"github.com/co-cli/co/lib/testneeds"
	"github.com/co-cli/co/sandbox"
)

// With Docker as the backend, app.New creates no container: the front end's first frame comes
// first, then agent.Warm (what the chat and --plain call once it is out) starts the creation.
func TestSandboxStartsAfterTheFirstFrame(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{
		"CO_CLI_SANDBOX_BACKEND": "docker", "CO_CLI_SANDBOX_FALLBACK": "error",
		"XDG_CONFIG_HOME": filepath.Join(home, "cfg"), "XDG_DATA_HOME": filepath.Join(home, "data"),
		"LLM_PROVIDER": "openai", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "OPENAI_MODEL": "m",
	}
	l, err := config.Load(config.LoadOptions{Getenv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }, WorkDir: t.TempDir(), HomeDir: home})
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(context.Background(), l, Options{})
	if err != nil {
		testneeds.Docker.Missing(t, err)
	}
	t.Cleanup(a.Close)
	st, ok := a.Sandbox.(sandbox.Starter)
	if !ok {
		t.Fatalf("sandbox %T is not a Starter", a.Sandbox)
	}
	if begin, _, _ := st.Started(); !begin.IsZero() || !st.Pending() {
		t.Fatalf("the container's creation began in app.New (at %v), before the first frame", begin)
	}
	a.Agent.Warm()
	if begin, _, _ := st.Started(); begin.IsZero() {
		t.Fatal("agent.Warm did not start the container's creation")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := st.Ready(ctx); err != nil {
		t.Fatal(err)
	}
}
