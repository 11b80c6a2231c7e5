package google_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/co-cli/co/tools"
	"github.com/co-cli/co/tools/google"
	"github.com/co-cli/co/tools/google/googlefake"
)

// fixture is a fake Google and an Account signed in to it with a saved
// token, as after co google auth.
type fixture struct {
	srv       *googlefake.Server
	acct      *google.Account
	cfg       google.Config
	tokenPath string
	tools     map[string]tools.Tool
}

func mustZone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func newFixture(t *testing.T, mod func(*google.Config)) *fixture {
	t.Helper()
	srv := googlefake.New()
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	path := filepath.Join(dir, google.TokenFile)
	if err := os.WriteFile(path, srv.AuthorizedUserJSON("client-1", "secret-1"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := google.Config{
		TokenPath:   path,
		Endpoint:    srv.URL,
		Location:    mustZone(t, "Europe/Berlin"),
		MaxRateWait: 3 * time.Second,
		Getenv:      func(string) string { return "" },
	}
	if mod != nil {
		mod(&cfg)
	}
	f := &fixture{srv: srv, cfg: cfg, tokenPath: path, tools: map[string]tools.Tool{}}
	f.acct = google.NewAccount(cfg)
	for _, tl := range google.Tools(f.acct) {
		f.tools[tl.Name()] = tl
	}
	return f
}

// run validates args against the tool's schema, as the agent does, and
// runs the tool.
func (f *fixture) run(t *testing.T, name, args string) (tools.Result, error) {
	t.Helper()
	tl := f.tools[name]
	if tl == nil {
		t.Fatalf("no tool %s", name)
	}
	if err := tools.NewValidator().Validate(tl, json.RawMessage(args)); err != nil {
		t.Fatalf("%s(%s) does not fit the schema: %v", name, args, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return tl.Run(ctx, json.RawMessage(args))
}

func (f *fixture) mustRun(t *testing.T, name, args string) tools.Result {
	t.Helper()
	res, err := f.run(t, name, args)
	if err != nil {
		t.Fatalf("%s(%s): %v", name, args, err)
	}
	return res
}
