package shell

import (
	"path/filepath"
	"strings"

	"github.com/co-cli/co/sandbox"
)

// SandboxWorkspace is where the workspace is inside the Docker sandbox.
const SandboxWorkspace = "/workspace"

// SetWorkspace tells the tool the workspace's path on the host. In the
// Docker sandbox the workspace is /workspace, so a command that names the
// host path finds nothing there: the question and a failed command's
// result say so. It changes nothing the sandbox sees.
func (t *Tool) SetWorkspace(host string) {
	t.hosts = nil
	if host == "" || !filepath.IsAbs(host) {
		return
	}
	for _, h := range []string{filepath.Clean(host), evalSymlinks(host)} {
		if h != "" && h != "/" && h != SandboxWorkspace && (len(t.hosts) == 0 || t.hosts[0] != h) {
			t.hosts = append(t.hosts, h)
		}
	}
}

func evalSymlinks(p string) string {
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		return ""
	}
	return r
}

// hostPath is a path on the host the command names under the workspace,
// and what it is in the sandbox.
type hostPath struct{ host, inside string }

// hostPaths lists the host paths under the workspace that cmd names (at
// most three, each once), when commands run in the Docker sandbox. A name
// counts where it starts a word or follows a quote, = or :, and ends the
// path or goes on with a slash.
func (t *Tool) hostPaths(cmd string) []hostPath {
	if t.sb.Isolation() != sandbox.Full || len(t.hosts) == 0 {
		return nil
	}
	var out []hostPath
	seen := map[string]bool{}
	for _, h := range t.hosts {
		for from := 0; len(out) < 3; {
			i := strings.Index(cmd[from:], h)
			if i < 0 {
				break
			}
			start, end := from+i, from+i+len(h)
			from = end
			if start > 0 && !strings.ContainsRune(" \t\n'\"=:;|&(`", rune(cmd[start-1])) {
				continue
			}
			if end < len(cmd) && cmd[end] != '/' && !pathEnd(cmd[end]) {
				continue // /home/u/proj2 is not under /home/u/proj
			}
			for end < len(cmd) && !pathEnd(cmd[end]) {
				end++
			}
			p := cmd[start:end]
			if seen[p] {
				continue
			}
			seen[p] = true
			out = append(out, hostPath{host: p, inside: SandboxWorkspace + strings.TrimSuffix(p[len(h):], "/")})
		}
	}
	return out
}

// pathEnd says whether b ends a path written in a command.
func pathEnd(b byte) bool { return strings.IndexByte(" \t\n'\";|&)<>`", b) >= 0 }

// where is the line a question about a command shows under it: where it
// runs, and what each host path it names is there.
func (t *Tool) whereLines(cmd string) []string {
	if t.sb.Isolation() != sandbox.Full {
		return nil
	}
	lines := []string{"Runs in the Docker sandbox, where the workspace is " + SandboxWorkspace + " (the working directory)."}
	for _, p := range t.hostPaths(cmd) {
		lines = append(lines, p.host+" is "+p.inside+" in the sandbox (this machine's path does not exist there).")
	}
	return lines
}

// hostPathNote is what a failed command that named host paths adds to its
// output, for the model and the user: the path to use instead.
func (t *Tool) hostPathNote(cmd string) string {
	ps := t.hostPaths(cmd)
	if len(ps) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("[co: this command ran in the sandbox, where the workspace is " + SandboxWorkspace + "; ")
	for i, p := range ps {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(p.host + " is " + p.inside + " there")
	}
	b.WriteString(". Use paths under " + SandboxWorkspace + " or relative paths.]")
	return b.String()
}
