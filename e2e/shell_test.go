package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/co-cli/co/agent/llmtest"
)

func shellCall(id, cmd string) llmtest.ToolCall {
	args, _ := json.Marshal(map[string]string{"cmd": cmd})
	return llmtest.ToolCall{ID: id, Name: "run_shell_command", Args: string(args)}
}

// unsandboxed runs commands as subprocesses: every command asks.
func unsandboxed(t *testing.T, srv *llmtest.Server) []string {
	return env(t, srv, "CO_CLI_SANDBOX_BACKEND=subprocess")
}

func exists(dir, name string) bool {
	_, err := os.Stat(filepath.Join(dir, name))
	return err == nil
}

func TestPlainApproveOnce(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("hi"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv.Script(llmtest.Reply{ToolCalls: []llmtest.ToolCall{shellCall("c1", "ls -la")}}, llmtest.Reply{Text: "Listed."})
	out, _, code := runCo(t, dir, unsandboxed(t, srv), "list the files\ny\n", "--plain")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	for _, want := range []string{
		"WARNING: UNSANDBOXED",
		"tool: run_shell_command(cmd='ls -la')",
		"why it asks: ls is on the safe list, but commands run without a sandbox, so every command asks",
		"Approve run_shell_command(cmd='ls -la')? [y/n/a] y",
		"result: run_shell_command done in",
		"hello.txt",
		"Listed.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	res := srv.Requests()[1].Body.Messages
	if last := res[len(res)-1]; last.Role != "tool" || !strings.Contains(last.Content, "hello.txt") || !strings.Contains(last.Content, `"exit_code":0`) {
		t.Errorf("tool result sent to the model = %+v", last)
	}
}

func TestPlainDenyReachesTheModel(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	dir := t.TempDir()
	srv.Script(llmtest.Reply{ToolCalls: []llmtest.ToolCall{shellCall("c1", "touch made.txt")}}, llmtest.Reply{Text: "OK, I won't."})
	out, _, _ := runCo(t, dir, unsandboxed(t, srv), "make a file\nn\n", "--plain")
	if exists(dir, "made.txt") {
		t.Fatal("a denied command ran")
	}
	if !strings.Contains(out, "denied by the user") || !strings.Contains(out, "OK, I won't.") {
		t.Errorf("output:\n%s", out)
	}
	msgs := srv.Requests()[1].Body.Messages
	if c := msgs[len(msgs)-1].Content; !strings.Contains(c, `"denied_by":"user"`) {
		t.Errorf("denial sent = %q", c)
	}
}

func TestPlainApproveForSessionIsScopedToTheProgram(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	dir := t.TempDir()
	srv.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{shellCall("c1", "touch a.txt")}}, llmtest.Reply{Text: "one"},
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{shellCall("c2", "touch b.txt")}}, llmtest.Reply{Text: "two"},
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{shellCall("c3", "mkdir sub")}}, llmtest.Reply{Text: "three"},
	)
	env := env(t, srv, "CO_CLI_SANDBOX_BACKEND=subprocess")
	out, _, _ := runCo(t, dir, env, "first\na\nsecond\nthird\nn\n", "--plain")
	if !exists(dir, "a.txt") || !exists(dir, "b.txt") {
		t.Fatalf("granted touch did not run:\n%s", out)
	}
	if exists(dir, "sub") {
		t.Fatal("a grant for touch approved mkdir")
	}
	if n := strings.Count(out, "Approve run_shell_command"); n != 2 {
		t.Errorf("%d approval prompts, want 2 (touch once, mkdir once):\n%s", n, out)
	}
	if !strings.Contains(out, "approved for this session: touch") || !strings.Contains(out, "(session grant)") {
		t.Errorf("output:\n%s", out)
	}
}

func TestPlainBangUsesTheSamePolicy(t *testing.T) {
	dir := t.TempDir()
	out, _, _ := runCo(t, dir, unsandboxed(t, nil), "!touch bang.txt\ny\n!rm -rf /\n", "--plain")
	if !exists(dir, "bang.txt") {
		t.Fatalf("approved !cmd did not run:\n%s", out)
	}
	if !strings.Contains(out, "Approve run_shell_command(cmd='touch bang.txt')? [y/n/a] y") {
		t.Errorf("!cmd must ask like the agent's shell tool:\n%s", out)
	}
	if !strings.Contains(out, "result: run_shell_command done in") || strings.Contains(out, "internal error") {
		t.Errorf("!cmd must finish cleanly:\n%s", out)
	}
	if !strings.Contains(out, "denied by policy") || strings.Contains(out, "Approve run_shell_command(cmd='rm -rf /')") {
		t.Errorf("!rm -rf / must be denied without asking:\n%s", out)
	}
}

func TestRunDeniesWithoutYes(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	dir := t.TempDir()
	srv.Script(llmtest.Reply{ToolCalls: []llmtest.ToolCall{shellCall("c1", "touch x.txt")}}, llmtest.Reply{Text: "could not"})
	_, errOut, code := runCo(t, dir, unsandboxed(t, srv), "", "run", "make x")
	if code != 3 || exists(dir, "x.txt") {
		t.Fatalf("exit %d (want 3), file made: %v, stderr %s", code, exists(dir, "x.txt"), errOut)
	}
	if !strings.Contains(errOut, "pass --yes") {
		t.Errorf("stderr should say how to approve: %s", errOut)
	}
	srv.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{shellCall("c2", "touch x.txt"), shellCall("c3", "rm -rf /")}},
		llmtest.Reply{Text: "done"},
	)
	// --yes approves only what /yolo would: nothing unsandboxed.
	out, _, code := runCo(t, dir, unsandboxed(t, srv), "", "run", "--yes", "--json", "make x")
	if exists(dir, "x.txt") || code != 3 || !strings.Contains(out, `"answer":"needs approval"`) || !strings.Contains(out, "Docker sandbox") {
		t.Fatalf("--yes approved a command unsandboxed (exit %d): %s", code, out)
	}
	srv.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{shellCall("c2", "touch x.txt"), shellCall("c3", "rm -rf /")}},
		llmtest.Reply{Text: "done"},
	)
	out, _, code = runCo(t, dir, append(unsandboxed(t, srv), "CO_CLI_YOLO_UNSANDBOXED=true"), "", "run", "--yes", "--json", "make x")
	if !exists(dir, "x.txt") {
		t.Fatalf("--yes did not approve: %s", out)
	}
	if code != 3 || !strings.Contains(out, `"decision":"policy deny"`) {
		t.Errorf("rm -rf / must be denied even with --yes (exit %d): %s", code, out)
	}
}

// Issue 27: unsandboxed, `co run "what files are here?"` said "pass --yes",
// then with --yes "a shell_policy rule", and neither let ls run. The hint
// names what does (yolo_unsandboxed with --yes, or the Docker sandbox), and
// taking it runs the command.
func TestRunUnsandboxedHintIsWhatWorks(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "here.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	ls := func() {
		srv.Script(llmtest.Reply{ToolCalls: []llmtest.ToolCall{shellCall("c1", "ls")}}, llmtest.Reply{Text: "done"})
	}
	for _, args := range [][]string{{"run", "what files are here?"}, {"run", "--yes", "what files are here?"}} {
		ls()
		_, errOut, code := runCo(t, dir, unsandboxed(t, srv), "", args...)
		if code != 3 {
			t.Fatalf("%v: exit %d, want 3: %s", args, code, errOut)
		}
		if strings.Contains(errOut, "shell_policy") || !strings.Contains(errOut, "CO_CLI_YOLO_UNSANDBOXED=true") ||
			!strings.Contains(errOut, `sandbox_backend "docker"`) {
			t.Errorf("%v: the hint must name yolo_unsandboxed and the Docker sandbox, not shell_policy:\n%s", args, errOut)
		}
		// One parenthesis deep: the reason is not nested in the hint's.
		if strings.Contains(errOut, "every command asks (") || strings.Contains(errOut, "))") {
			t.Errorf("%v: nested parentheses in the hint:\n%s", args, errOut)
		}
	}
	ls()
	out, errOut, code := runCo(t, dir, append(unsandboxed(t, srv), "CO_CLI_YOLO_UNSANDBOXED=true"), "", "run", "--yes", "--json", "what files are here?")
	if code != 0 || !strings.Contains(out, "here.txt") {
		t.Fatalf("with the hint's fix, ls did not run (exit %d): %s\n%s", code, out, errOut)
	}
	// Nor does the warning then say that every command asks.
	if strings.Contains(errOut, "every command asks") || !strings.Contains(errOut, "commands run without asking") {
		t.Errorf("the warning with yolo_unsandboxed and --yes:\n%s", errOut)
	}
}

// With the real Docker sandbox, a read-only command runs without asking
// (full isolation), inside the container, on the mounted workspace.
func TestPlainDockerSandboxAllowsSafeCommands(t *testing.T) {
	requireDocker(t)
	srv := llmtest.NewServer()
	defer srv.Close()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "in-workspace.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{shellCall("c1", "ls /workspace && id -u")}},
		llmtest.Reply{Text: "done"},
	)
	out, _, code := runCo(t, dir, env(t, srv, "CO_CLI_SANDBOX_BACKEND=docker"), "look\n", "--plain")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if strings.Contains(out, "Approve ") || strings.Contains(out, "UNSANDBOXED") {
		t.Errorf("a safe command in the sandbox must not ask:\n%s", out)
	}
	if uid := fmt.Sprintf("\n  %d\n", os.Getuid()); !strings.Contains(out, "in-workspace.txt") || !strings.Contains(out, uid) {
		t.Errorf("command did not run in the container as the workspace's owner (uid %d):\n%s", os.Getuid(), out)
	}
}

func TestYoloAndGrantsNeverRunDeniedCommands(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	dir := t.TempDir()
	srv.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{shellCall("c1", "git status")}}, llmtest.Reply{Text: "one"},
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{shellCall("c2", "git push origin main")}}, llmtest.Reply{Text: "two"},
	)
	// Unsandboxed, yolo needs yolo_unsandboxed; with it on, deny still wins.
	out, _, _ := runCo(t, dir, unsandboxed(t, srv), "/yolo\nstatus\na\npush\nn\n!rm -rf ~\n", "--plain")
	if !strings.Contains(out, "error: yolo is off while commands run unsandboxed") {
		t.Errorf("/yolo must be refused unsandboxed:\n%s", out)
	}
	if !strings.Contains(out, "approved for this session: git status") {
		t.Fatalf("grant missing:\n%s", out)
	}
	if !strings.Contains(out, "Approve run_shell_command(cmd='git push origin main')") {
		t.Errorf("a grant for git status must not approve git push:\n%s", out)
	}
	if !strings.Contains(out, "denied by policy") {
		t.Errorf("rm -rf ~ must be denied:\n%s", out)
	}

	env := env(t, nil, "CO_CLI_SANDBOX_BACKEND=subprocess", "CO_CLI_YOLO_UNSANDBOXED=true")
	out, _, _ = runCo(t, dir, env, "/yolo\n!touch yolo.txt\n!rm -rf /\n", "--plain")
	if !exists(dir, "yolo.txt") || strings.Contains(out, "Approve run_shell_command(cmd='touch") {
		t.Errorf("yolo should approve touch without asking:\n%s", out)
	}
	if !strings.Contains(out, "denied by policy") {
		t.Errorf("yolo must never run rm -rf /:\n%s", out)
	}
}
