package e2e

import (
	"os"
	"os/exec"
	"testing"
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
