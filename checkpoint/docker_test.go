package checkpoint

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/co-cli/co/lib/testneeds"
	"github.com/co-cli/co/sandbox"
)

// A turn done by a command in the real Docker sandbox, on files owned by
// another user than co's (root here), is taken back with their owners.
func TestATurnInTheDockerSandboxIsTakenBack(t *testing.T) {
	if err := exec.Command("docker", "image", "inspect", sandbox.DefaultImage).Run(); err != nil {
		testneeds.Docker.Missing(t, fmt.Errorf("docker image inspect %s: %w", sandbox.DefaultImage, err))
	}
	s, ws := newStore(t, Options{})
	seed(t, ws)
	owner := 1000
	if os.Geteuid() == 0 {
		// Commands run as the workspace's owner: make it someone else.
		must(t, filepath.Walk(ws, func(p string, _ os.FileInfo, err error) error {
			if err != nil {
				return err
			}
			return os.Lchown(p, owner, owner)
		}))
	}
	before := state(t, ws)
	run := make([]byte, 4)
	rand.Read(run)
	sb, _, err := sandbox.New(context.Background(), sandbox.Config{Backend: sandbox.BackendDocker, Workspace: ws, RunID: hex.EncodeToString(run) + "-checkpoint"})
	must(t, err)
	t.Cleanup(func() { sb.Close() })

	must(t, s.Begin("t1"))
	out, err := sb.Run(context.Background(), `set -e
id -u > whoami
sed -i 's/alpha/omega/' a.txt
mkdir -p build/out && printf 'bin' > build/out/app && chmod 700 build/out/app
rm -r gone src/main.go
chmod 600 run.sh
ln -sf run.sh link`, sandbox.Options{})
	must(t, err)
	if out.ExitCode != 0 {
		t.Fatalf("exit %d: %s", out.ExitCode, out.Text)
	}
	if os.Geteuid() == 0 {
		if b, _ := os.ReadFile(filepath.Join(ws, "whoami")); string(b) != fmt.Sprintln(owner) {
			t.Fatalf("the command ran as %q, want %d", b, owner)
		}
	}
	sum, err := s.End("t1")
	must(t, err)
	if sum.Created < 3 || sum.Deleted < 4 {
		t.Fatalf("End = %+v", sum)
	}
	rep, err := s.Restore("t1", false)
	must(t, err)
	if len(rep.Conflicts)+len(rep.NotRestorable) != 0 {
		t.Fatalf("%+v", rep)
	}
	diffStates(t, before, state(t, ws))
}
