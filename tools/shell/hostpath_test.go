package shell

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/sandbox"
)

// subprocessSandbox is a fakeSandbox without isolation.
type subprocessSandbox struct{ fakeSandbox }

func (subprocessSandbox) Isolation() sandbox.Isolation { return sandbox.None }

// In the Docker sandbox the workspace is /workspace: a command naming the
// host's path finds nothing. The question says where it runs and what the
// path is there; the workspace's neighbours (/w/proj2) are not under it.
func TestHostPathsInTheSandbox(t *testing.T) {
	p, err := NewPolicy(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	tool := NewTool(fakeSandbox{}, p, time.Minute)
	tool.SetWorkspace("/w/proj")
	for _, tt := range []struct {
		name, cmd string
		want      []hostPath
	}{
		{"a file", "cat /w/proj/notes.txt", []hostPath{{"/w/proj/notes.txt", "/workspace/notes.txt"}}},
		{"the workspace itself", "ls -la /w/proj", []hostPath{{"/w/proj", "/workspace"}}},
		{"with a trailing slash", "ls /w/proj/", []hostPath{{"/w/proj/", "/workspace"}}},
		{"quoted, after = and in a pipe", `grep -r x "/w/proj/src" | tee --output=/w/proj/out.txt;cat '/w/proj/a b'`,
			[]hostPath{{"/w/proj/src", "/workspace/src"}, {"/w/proj/out.txt", "/workspace/out.txt"}, {"/w/proj/a", "/workspace/a"}}},
		{"each once", "cp /w/proj/a /w/proj/a.bak && diff /w/proj/a /w/proj/a.bak", []hostPath{{"/w/proj/a", "/workspace/a"}, {"/w/proj/a.bak", "/workspace/a.bak"}}},
		{"a neighbour is not under it", "cat /w/proj2/x /w/projects", nil},
		{"inside another path", "cat /mnt/w/proj/x", nil},
		{"relative paths", "cat notes.txt ./src/a.go", nil},
		{"the sandbox's own path", "cat /workspace/notes.txt", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := tool.hostPaths(tt.cmd); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("hostPaths(%q) = %v, want %v", tt.cmd, got, tt.want)
			}
		})
	}
	c := tool.Check(context.Background(), call("touch /w/proj/new.txt"))
	want := []string{
		"Runs in the Docker sandbox, where the workspace is /workspace (the working directory).",
		"/w/proj/new.txt is /workspace/new.txt in the sandbox (this machine's path does not exist there).",
	}
	if !reflect.DeepEqual(c.Where, want) {
		t.Errorf("Where = %q, want %q", c.Where, want)
	}
	if d := tool.Description(); !strings.Contains(d, "the workspace, /w/proj on the user's machine, is mounted at /workspace") {
		t.Errorf("description: %s", d)
	}

	// Without a sandbox the host path is the path: nothing to say.
	plain := NewTool(subprocessSandbox{}, p, time.Minute)
	plain.SetWorkspace("/w/proj")
	if c := plain.Check(context.Background(), call("cat /w/proj/a")); c.Where != nil {
		t.Errorf("without a sandbox: Where = %q", c.Where)
	}
}

// A failed command that named the host path tells the model (and the
// user, in its output) the path to use; one that succeeded, or named no
// host path, is left as it printed.
func TestFailedCommandNamingHostPathSaysWhereToLook(t *testing.T) {
	p, err := NewPolicy(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	failed := sandbox.Output{Text: "cat: /w/proj/a.txt: No such file or directory\n", ExitCode: 1}
	tool := NewTool(fakeSandbox{out: failed}, p, time.Minute)
	tool.SetWorkspace("/w/proj")
	res, err := tool.Run(context.Background(), call("cat /w/proj/a.txt"))
	if err == nil || !strings.HasSuffix(res.Display, "No such file or directory\n[co: this command ran in the sandbox, where the workspace is /workspace; /w/proj/a.txt is /workspace/a.txt there. Use paths under /workspace or relative paths.]") {
		t.Errorf("display %q, err %v", res.Display, err)
	}
	if res, _ := tool.Run(context.Background(), call("cat a.txt")); strings.Contains(res.Display, "[co:") {
		t.Errorf("a command naming no host path: %q", res.Display)
	}
	ok := NewTool(fakeSandbox{out: sandbox.Output{Text: "fine\n"}}, p, time.Minute)
	ok.SetWorkspace("/w/proj")
	if res, _ := ok.Run(context.Background(), call("cat /w/proj/a.txt")); res.Display != "fine\n" {
		t.Errorf("a command that succeeded: %q", res.Display)
	}
}

// A workspace reached through a link is named by either path.
func TestHostPathThroughALink(t *testing.T) {
	real := t.TempDir()
	link := filepath.Join(t.TempDir(), "proj")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	p, _ := NewPolicy(nil, nil)
	tool := NewTool(fakeSandbox{}, p, time.Minute)
	tool.SetWorkspace(link)
	real, _ = filepath.EvalSymlinks(real)
	got := tool.hostPaths("cat " + link + "/a " + real + "/b")
	want := []hostPath{{link + "/a", "/workspace/a"}, {real + "/b", "/workspace/b"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("hostPaths = %v, want %v", got, want)
	}
}
