package hooks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

func decode(t *testing.T, s string) Config {
	t.Helper()
	c, _, err := Decode(json.RawMessage(s))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func set(t *testing.T, c Config) (*Set, *tracetest.SpanRecorder, string) {
	t.Helper()
	dir := t.TempDir()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	return NewSet(Options{User: c, UserFile: "/home/u/.config/co-cli/settings.json", Dir: dir,
		Session: func() string { return "sess1" }, Tracer: tp.Tracer("test")}), rec, dir
}

func shellCall(cmd string) Input {
	return Input{ToolName: "run_shell_command", ToolInput: json.RawMessage(`{"cmd":` + strconv.Quote(cmd) + `}`), ToolUseID: "c1"}
}

// A guard in Claude Code's form: exit 2 blocks, its stderr the reason.
func TestGuardExit2Blocks(t *testing.T) {
	s, rec, _ := set(t, decode(t, `{"PreToolUse":[{"matcher":"run_shell_command","hooks":[{"type":"command",
		"command":"if grep -q 'push --force' ; then echo 'force-push is not allowed here' >&2; exit 2; fi"}]}]}`))
	out := s.Run(context.Background(), PreToolUse, shellCall("git push --force origin main"))
	if !out.Block || out.Decision != Deny || !strings.Contains(out.Reason, "force-push is not allowed here") {
		t.Fatalf("want a block with the hook's reason, got %+v", out)
	}
	if out := s.Run(context.Background(), PreToolUse, shellCall("git status")); out.Block || out.Ran != 1 {
		t.Fatalf("a harmless command: %+v", out)
	}
	spans := rec.Ended()
	if len(spans) != 2 || spans[0].Name() != "execute_hook PreToolUse" {
		t.Fatalf("spans: %d", len(spans))
	}
	attrs := map[string]string{}
	for _, a := range spans[0].Attributes() {
		attrs[string(a.Key)] = a.Value.String()
	}
	if attrs["co.hook.exit_code"] != "2" || attrs["co.hook.blocked"] != "true" || !strings.Contains(attrs["co.hook.stderr"], "force-push") {
		t.Errorf("span attributes: %v", attrs)
	}
}

// A hook that crashes fails open by default and is reported; with
// on_failure block it blocks.
func TestCrashFailsOpenUnlessOnFailureBlock(t *testing.T) {
	open, _, _ := set(t, decode(t, `{"PreToolUse":[{"hooks":[{"type":"command","command":"no-such-interpreter-xyz /guard.py"}]}]}`))
	out := open.Run(context.Background(), PreToolUse, shellCall("rm -rf build"))
	if out.Block || len(out.Failures) != 1 || !strings.Contains(out.Failures[0].Why, "exited 127") {
		t.Fatalf("fail open: %+v", out)
	}
	closed, _, _ := set(t, decode(t, `{"PreToolUse":[{"hooks":[{"type":"command","command":"no-such-interpreter-xyz /guard.py","on_failure":"block"}]}]}`))
	out = closed.Run(context.Background(), PreToolUse, shellCall("rm -rf build"))
	if !out.Block || out.Decision != Deny || !strings.Contains(out.Reason, `"on_failure": "block"`) {
		t.Fatalf("fail closed: %+v", out)
	}
}

// A hook that hangs is killed at its timeout with everything it started.
func TestHangingHookIsKilledWithItsGroup(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	s, rec, _ := set(t, decode(t, `{"PreToolUse":[{"hooks":[{"type":"command","timeout":1,"on_failure":"block",
		"command":"sleep 300 & echo $! > `+pidFile+`; wait"}]}]}`))
	out := s.Run(context.Background(), PreToolUse, shellCall("ls"))
	if !out.Block || !strings.Contains(out.Reason, "timed out after 1s") {
		t.Fatalf("%+v", out)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	// The background child was in the hook's group: killed and, its
	// parent gone, reaped by init; kill(pid, 0) no longer finds it, or
	// finds a zombie at most.
	if err := syscall.Kill(pid, 0); err == nil {
		if st, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); !strings.Contains(string(st), ") Z ") {
			t.Errorf("the hook's background child %d survived its timeout", pid)
		}
	}
	if a := rec.Ended()[0].Attributes(); !hasAttr(a, "co.hook.timed_out", "true") {
		t.Errorf("span: %v", a)
	}
}

func hasAttr(attrs []attributeKV, k, v string) bool {
	for _, a := range attrs {
		if string(a.Key) == k && a.Value.String() == v {
			return true
		}
	}
	return false
}

// JSON decisions: deny beats ask beats allow; additionalContext and
// systemMessage are kept; the event reaches the hook on stdin.
func TestJSONDecisionsAndInput(t *testing.T) {
	dir := t.TempDir()
	seen := filepath.Join(dir, "seen.json")
	s, _, ws := set(t, decode(t, `{"PreToolUse":[
	  {"matcher":"write_file|edit_file","hooks":[{"type":"command","command":"cat > `+seen+`; echo '{\"hookSpecificOutput\":{\"permissionDecision\":\"allow\",\"permissionDecisionReason\":\"formatter ok\"}}'"}]},
	  {"matcher":"^write_","hooks":[{"type":"command","command":"echo '{\"systemMessage\":\"checked\",\"hookSpecificOutput\":{\"permissionDecision\":\"ask\",\"permissionDecisionReason\":\"writes ask\"}}'"}]}
	]}`))
	out := s.Run(context.Background(), PreToolUse, Input{ToolName: "write_file", ToolInput: json.RawMessage(`{"path":"a.txt"}`), ToolUseID: "c9"})
	if out.Block || out.Decision != Ask || out.DecisionReason != "writes ask" || len(out.Messages) != 1 {
		t.Fatalf("%+v", out)
	}
	var in map[string]any
	b, _ := os.ReadFile(seen)
	if err := json.Unmarshal(b, &in); err != nil {
		t.Fatal(err)
	}
	if in["hook_event_name"] != "PreToolUse" || in["tool_name"] != "write_file" || in["session_id"] != "sess1" || in["cwd"] != ws ||
		in["tool_input"].(map[string]any)["path"] != "a.txt" || in["tool_use_id"] != "c9" {
		t.Errorf("stdin: %v", in)
	}
	// edit_file matches the exact list, not "^write_".
	if out := s.Run(context.Background(), PreToolUse, Input{ToolName: "edit_file"}); out.Decision != Allow || out.Ran != 1 {
		t.Errorf("edit_file: %+v", out)
	}
	// A list of exact names does not match a longer name.
	if s.Has(PreToolUse, "write_file_extra") != true { // "^write_" is a regular expression: it does
		t.Error("the regular expression should match")
	}
	if s.Has(PreToolUse, "xedit_file") {
		t.Error("an exact name matched a longer one")
	}
}

// PostToolUse gets the result and the files the call changed; the
// environment names the project and the session.
func TestPostToolUseSeesResultAndChangedFiles(t *testing.T) {
	dir := t.TempDir()
	seen := filepath.Join(dir, "seen.json")
	env := filepath.Join(dir, "env")
	s, _, ws := set(t, decode(t, `{"PostToolUse":[{"matcher":"run_shell_command","hooks":[{"type":"command",
		"command":"cat > `+seen+`; echo \"$CO_PROJECT_DIR $CO_SESSION_ID\" > `+env+`"}]}]}`))
	in := shellCall("touch a b")
	in.ToolResponse = json.RawMessage(`{"output":"","exit_code":0}`)
	in.ChangedFiles = []string{"a", "b"}
	if out := s.Run(context.Background(), PostToolUse, in); out.Ran != 1 || len(out.Failures) != 0 {
		t.Fatalf("%+v", out)
	}
	var got struct {
		Response map[string]any `json:"tool_response"`
		Changed  []string       `json:"changed_files"`
	}
	b, _ := os.ReadFile(seen)
	if err := json.Unmarshal(b, &got); err != nil || got.Response["exit_code"] != float64(0) || strings.Join(got.Changed, ",") != "a,b" {
		t.Fatalf("stdin %s: %v", b, err)
	}
	if e, _ := os.ReadFile(env); strings.TrimSpace(string(e)) != ws+" sess1" {
		t.Errorf("environment: %q", e)
	}
}

// A project's hooks are listed but never run until trusted.
func TestProjectHooksNeedConsent(t *testing.T) {
	dir := t.TempDir()
	mark := filepath.Join(dir, "ran")
	proj := decode(t, `{"UserPromptSubmit":[{"hooks":[{"type":"command","command":"touch `+mark+`"}]}]}`)
	s := NewSet(Options{Project: proj, ProjectFile: "/repo/.co-cli/settings.json", Dir: dir})
	if !s.AwaitingConsent() || len(s.List()) != 1 || s.List()[0].Active {
		t.Fatalf("list: %+v", s.List())
	}
	if out := s.Run(context.Background(), UserPromptSubmit, Input{Prompt: "hi"}); out.Ran != 0 {
		t.Fatal("an untrusted project hook ran")
	}
	if _, err := os.Stat(mark); err == nil {
		t.Fatal("an untrusted project hook ran")
	}
	s = NewSet(Options{Project: proj, ProjectFile: "/repo/.co-cli/settings.json", ProjectTrusted: true, Dir: dir})
	if out := s.Run(context.Background(), UserPromptSubmit, Input{Prompt: "hi"}); out.Ran != 1 {
		t.Fatalf("a trusted project hook: %+v", out)
	}
	if _, err := os.Stat(mark); err != nil {
		t.Fatal(err)
	}
}

func TestDecodeNamesWhatIsWrong(t *testing.T) {
	for in, want := range map[string]string{
		`[]`: "want an object",
		`{"PreToolUse":[{"hooks":[{"type":"prompt","prompt":"x"}]}]}`:                    `only "command"`,
		`{"PreToolUse":[{"hooks":[{"type":"command","command":" "}]}]}`:                  `"command" is empty`,
		`{"PreToolUse":[{"matcher":"(","hooks":[{"type":"command","command":"x"}]}]}`:    "not a regular expression",
		`{"PreToolUse":[{"hooks":[{"type":"command","command":"x","timeout":-1}]}]}`:     `"timeout" is -1`,
		`{"PreToolUse":[{"hooks":[{"type":"command","command":"x","on_failure":"x"}]}]}`: `"on_failure" is "x"`,
		`{"BeforeTool":[]}`:                "no such event",
		`{"PreToolUse":[{"matcher":"x"}]}`: `"hooks" is empty`,
	} {
		if _, _, err := Decode(json.RawMessage(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", in, err, want)
		}
	}
	c, warns, err := Decode(json.RawMessage(`{"SessionEnd":[{"hooks":[{"type":"command","command":"x"}]}],"Stop":[{"hooks":[{"type":"command","command":"x"}]}]}`))
	if err != nil || len(warns) != 1 || !strings.Contains(warns[0], "co has no SessionEnd event") || len(c[Stop]) != 1 {
		t.Errorf("a Claude Code event co lacks: %v %v %v", c, warns, err)
	}
}

type attributeKV = attribute.KeyValue
