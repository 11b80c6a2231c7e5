package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/lib/testneeds"
	"github.com/co-cli/co/sandbox/sandboxtest"
)

// requireDocker fails (never silently skips) when no Docker engine answers,
// unless the person running the tests opted out with CO_TEST_NO_DOCKER=1.
func requireDocker(t *testing.T) {
	t.Helper()
	if err := exec.Command("docker", "info").Run(); err != nil {
		testneeds.Docker.Missing(t, fmt.Errorf("docker info: %w", err))
	}
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
	for _, name := range []string{"go", "gofmt", "tmux", "chromium", "gcc", "golangci-lint"} {
		script := "#!/bin/sh\nexit 0\n"
		if name == "go" { // `go env GOBIN` is where test.sh finds golangci-lint: the stub
			script = "#!/bin/sh\n[ \"$*\" = \"env GOBIN\" ] && echo " + stubs + "\nexit 0\n"
		}
		if err := os.WriteFile(filepath.Join(stubs, name), []byte(script), 0o755); err != nil {
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
	hold := sandboxtest.NewCreateHold(t)
	// GORACE: a -race build otherwise sleeps 1s on exit.
	p := start(t, t.TempDir(), env(t, nil, "CO_CLI_SANDBOX_BACKEND=docker", "GORACE=atexit_sleep_ms=0", "DOCKER_HOST="+hold.Host()), "--plain")
	p.waitFor("co> ", 30*time.Second)
	pid := p.cmd.Process.Pid
	p.stdin.Close() // EOF: exit
	code := p.wait(60 * time.Second)
	hold.Release()
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
