package telemetry

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// receiver is a minimal OTLP/HTTP collector: it decodes protobuf exports.
type receiver struct {
	mu    sync.Mutex
	raw   [][]byte
	spans []*tracepb.Span
	res   map[string]string
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "want protobuf on /v1/traces", http.StatusBadRequest)
		return
	}
	var body io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = zr
	}
	b, err := io.ReadAll(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var req coltracepb.ExportTraceServiceRequest
	if err := proto.Unmarshal(b, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	rc.mu.Lock()
	rc.raw = append(rc.raw, b)
	for _, rs := range req.ResourceSpans {
		rc.res = map[string]string{}
		for _, kv := range rs.GetResource().GetAttributes() {
			rc.res[kv.Key] = kv.GetValue().GetStringValue()
		}
		for _, ss := range rs.ScopeSpans {
			rc.spans = append(rc.spans, ss.Spans...)
		}
	}
	rc.mu.Unlock()
	out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(out)
}

func spanAttrs(s *tracepb.Span) map[string]string {
	m := map[string]string{}
	for _, kv := range s.Attributes {
		m[kv.Key] = kv.GetValue().GetStringValue()
	}
	return m
}

func TestOTLPExportReachesACollector(t *testing.T) {
	for _, tc := range []struct {
		name          string
		exportContent string
		wantContent   bool
	}{
		{"content stripped by default", "", false},
		{"content sent when asked", "true", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rc := &receiver{}
			srv := httptest.NewServer(rc)
			defer srv.Close()
			t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", srv.URL)
			t.Setenv(ExportContentEnv, tc.exportContent)
			const secret = "configured-secret-value-42"
			tr := setupT(t, Options{CaptureContent: true, Secrets: []string{secret}, ServiceVersion: "1.0.0"})
			if !tr.OTLP() {
				t.Fatal("OTLP is off with OTEL_EXPORTER_OTLP_ENDPOINT set")
			}
			turn(tr.Tracer(), 1, "read_file", true)
			_, s := tr.Tracer().Start(context.Background(), "execute_tool leak")
			s.SetAttributes(attribute.String("gen_ai.tool.call.result", "the key is "+secret))
			s.SetAttributes(attribute.String("note", "also "+secret+" and ghp_0123456789abcdefghijABCDEFGHIJ"))
			s.End()
			if err := tr.Shutdown(context.Background()); err != nil {
				t.Fatal(err)
			}
			rc.mu.Lock()
			defer rc.mu.Unlock()
			if len(rc.spans) != 4 {
				t.Fatalf("collector got %d spans, want 4", len(rc.spans))
			}
			if rc.res["service.name"] != "co-cli" || rc.res["service.version"] != "1.0.0" || rc.res["session.id"] != "sess-test" {
				t.Errorf("resource %v", rc.res)
			}
			names := map[string]*tracepb.Span{}
			for _, s := range rc.spans {
				names[s.Name] = s
			}
			tool := names["execute_tool read_file"]
			if tool == nil || tool.Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR || len(tool.Events) == 0 {
				t.Fatalf("tool span %v", tool)
			}
			if names["chat test-model"].GetKind() != tracepb.Span_SPAN_KIND_CLIENT {
				t.Errorf("chat kind %v", names["chat test-model"].GetKind())
			}
			_, hasContent := spanAttrs(names["invoke_agent"])["gen_ai.input.messages"]
			if hasContent != tc.wantContent {
				t.Errorf("prompt sent to the collector: %v, want %v", hasContent, tc.wantContent)
			}
			for _, b := range rc.raw {
				if bytes.Contains(b, []byte(secret)) || bytes.Contains(b, []byte("ghp_0123456789")) {
					t.Error("a secret reached the collector")
				}
			}
			if got := spanAttrs(names["execute_tool leak"])["note"]; !strings.Contains(got, Redacted) {
				t.Errorf("note %q", got)
			}
			// Local SQLite stays on, with the content.
			if n := count(t, openRW(t, tr.DBPath()), `SELECT count(*) FROM spans WHERE attributes LIKE '%gen_ai.input.messages%'`); n != 1 {
				t.Errorf("local store has %d spans with content, want 1", n)
			}
		})
	}
}

func TestOTLPIsOffWithoutTheVariables(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		want bool
	}{
		{"nothing", map[string]string{}, false},
		{"endpoint", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://x:4318"}, true},
		{"traces endpoint", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://x:4318/v1/traces"}, true},
		{"exporter none", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://x:4318", "OTEL_TRACES_EXPORTER": "none"}, false},
		{"sdk disabled", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://x:4318", "OTEL_SDK_DISABLED": "true"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := otlpWanted(func(k string) string { return tc.env[k] }); got != tc.want {
				t.Errorf("otlpWanted = %v", got)
			}
		})
	}
}
