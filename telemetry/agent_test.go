package telemetry_test

// These tests run the real agent against agent/llmtest with the real
// telemetry pipeline and read what landed in SQLite. (Only tests import
// agent; the telemetry package itself imports config types at most.)

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/agent/provider"
	"github.com/co-cli/co/telemetry"
	"github.com/co-cli/co/tools"
)

// echoTool is read-only: it returns its text (so a secret in the arguments
// is in the result too).
type echoTool struct{}

func (echoTool) Name() string        { return "echo_text" }
func (echoTool) Description() string { return "Echo text back." }
func (echoTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)
}
func (echoTool) Class() tools.Class { return tools.ReadOnly }
func (echoTool) Run(_ context.Context, args json.RawMessage) (tools.Result, error) {
	var a struct{ Text string }
	if err := tools.Decode("echo_text", args, &a); err != nil {
		return tools.Result{}, err
	}
	return tools.Result{Display: "echo: " + a.Text, Meta: map[string]any{"exit_code": 0, "isolation": "full"}}, nil
}

// brokenTool fails as infrastructure does.
type brokenTool struct{}

func (brokenTool) Name() string            { return "break_things" }
func (brokenTool) Description() string     { return "Fail." }
func (brokenTool) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (brokenTool) Class() tools.Class      { return tools.ReadOnly }
func (brokenTool) Run(context.Context, json.RawMessage) (tools.Result, error) {
	return tools.Result{}, errors.New("the disk is on fire")
}

type rig struct {
	srv  *llmtest.Server
	tr   *telemetry.Tracing
	ag   *agent.Agent
	path string
}

func newRig(t *testing.T, opts telemetry.Options) *rig {
	t.Helper()
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	if opts.DBPath == "" {
		opts.DBPath = telemetry.DBPath(t.TempDir())
	}
	if opts.SessionID == "" {
		opts.SessionID = "0123456789abcdef"
	}
	opts.ServiceVersion = "9.9.9-test"
	opts.NoPrune = true
	tr, err := telemetry.Setup(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tr.Shutdown(context.Background()) })
	reg, err := tools.NewRegistry(echoTool{}, brokenTool{})
	if err != nil {
		t.Fatal(err)
	}
	ag := agent.New(agent.Config{
		Provider:     provider.Provider{Name: "openai", BaseURL: srv.URL, APIKey: "test-key", Model: "test-model"},
		SystemPrompt: "You are a test.",
		Tools:        reg,
		Approvals:    agent.NewApprovals(agent.ApprovalOptions{Isolated: true}),
		ToolRetries:  3,
		Retry:        provider.RetryPolicy{Base: 10 * time.Millisecond},
		StallTimeout: 5 * time.Second,
		SessionID:    opts.SessionID,
		Tracer:       tr.Tracer(),
	})
	return &rig{srv: srv, tr: tr, ag: ag, path: opts.DBPath}
}

// turn runs one turn to its end, however long the machine takes (a turn
// that never ends is go test's -timeout).
func (r *rig) turn(t *testing.T, prompt string) []agent.Event {
	t.Helper()
	var evs []agent.Event
	for ev := range r.ag.Submit(context.Background(), prompt) {
		if req, isReq := ev.(agent.ApprovalRequested); isReq {
			t.Fatalf("unexpected approval request %+v", req.Calls)
		}
		evs = append(evs, ev)
	}
	return evs
}

// dbRow is a spans row read back with SQL, every column.
type dbRow struct {
	id, traceID, name, kind, statusCode, attributes, events, resource string
	parentID, statusDesc                                              sql.NullString
	start, end                                                        int64
	durationMS                                                        float64
	attrs                                                             map[string]any
	res                                                               map[string]any
	evs                                                               []map[string]any
}

func readRows(t *testing.T, path string) []dbRow {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT id, trace_id, parent_id, name, kind, start_time, end_time, duration_ms, status_code, status_description, attributes, events, resource FROM spans ORDER BY rowid`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []dbRow
	for rows.Next() {
		var r dbRow
		if err := rows.Scan(&r.id, &r.traceID, &r.parentID, &r.name, &r.kind, &r.start, &r.end, &r.durationMS, &r.statusCode, &r.statusDesc, &r.attributes, &r.events, &r.resource); err != nil {
			t.Fatal(err)
		}
		for _, j := range []struct {
			s string
			v any
		}{{r.attributes, &r.attrs}, {r.resource, &r.res}, {r.events, &r.evs}} {
			if err := json.Unmarshal([]byte(j.s), j.v); err != nil {
				t.Fatalf("%s: column is not JSON: %q", r.name, j.s)
			}
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func byName(t *testing.T, rows []dbRow, name string) []dbRow {
	t.Helper()
	var out []dbRow
	for _, r := range rows {
		if r.name == name {
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no span %q in %d rows", name, len(rows))
	}
	return out
}

func isHex(s string, n int) bool {
	_, err := hex.DecodeString(s)
	return err == nil && len(s) == n && strings.ToLower(s) == s
}

func TestAgentTurnFillsEverySpanColumn(t *testing.T) {
	r := newRig(t, telemetry.Options{CaptureContent: true})
	r.srv.Script(
		llmtest.Reply{Text: "Let me echo.", ToolCalls: []llmtest.ToolCall{{ID: "call_1", Name: "echo_text", Args: `{"text":"hello"}`}}, Usage: &llmtest.Usage{PromptTokens: 11, CompletionTokens: 5}},
		llmtest.Reply{Text: "It said hello.", Reasoning: "It echoed.", Usage: &llmtest.Usage{PromptTokens: 20, CompletionTokens: 4}},
	)
	before := time.Now()
	r.turn(t, "please echo hello")
	after := time.Now()
	if err := r.tr.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	rows := readRows(t, r.path)
	if len(rows) != 4 {
		t.Fatalf("%d rows, want 4 (invoke_agent, 2 chat, execute_tool)", len(rows))
	}
	root := byName(t, rows, "invoke_agent")[0]
	chats := byName(t, rows, "chat test-model")
	tool := byName(t, rows, "execute_tool echo_text")[0]
	if len(chats) != 2 {
		t.Fatalf("%d chat spans", len(chats))
	}

	for _, x := range rows {
		if !isHex(x.id, 16) || !isHex(x.traceID, 32) {
			t.Errorf("%s: id %q trace_id %q", x.name, x.id, x.traceID)
		}
		if x.traceID != root.traceID {
			t.Errorf("%s: in trace %s, root in %s", x.name, x.traceID, root.traceID)
		}
		if x.start < before.UnixNano() || x.end > after.UnixNano() || x.end < x.start {
			t.Errorf("%s: start %d end %d outside the turn [%d, %d]", x.name, x.start, x.end, before.UnixNano(), after.UnixNano())
		}
		if want := float64(x.end-x.start) / 1e6; math.Abs(x.durationMS-want) > 1e-6 {
			t.Errorf("%s: duration_ms %v, want %v", x.name, x.durationMS, want)
		}
		if x.statusCode != "UNSET" || x.statusDesc.Valid {
			t.Errorf("%s: status %q %v", x.name, x.statusCode, x.statusDesc)
		}
		if x.events != "[]" {
			t.Errorf("%s: events %s", x.name, x.events)
		}
		if x.res["service.name"] != "co-cli" || x.res["service.version"] != "9.9.9-test" || x.res["session.id"] != "0123456789abcdef" {
			t.Errorf("%s: resource %s", x.name, x.resource)
		}
	}
	if root.parentID.Valid {
		t.Errorf("invoke_agent has parent %v", root.parentID)
	}
	for _, c := range append(chats, tool) {
		if !c.parentID.Valid || c.parentID.String != root.id {
			t.Errorf("%s: parent %v, want the invoke_agent span %s", c.name, c.parentID, root.id)
		}
	}
	if root.kind != "INTERNAL" || tool.kind != "INTERNAL" || chats[0].kind != "CLIENT" {
		t.Errorf("kinds: agent %s, tool %s, chat %s", root.kind, tool.kind, chats[0].kind)
	}
	// Children end before their parent; rows are in end order.
	if rows[len(rows)-1].name != "invoke_agent" {
		t.Errorf("last row is %s, want invoke_agent (stored when it ends)", rows[len(rows)-1].name)
	}

	want := map[*dbRow]map[string]any{
		&root: {
			"gen_ai.operation.name":      "invoke_agent",
			"gen_ai.agent.name":          "co",
			"co.session.id":              "0123456789abcdef",
			"gen_ai.conversation.id":     "0123456789abcdef",
			"co.turn":                    1.0,
			"co.llm_requests":            2.0,
			"co.outcome":                 "success",
			"gen_ai.usage.input_tokens":  31.0,
			"gen_ai.usage.output_tokens": 9.0,
		},
		&chats[0]: {
			"gen_ai.operation.name":          "chat",
			"gen_ai.provider.name":           "openai",
			"gen_ai.request.model":           "test-model",
			"gen_ai.usage.input_tokens":      11.0,
			"gen_ai.usage.output_tokens":     5.0,
			"gen_ai.response.finish_reasons": []any{"tool_calls"},
		},
		&chats[1]: {
			"gen_ai.usage.input_tokens":      20.0,
			"gen_ai.usage.output_tokens":     4.0,
			"gen_ai.response.finish_reasons": []any{"stop"},
		},
		&tool: {
			"gen_ai.operation.name":      "execute_tool",
			"gen_ai.tool.name":           "echo_text",
			"gen_ai.tool.call.id":        "call_1",
			"co.tool.args_size":          16.0,
			"co.approval.decision":       "allow",
			"co.approval.by":             "policy allow",
			"co.tool.status":             "done",
			"co.tool.exit_code":          "0",
			"co.sandbox.isolation":       "full",
			"gen_ai.tool.call.arguments": `{"text":"hello"}`,
		},
	}
	for row, attrs := range want {
		for k, v := range attrs {
			got, _ := json.Marshal(row.attrs[k])
			exp, _ := json.Marshal(v)
			if !bytes.Equal(got, exp) {
				t.Errorf("%s: %s = %s, want %s", row.name, k, got, exp)
			}
		}
	}
	if ttft, ok := chats[0].attrs["co.time_to_first_token_ms"].(float64); !ok || ttft <= 0 || ttft > chats[0].durationMS {
		t.Errorf("time to first token %v (duration %v)", chats[0].attrs["co.time_to_first_token_ms"], chats[0].durationMS)
	}
	if s, _ := tool.attrs["co.tool.result_size"].(float64); s <= 0 {
		t.Errorf("result size %v", tool.attrs["co.tool.result_size"])
	}
	if res, _ := tool.attrs["gen_ai.tool.call.result"].(string); !strings.Contains(res, "echo: hello") {
		t.Errorf("tool result %q", res)
	}
	if got := telemetry.MessagesText(root.attrs["gen_ai.input.messages"].(string)); got != "please echo hello" {
		t.Errorf("prompt %q", got)
	}
	if got := telemetry.MessagesText(root.attrs["gen_ai.output.messages"].(string)); got != "thinking: It echoed.\nIt said hello." {
		t.Errorf("response %q", got)
	}
	if got, _ := chats[0].attrs["gen_ai.output.messages"].(string); !strings.Contains(got, `"tool_call"`) || !strings.Contains(got, `"echo_text"`) {
		t.Errorf("first chat output %s", got)
	}
}

func TestFailuresSetStatusAndRecordTheError(t *testing.T) {
	r := newRig(t, telemetry.Options{CaptureContent: true})
	r.srv.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "break_things", Args: `{}`}}},
		llmtest.Reply{Status: 401, ErrorMessage: "bad key"},
	)
	r.turn(t, "break it")
	if err := r.tr.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	rows := readRows(t, r.path)
	for _, name := range []string{"execute_tool break_things", "invoke_agent"} {
		x := byName(t, rows, name)[0]
		if x.statusCode != "ERROR" || !x.statusDesc.Valid || x.statusDesc.String == "" {
			t.Errorf("%s: status %s %v", name, x.statusCode, x.statusDesc)
		}
		if len(x.evs) == 0 || x.evs[0]["name"] != "exception" {
			t.Errorf("%s: events %s, want an exception", name, x.events)
		}
	}
	tool := byName(t, rows, "execute_tool break_things")[0]
	if !strings.Contains(tool.statusDesc.String, "disk is on fire") {
		t.Errorf("tool status %q", tool.statusDesc.String)
	}
	chats := byName(t, rows, "chat test-model")
	if chats[len(chats)-1].statusCode != "ERROR" {
		t.Errorf("failed request: status %s", chats[len(chats)-1].statusCode)
	}
}

func TestContentIsKeptOnlyWhenCaptureIsOn(t *testing.T) {
	r := newRig(t, telemetry.Options{CaptureContent: false})
	r.srv.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "echo_text", Args: `{"text":"the-argument-text"}`}}},
		llmtest.Reply{Text: "the-response-text", Reasoning: "the-reasoning-text"},
	)
	r.turn(t, "the-prompt-text")
	if err := r.tr.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	rows := readRows(t, r.path)
	if len(rows) != 4 {
		t.Fatalf("%d rows", len(rows))
	}
	raw := rawBytes(t, r.path)
	for _, s := range []string{"the-prompt-text", "the-argument-text", "the-response-text", "the-reasoning-text"} {
		if bytes.Contains(raw, []byte(s)) {
			t.Errorf("%q is in the store with telemetry_capture_content off", s)
		}
	}
	tool := byName(t, rows, "execute_tool echo_text")[0]
	if tool.attrs["co.tool.args_size"] == nil || tool.attrs["gen_ai.tool.name"] != "echo_text" {
		t.Errorf("the metadata must stay: %s", tool.attributes)
	}
}

// rawBytes is the database file with its WAL and shared-memory files.
func rawBytes(t *testing.T, path string) []byte {
	t.Helper()
	var all []byte
	for _, p := range []string{path, path + "-wal", path + "-shm", path + "-journal"} {
		b, err := os.ReadFile(p)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	if len(all) == 0 {
		t.Fatal("no database file")
	}
	return all
}

func TestSecretsNeverReachTheDatabase(t *testing.T) {
	const configured = "sk-configured-4f9a8b7c6d5e4f3a2b1c" // an API key from the settings
	shapes := map[string]string{
		"slack":  "xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOp",
		"github": "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
		"aws":    "AKIAIOSFODNN7EXAMPLE",
		"bearer": "Bearer eyJhbGciOiJIUzI1NiJ9.payloadpart.sig-nature-part",
		"pem":    "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAsecretbody\n-----END RSA PRIVATE KEY-----",
	}
	dir := t.TempDir()
	r := newRig(t, telemetry.Options{DBPath: telemetry.DBPath(dir), CaptureContent: true, Secrets: []string{configured}})
	var all []string
	all = append(all, configured)
	for _, s := range shapes {
		all = append(all, s)
	}
	joined := strings.Join(all, " | ")
	args, _ := json.Marshal(map[string]string{"text": joined})
	r.srv.Script(
		// The model repeats the secrets in its text, its tool arguments
		// (and so the tool's result), and its final answer.
		llmtest.Reply{Text: "I see " + configured, ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "echo_text", Args: string(args)}}},
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "c2", Name: "break_things", Args: `{"token":"` + configured + `"}`}}},
		llmtest.Reply{Text: "Done: " + joined},
	)
	r.turn(t, "remember these: "+joined)
	// While co runs: the WAL holds the batch.
	if err := r.tr.ForceFlush(context.Background()); err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		raw := rawBytes(t, r.path)
		if !bytes.Contains(raw, []byte("remember these")) {
			t.Fatalf("%s: the prompt is not in the raw files, so this test proves nothing", when)
		}
		for _, s := range all {
			for _, piece := range secretPieces(s) {
				if bytes.Contains(raw, []byte(piece)) {
					t.Errorf("%s: %q (of %q) is in the database files", when, piece, s)
				}
			}
		}
	}
	check("after the flush")
	if err := r.tr.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	check("after shutdown")
	rows := readRows(t, r.path)
	if len(rows) < 5 {
		t.Fatalf("%d rows", len(rows))
	}
	root := byName(t, rows, "invoke_agent")[0]
	if p := telemetry.MessagesText(root.attrs["gen_ai.input.messages"].(string)); !strings.Contains(p, "remember these: [REDACTED]") {
		t.Errorf("the prompt is kept with the secret redacted: %q", p)
	}
	// Every file under the data dir, not only the database.
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		if bytes.Contains(b, []byte(configured)) {
			t.Errorf("%s holds the configured secret", e.Name())
		}
	}
}

// secretPieces: the secret and its distinctive part (a multi-line key body
// is checked line by line).
func secretPieces(s string) []string {
	if strings.Contains(s, "PRIVATE KEY") {
		return []string{"MIIEowIBAAKCAQEAsecretbody"}
	}
	if strings.HasPrefix(s, "Bearer ") {
		return []string{strings.TrimPrefix(s, "Bearer ")}
	}
	return []string{s}
}
