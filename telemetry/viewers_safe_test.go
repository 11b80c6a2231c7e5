package telemetry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// hostile is what an MCP server's isError text reproduced reaching co tail:
// a screen clear, an OSC 52 clipboard write, plus a C1 CSI, a bidi override
// and a lone carriage return.
const hostile = "bad \x1b[2J\x1b]52;c;ZXZpbA==\x07 \u009b31m \u202eevil\rX"

// rawControl matches what must never reach a terminal (or a page) raw.
var rawControl = regexp.MustCompile("[\x00-\x08\x0b-\x1f\x7f\u0080-\u009f\u202a-\u202e\u2066-\u2069]")

// hostileTrace stores one trace whose strings all carry hostile text: the
// span names, attributes, the error status and its exception event.
func hostileTrace(t *testing.T) *Store {
	t.Helper()
	tr := setupT(t, Options{CaptureContent: true})
	ctx, root := tr.Tracer().Start(context.Background(), "invoke_agent", trace.WithAttributes(
		attribute.String("gen_ai.operation.name", "invoke_agent"), attribute.String("co.outcome", hostile),
		attribute.String("gen_ai.input.messages", `[{"role":"user","parts":[{"type":"text","content":"`+jsonEscape(hostile)+`"}]}]`)))
	_, call := tr.Tracer().Start(ctx, "execute_tool mcp__evil__x"+hostile, trace.WithAttributes(
		attribute.String("gen_ai.operation.name", "execute_tool"),
		attribute.String("gen_ai.tool.call.id", "c1"+hostile),
		attribute.String("co.tool.status", "retry\x1b[2J"),
		attribute.String("gen_ai.tool.call.arguments", `{"q":"`+jsonEscape(hostile)+`"}`),
		attribute.String("gen_ai.tool.call.result", hostile+"\nsecond line "+hostile)))
	call.SetStatus(codes.Error, hostile)
	call.RecordError(errors.New("exception " + hostile))
	call.End()
	root.End()
	if err := tr.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	st := OpenStore(tr.DBPath())
	t.Cleanup(func() { st.Close() })
	return st
}

func jsonEscape(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// TestTailNeutralisesControlSequences: co tail (lines, --detail, --json)
// shows hostile text from tools as visible ␛…, never as escape sequences.
func TestTailNeutralisesControlSequences(t *testing.T) {
	st := hostileTrace(t)
	for _, o := range []TailOptions{{}, {Detail: true}, {Detail: true, Color: true}, {JSON: true}} {
		var out bytes.Buffer
		if err := Tail(context.Background(), st, &out, o); err != nil {
			t.Fatal(err)
		}
		got := out.String()
		if o.Color { // the printer's own red is the only escape sequence allowed
			got = strings.NewReplacer("\x1b[31m", "", "\x1b[0m", "").Replace(got)
		}
		if m := rawControl.FindString(got); m != "" {
			t.Errorf("%+v: raw control %q reaches the terminal:\n%q", o, m, got)
		}
		if !o.JSON && !strings.Contains(got, "bad ␛[2J␛]52;c;ZXZpbA==␇") {
			t.Errorf("%+v: the escape is not shown as visible text:\n%s", o, got)
		}
		if o.Detail && !strings.Contains(got, "second line bad ␛[2J") {
			t.Errorf("--detail lacks the result's second line, shown safely:\n%s", got)
		}
		if o.JSON { // lossless: the JSON still decodes to the stored text
			var sp Span
			for _, l := range strings.Split(strings.TrimSpace(got), "\n") {
				if err := json.Unmarshal([]byte(l), &sp); err != nil {
					t.Fatalf("--json line %q: %v", l, err)
				}
				if sp.Category() == "tool" && sp.StatusDescription != hostile {
					t.Errorf("--json changed the status: %q", sp.StatusDescription)
				}
			}
		}
	}
}

// noControlIn reports the first string in a decoded JSON value holding a
// raw control character.
func noControlIn(v any) string {
	switch x := v.(type) {
	case string:
		if rawControl.MatchString(x) {
			return x
		}
	case []any:
		for _, e := range x {
			if s := noControlIn(e); s != "" {
				return s
			}
		}
	case map[string]any:
		for k, e := range x {
			if s := noControlIn(k); s != "" {
				return s
			}
			if s := noControlIn(e); s != "" {
				return s
			}
		}
	}
	return ""
}

// TestTraceHTMLNeutralisesControlSequences: co traces' page holds no raw
// control character, and the span data it shows decodes to none either.
func TestTraceHTMLNeutralisesControlSequences(t *testing.T) {
	st := hostileTrace(t)
	id, err := st.LatestTraceID(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	spans, err := st.Trace(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteTraceHTML(&b, id, spans); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if m := rawControl.FindString(page); m != "" {
		t.Errorf("raw control %q in the page", m)
	}
	data := page[strings.Index(page, `type="application/json">`)+len(`type="application/json">`):]
	data = data[:strings.Index(data, "</script>")]
	var doc any
	if err := json.Unmarshal([]byte(data), &doc); err != nil {
		t.Fatal(err)
	}
	if s := noControlIn(doc); s != "" {
		t.Errorf("the page shows a control character in %q", s)
	}
	if !strings.Contains(data, "bad ␛[2J") {
		t.Errorf("the hostile text is not shown visibly: %s", data)
	}
}

// TestDashboardNeutralisesControlSequences: co logs' API (the trace list
// and a trace) answers with no control characters in any value.
func TestDashboardNeutralisesControlSequences(t *testing.T) {
	st := hostileTrace(t)
	srv := httptest.NewServer(NewDashboard(st))
	defer srv.Close()
	for _, path := range []string{"/api/traces", "/api/sessions", "/api/tools", "/api/trace?id="} {
		if path == "/api/trace?id=" {
			id, _ := st.LatestTraceID(context.Background())
			path += id
		}
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		err = json.NewDecoder(resp.Body).Decode(&v)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("%s: %d %v", path, resp.StatusCode, err)
		}
		if s := noControlIn(v); s != "" {
			t.Errorf("%s shows a control character in %q", path, s)
		}
	}
}
