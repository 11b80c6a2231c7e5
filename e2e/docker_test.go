package e2e

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// requireDocker fails (never silently skips) when no Docker engine answers,
// unless the person running the tests opted out with CO_TEST_NO_DOCKER=1.
func requireDocker(t *testing.T) {
	t.Helper()
	if err := exec.Command("docker", "info").Run(); err == nil {
		return
	}
	if os.Getenv("CO_TEST_NO_DOCKER") == "1" {
		t.Skip("CO_TEST_NO_DOCKER=1: skipping a test that needs Docker")
	}
	t.Fatal("no Docker engine answers: run scripts/docker-up.sh (as root), or set CO_TEST_NO_DOCKER=1 to skip Docker tests")
}

// containers lists the names of co's sandbox containers.
func containers(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("docker", "ps", "-a", "--filter", "label=co-cli.sandbox", "--format", "{{.Names}}").CombinedOutput()
	if err != nil {
		t.Fatalf("docker ps: %v\n%s", err, out)
	}
	return string(out)
}

// scripts/test.sh must not stop a Docker engine it found running, even when a marker left by an
// earlier scripts/docker-up.sh names a dockerd. The "dockerd" here is a copy of sleep (named so
// that docker-down.sh would take it for one) behind a marker of our own; go, gofmt and the
// packages test.sh installs are stubs, so only the Docker steps really run.
func TestTestShLeavesRunningEngineAlone(t *testing.T) {
	requireDocker(t)
	dir := t.TempDir()
	stubs := filepath.Join(dir, "bin")
	if err := os.Mkdir(stubs, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"go", "gofmt", "tmux", "chromium", "gcc"} {
		if err := os.WriteFile(filepath.Join(stubs, name), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(sleep)
	if err != nil {
		t.Fatal(err)
	}
	fake := filepath.Join(dir, "dockerd")
	if err := os.WriteFile(fake, b, 0o755); err != nil {
		t.Fatal(err)
	}
	dockerd := exec.Command(fake, "300")
	if err := dockerd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- dockerd.Wait() }()
	t.Cleanup(func() { _ = dockerd.Process.Kill() })
	marker := filepath.Join(dir, "marker")
	if err := os.WriteFile(marker, []byte(itoa(dockerd.Process.Pid)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command("../scripts/test.sh")
	cmd.Env = append(os.Environ(), "PATH="+stubs+":"+os.Getenv("PATH"), "CO_DOCKERD_MARKER="+marker)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("scripts/test.sh: %v\n%s", err, out)
	}
	select {
	case err := <-exited:
		t.Fatalf("test.sh stopped the dockerd it found running (%v):\n%s", err, out)
	case <-time.After(500 * time.Millisecond):
	}
	if strings.Contains(string(out), "stopping dockerd") {
		t.Fatalf("test.sh stopped a dockerd:\n%s", out)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("the marker of the engine's starter is gone: %v", err)
	}
}

// co exits at once when told to while its container is still being created (seconds with the vfs
// storage driver), and the container does not outlive it: it is removed in the background once the
// engine has made it.
func TestExitWhileContainerIsCreatedIsImmediate(t *testing.T) {
	requireDocker(t)
	// co talks to the engine through a proxy that passes the create request on but holds its
	// answer until co has exited: the container is being created for as long as co lives, so co
	// can only exit by not waiting for it (else p.wait's deadline, a hang detector, fails).
	hold := newCreateHoldProxy(t)
	// GORACE: a -race build otherwise sleeps 1s on exit.
	p := start(t, t.TempDir(), env(t, nil, "CO_CLI_SANDBOX_BACKEND=docker", "GORACE=atexit_sleep_ms=0", "DOCKER_HOST="+hold.host()), "--plain")
	p.waitFor("co> ", 30*time.Second)
	pid := p.cmd.Process.Pid
	p.stdin.Close() // EOF: exit
	code := p.wait(60 * time.Second)
	hold.release()
	if code != 0 {
		t.Fatalf("co exited %d", code)
	}
	// Gone, and staying gone for longer than a creation takes.
	deadline := time.Now().Add(2 * time.Minute)
	var goneSince time.Time
	for {
		out, err := execOut("docker", "ps", "-a", "--filter", "label=co-cli.pid="+itoa(pid), "--format", "{{.Names}}")
		switch {
		case err != nil:
			t.Fatalf("docker ps: %v", err)
		case strings.TrimSpace(out) != "":
			goneSince = time.Time{}
		case goneSince.IsZero():
			goneSince = time.Now()
		case time.Since(goneSince) > 15*time.Second:
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("co's container still there (or came back) 2 minutes after co exited: %s", out)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// createHoldProxy forwards the Docker API from a unix socket of its own to the engine's, and
// holds the answers to container create requests until release.
type createHoldProxy struct {
	sock     string
	released chan struct{}
	once     sync.Once
}

func newCreateHoldProxy(t *testing.T) *createHoldProxy {
	t.Helper()
	target := "/var/run/docker.sock"
	if h := os.Getenv("DOCKER_HOST"); h != "" {
		var ok bool
		if target, ok = strings.CutPrefix(h, "unix://"); !ok {
			t.Skipf("DOCKER_HOST %s is not a unix socket", h)
		}
	}
	dir, err := os.MkdirTemp("", "hold")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	p := &createHoldProxy{sock: filepath.Join(dir, "docker.sock"), released: make(chan struct{})}
	ln, err := net.Listen("unix", p.sock)
	if err != nil {
		t.Fatal(err)
	}
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.Out.URL.Scheme, r.Out.URL.Host = "http", "docker"
		},
		Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", target)
		}},
		FlushInterval: -1,
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/containers/create") {
			rp.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		rp.ServeHTTP(rec, r) // the engine gets the request now
		<-p.released
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { p.release(); _ = srv.Close() })
	return p
}

func (p *createHoldProxy) host() string { return "unix://" + p.sock }
func (p *createHoldProxy) release()     { p.once.Do(func() { close(p.released) }) }
