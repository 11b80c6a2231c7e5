package main

import (
	"bufio"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// build compiles the command into a temporary directory.
func build(t *testing.T) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build llmtest with")
	}
	bin := filepath.Join(t.TempDir(), "llmtest")
	out, err := exec.Command(goBin, "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// start runs the command and returns its base URL; the returned stop
// function sends SIGTERM and returns the exit error.
func start(t *testing.T, bin string, args ...string) (url string, stop func() error) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	stop = func() error {
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			return err
		}
		select {
		case err := <-done:
			return err
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			return errors.New("llmtest did not exit after SIGTERM")
		}
	}
	lines := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		lines <- line
		_, _ = io.Copy(io.Discard, stdout)
		done <- cmd.Wait()
	}()
	select {
	case line := <-lines:
		url, ok := strings.CutPrefix(strings.TrimSpace(line), "LLMTEST_URL=")
		if !ok {
			_ = stop()
			t.Fatalf("first stdout line = %q, want LLMTEST_URL=...", line)
		}
		return url, stop
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("llmtest printed no URL")
	}
	return "", nil
}

func ask(t *testing.T, url, user string) (string, error) {
	t.Helper()
	cfg := openai.DefaultConfig("anything")
	cfg.BaseURL = url
	stream, err := openai.NewClientWithConfig(cfg).CreateChatCompletionStream(t.Context(), openai.ChatCompletionRequest{
		Model:    "test",
		Messages: []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: user}},
	})
	if err != nil {
		return "", err
	}
	defer stream.Close()
	var text strings.Builder
	for {
		chunk, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return text.String(), nil
		}
		if err != nil {
			return text.String(), err
		}
		for _, c := range chunk.Choices {
			text.WriteString(c.Delta.Content)
		}
	}
}

func TestCommand(t *testing.T) {
	bin := build(t)
	script := filepath.Join(t.TempDir(), "script.json")
	err := os.WriteFile(script, []byte(`[
		{"text": "first reply", "chunk_size": 3, "chunk_delay": "1ms"},
		{"match": "hello", "text": "Hi!", "reusable": true},
		{"match": "bye", "text": "Bye."}
	]`), 0o600)
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name string
		args []string
		asks [][2]string // user message, expected reply ("ERROR" for a failure)
	}{
		{"queue", []string{"--script", script, "--quiet"}, [][2]string{
			{"bye", "first reply"}, {"hello", "Hi!"}, {"x", "Bye."}, {"x", "ERROR"},
		}},
		{"rules and echo", []string{"--script", script, "--rules", "--echo", "--quiet"}, [][2]string{
			{"hello", "first reply"}, // no match means every message
			{"hello", "Hi!"}, {"hello", "Hi!"}, {"bye now", "Bye."}, {"bye", "You said: bye"},
		}},
		{"echo only", []string{"--echo", "--addr", "127.0.0.1:0"}, [][2]string{
			{"ping", "You said: ping"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, stop := start(t, bin, tt.args...)
			for _, a := range tt.asks {
				got, err := ask(t, url, a[0])
				if a[1] == "ERROR" {
					if err == nil || !strings.Contains(err.Error(), "no scripted reply left") {
						t.Errorf("%q: got %q, err %v; want the no-reply error", a[0], got, err)
					}
					continue
				}
				if err != nil || got != a[1] {
					t.Errorf("%q: got %q, err %v; want %q", a[0], got, err, a[1])
				}
			}
			if err := stop(); err != nil {
				t.Errorf("exit after SIGTERM: %v", err)
			}
		})
	}
}

func TestRunRejectsBadScripts(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, script, want string
	}{
		{"unknown field", `[{"txt": "typo"}]`, "unknown field"},
		{"bad duration", `[{"delay": "soon"}]`, "duration"},
		{"not an array", `{"text": "x"}`, "cannot unmarshal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "_")+".json")
			if err := os.WriteFile(path, []byte(tt.script), 0o600); err != nil {
				t.Fatal(err)
			}
			err := run([]string{"--script", path}, io.Discard, io.Discard)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to mention %q", err, tt.want)
			}
		})
	}
	if err := run([]string{"--script", filepath.Join(dir, "missing.json")}, io.Discard, io.Discard); err == nil {
		t.Error("no error for a missing script")
	}
}

func TestCommandProfile(t *testing.T) {
	bin := build(t)
	url, stop := start(t, bin, "--profile", "gemini", "--api-key", "sekret", "--echo", "--quiet")
	defer func() {
		if err := stop(); err != nil {
			t.Errorf("exit after SIGTERM: %v", err)
		}
	}()
	if !strings.HasSuffix(url, "/v1beta/openai") {
		t.Fatalf("gemini URL = %s", url)
	}
	post := func(key string) (int, string) {
		req, err := http.NewRequestWithContext(t.Context(), "POST", url+"/chat/completions",
			strings.NewReader(`{"model":"gemini-3.8-flash","messages":[{"role":"user","content":"ping"}]}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if status, body := post("wrong"); status != 400 || !strings.Contains(body, "API_KEY_INVALID") {
		t.Errorf("wrong key: %d %s", status, body)
	}
	if status, body := post("sekret"); status != 200 || !strings.Contains(body, "You said: ping") {
		t.Errorf("right key: %d %s", status, body)
	}
}

func TestRunRejectsUnknownProfile(t *testing.T) {
	err := run([]string{"--profile", "claude"}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "unknown profile") {
		t.Errorf("err = %v", err)
	}
}

// --profile llamacpp with --ctx-size and --no-jinja: /props says the
// window, a request with tools gets llama-server's 500 without --jinja,
// one without tools is answered.
func TestCommandLlamaCppFlags(t *testing.T) {
	bin := build(t)
	url, stop := start(t, bin, "--profile", "llamacpp", "--ctx-size", "2048", "--no-jinja", "--echo", "--quiet")
	defer func() {
		if err := stop(); err != nil {
			t.Errorf("exit after SIGTERM: %v", err)
		}
	}()
	resp, err := http.Get(strings.TrimSuffix(url, "/v1") + "/props")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), `"n_ctx":2048`) {
		t.Errorf("/props: %s", b)
	}
	post := func(body string) (int, string) {
		resp, err := http.Post(url+"/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, strings.TrimSpace(string(b))
	}
	tools := `,"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object"}}}]`
	if status, body := post(`{"model":"m","messages":[{"role":"user","content":"ping"}]` + tools + `}`); status != 500 ||
		body != `{"error":{"code":500,"message":"tools param requires --jinja flag","type":"server_error"}}` {
		t.Errorf("with tools: %d %s", status, body)
	}
	if status, body := post(`{"model":"m","messages":[{"role":"user","content":"ping"}]}`); status != 200 || !strings.Contains(body, "You said: ping") {
		t.Errorf("without tools: %d %s", status, body)
	}
}

func TestRunRejectsLlamaFlagsElsewhere(t *testing.T) {
	for _, args := range [][]string{{"--no-jinja"}, {"--profile", "vllm", "--ctx-size", "2048"}, {"--profile", "llamacpp", "--ctx-size", "-1"}} {
		if err := run(args, io.Discard, io.Discard); err == nil {
			t.Errorf("%q: no error", args)
		}
	}
}

// -h and --help print the usage and exit 0, as flag.ErrHelp intends; a
// flag the command does not have still exits 1.
func TestHelpExitsZero(t *testing.T) {
	bin := build(t)
	for _, arg := range []string{"-h", "--help", "-help"} {
		out, err := exec.Command(bin, arg).CombinedOutput()
		if err != nil {
			t.Errorf("llmtest %s: %v\n%s", arg, err, out)
		}
		if !strings.Contains(string(out), "-profile") || strings.Contains(string(out), "llmtest: flag: help requested") {
			t.Errorf("llmtest %s printed:\n%s", arg, out)
		}
	}
	out, err := exec.Command(bin, "--no-such-flag").CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Errorf("llmtest --no-such-flag: %v, want exit 1\n%s", err, out)
	}
}
