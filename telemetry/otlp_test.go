package telemetry

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	crand "crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log"
	"math"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
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
	_, _ = w.Write(out) // the client sees a failed write
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

// newTestOTLP is the exporter as co configures it from env, shut down at
// the end.
func newTestOTLP(t testing.TB, env map[string]string) *otlpExporter {
	t.Helper()
	exp, warnings, err := newOTLPExporter(func(k string) string { return env[k] }, "test")
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) > 0 {
		t.Fatalf("warnings: %q", warnings)
	}
	t.Cleanup(func() { _ = exp.Shutdown(context.Background()) })
	return exp
}

// spanContext makes a span context with IDs from two numbers.
func spanContext(tid, sid uint64, remote bool) trace.SpanContext {
	var t trace.TraceID
	var s trace.SpanID
	for i := range 8 {
		t[i], t[8+i] = byte(tid>>(8*i)), byte(^tid>>(8*i))
		s[i] = byte(sid >> (8 * i))
	}
	return trace.NewSpanContext(trace.SpanContextConfig{TraceID: t, SpanID: s, TraceFlags: trace.FlagsSampled, Remote: remote})
}

// testSpans are n plain spans.
func testSpans(n int) []sdktrace.ReadOnlySpan {
	out := make([]sdktrace.ReadOnlySpan, n)
	for i := range out {
		out[i] = tracetest.SpanStub{Name: fmt.Sprint("span ", i), SpanContext: spanContext(1, uint64(i+1), false),
			Attributes: []attribute.KeyValue{attribute.Int("i", i)}}.Snapshot()
	}
	return out
}

// scripted answers each request with the next of its responses (the last
// one repeats), after recording the request; it decodes bodies as the
// receiver does.
type scripted struct {
	rc        receiver
	responses []func(w http.ResponseWriter)
	mu        sync.Mutex
	headers   []http.Header
	queries   []string
	times     []time.Time
}

func (s *scripted) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.headers = append(s.headers, r.Header.Clone())
	s.queries = append(s.queries, r.URL.RawQuery)
	s.times = append(s.times, time.Now())
	respond := s.responses[min(len(s.headers), len(s.responses))-1]
	s.mu.Unlock()
	if respond == nil {
		s.rc.ServeHTTP(w, r)
		return
	}
	_, _ = io.Copy(io.Discard, r.Body) // the request is not looked at: read to its end, whatever it holds
	respond(w)
}

func (s *scripted) requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.headers)
}

func status(code int, header, value, body string) func(http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		if header != "" {
			w.Header().Set(header, value)
		}
		w.WriteHeader(code)
		_, _ = io.WriteString(w, body) // the client sees a failed write
	}
}

func TestOTLPHeadersAndGzip(t *testing.T) {
	s := &scripted{responses: []func(http.ResponseWriter){nil}}
	srv := httptest.NewServer(s)
	defer srv.Close()
	exp := newTestOTLP(t, map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT":    srv.URL,
		"OTEL_EXPORTER_OTLP_HEADERS":     "api-key=s%3Dcr%20et%2C,x-tenant = acme ,User-Agent=custom",
		"OTEL_EXPORTER_OTLP_COMPRESSION": "gzip",
	})
	if err := exp.ExportSpans(context.Background(), testSpans(3)); err != nil {
		t.Fatal(err)
	}
	if len(s.rc.spans) != 3 {
		t.Fatalf("receiver decoded %d spans, want 3", len(s.rc.spans))
	}
	h := s.headers[0]
	for k, want := range map[string]string{
		"Api-Key": "s=cr et,", "X-Tenant": "acme", "User-Agent": "custom",
		"Content-Encoding": "gzip", "Content-Type": "application/x-protobuf",
	} {
		if got := h.Get(k); got != want {
			t.Errorf("header %s = %q, want %q", k, got, want)
		}
	}
}

func TestOTLPUserAgent(t *testing.T) {
	s := &scripted{responses: []func(http.ResponseWriter){nil}}
	srv := httptest.NewServer(s)
	defer srv.Close()
	exp := newTestOTLP(t, map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": srv.URL + "/v1/traces"})
	if err := exp.ExportSpans(context.Background(), testSpans(1)); err != nil {
		t.Fatal(err)
	}
	if ua := s.headers[0].Get("User-Agent"); ua != "co/test (OTLP/HTTP trace exporter)" {
		t.Errorf("User-Agent %q", ua)
	}
	if s.headers[0].Get("Content-Encoding") != "" {
		t.Error("compressed without OTEL_EXPORTER_OTLP_COMPRESSION")
	}
}

// TestOTLPRedirectIsNotFollowed: a collector that answers with a redirect
// gets an error; the other host never sees the spans or the API key.
func TestOTLPRedirectIsNotFollowed(t *testing.T) {
	other := &scripted{responses: []func(http.ResponseWriter){nil}}
	elsewhere := httptest.NewServer(other)
	defer elsewhere.Close()
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+"/v1/traces", http.StatusTemporaryRedirect)
	}))
	defer collector.Close()
	exp := newTestOTLP(t, map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": collector.URL, "OTEL_EXPORTER_OTLP_HEADERS": "x-api-key=hunter2"})
	err := exp.ExportSpans(context.Background(), testSpans(1))
	if err == nil || !strings.Contains(err.Error(), "307") {
		t.Errorf("export error %v, want one naming the 307", err)
	}
	if len(other.headers) != 0 {
		t.Errorf("the redirect was followed: the other host got %d requests", len(other.headers))
	}
}

// handlerTransport serves each request with h in the caller's goroutine:
// the exporter and its collector in one testing/synctest bubble, so the
// retries' waits and the export's timeout run on the bubble's clock and a
// test asserts the exact time they took, never a window of real time.
type handlerTransport struct{ h http.Handler }

func (t handlerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	sr := r.Clone(r.Context())
	sr.RequestURI = r.URL.RequestURI()
	t.h.ServeHTTP(rec, sr)
	if r.Body != nil {
		_ = r.Body.Close()
	}
	if err := r.Context().Err(); err != nil {
		return nil, err
	}
	return rec.Result(), nil
}

// newBubbleOTLP is newTestOTLP over h, in the bubble of the calling test.
func newBubbleOTLP(t *testing.T, env map[string]string, h http.Handler) *otlpExporter {
	t.Helper()
	exp, warnings, err := newOTLPExporterOver(func(k string) string { return env[k] }, "test", handlerTransport{h})
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) > 0 {
		t.Fatalf("warnings: %q", warnings)
	}
	t.Cleanup(func() { _ = exp.Shutdown(context.Background()) })
	return exp
}

// TestOTLPRetries: the client's retries and errors (otlpclient.go). A
// throttled collector is waited out (Retry-After, within the timeout),
// other failures are errors naming the status and the body, and
// credentials in the endpoint are sent as Basic auth but never shown.
// Time is the synctest bubble's: the waits are asserted exactly.
func TestOTLPRetries(t *testing.T) {
	for _, tc := range []struct {
		name      string
		responses []func(http.ResponseWriter)
		timeoutMS string
		wantErr   string // "" for success
		wantReqs  int
		// wantGaps are the waits between requests; 0 is any backoff
		// (otlpRetry's, randomised ±50 %: 1 s, 1.5 s, 2.25 s, …).
		wantGaps []time.Duration
	}{
		{name: "503 with Retry-After, then success",
			responses: []func(http.ResponseWriter){status(503, "Retry-After", "3", "busy"), nil},
			wantReqs:  2, wantGaps: []time.Duration{3 * time.Second}},
		{name: "429 and 502 and 504 retried with backoff",
			responses: []func(http.ResponseWriter){status(429, "", "", ""), status(502, "", "", ""), status(504, "", "", ""), nil},
			wantReqs:  4, wantGaps: []time.Duration{0, 0, 0}},
		{name: "Retry-After past the timeout is not waited for",
			responses: []func(http.ResponseWriter){status(503, "Retry-After", "120", "come back later")},
			timeoutMS: "2000", wantErr: "come back later", wantReqs: 1},
		{name: "400 is not retried",
			responses: []func(http.ResponseWriter){status(400, "Content-Type", "text/plain", "bad span data\n")},
			wantErr:   "400 Bad Request (body: bad span data)", wantReqs: 1},
		{name: "500 is not retried",
			responses: []func(http.ResponseWriter){status(500, "", "", "")},
			wantErr:   "500 Internal Server Error", wantReqs: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := &scripted{responses: tc.responses}
				// With credentials and a query in the URL, which messages
				// must not show.
				env := map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://co:hunter2@collector.test/v1/traces?key=k3y"}
				if tc.timeoutMS != "" {
					env["OTEL_EXPORTER_OTLP_TIMEOUT"] = tc.timeoutMS
				}
				exp := newBubbleOTLP(t, env, s)
				start := time.Now()
				err := exp.ExportSpans(context.Background(), testSpans(2))
				took := time.Since(start)
				switch {
				case tc.wantErr == "" && err != nil:
					t.Fatalf("export failed: %v", err)
				case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
					t.Fatalf("error %v, want one with %q", err, tc.wantErr)
				case err != nil && (strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "k3y")):
					t.Errorf("error %q shows the endpoint's credentials", err)
				}
				if got := s.headers[0].Get("Authorization"); got != "Basic Y286aHVudGVyMg==" {
					t.Errorf("Authorization %q: the URL's credentials were not sent", got)
				}
				if got := s.queries[0]; got != "key=k3y" {
					t.Errorf("query %q: the URL's query was not sent", got)
				}
				if n := s.requests(); n != tc.wantReqs {
					t.Fatalf("%d requests, want %d", n, tc.wantReqs)
				}
				for i, want := range tc.wantGaps {
					gap := s.times[i+1].Sub(s.times[i])
					if want != 0 && gap != want {
						t.Errorf("retry %d after %v, want %v (Retry-After)", i+1, gap, want)
					}
					// otlpRetry: the interval grows ×1.5 to max, each
					// wait randomised ±50 % around it.
					iv := min(time.Duration(float64(otlpRetry.initial)*math.Pow(1.5, float64(i))), otlpRetry.max)
					if lo, hi := iv/2, iv*3/2; want == 0 && (gap < lo || gap > hi) {
						t.Errorf("retry %d after %v, want a backoff in [%v, %v]", i+1, gap, lo, hi)
					}
				}
				// Nothing but the waits above takes time in the bubble.
				if end := s.times[len(s.times)-1].Sub(start); took != end {
					t.Errorf("export took %v, %v after its first request: it waited after the last", took, end)
				}
				if tc.wantErr == "" && len(s.rc.spans) != 2 {
					t.Errorf("receiver got %d spans, want 2", len(s.rc.spans))
				}
			})
		})
	}
}

func TestOTLPPartialSuccess(t *testing.T) {
	pb, err := proto.Marshal(&coltracepb.ExportTraceServiceResponse{PartialSuccess: &coltracepb.ExportTracePartialSuccess{RejectedSpans: 2, ErrorMessage: "spans too old"}})
	if err != nil {
		t.Fatal(err)
	}
	empty, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{PartialSuccess: &coltracepb.ExportTracePartialSuccess{}})
	for _, tc := range []struct {
		name, ctype, body, wantErr string
	}{
		{"protobuf", "application/x-protobuf", string(pb), "spans too old (2 spans rejected)"},
		{"protobuf, nothing rejected", "application/x-protobuf", string(empty), ""},
		{"json", "application/json", `{"partialSuccess":{"rejectedSpans":"5","errorMessage":"quota"}}`, "quota (5 spans rejected)"},
		{"json, a number", "application/json", `{"partialSuccess":{"rejectedSpans":1}}`, "(1 spans rejected)"},
		{"json, nothing", "application/json", `{}`, ""},
		{"another type", "text/plain", "ok", ""},
		{"no body", "application/x-protobuf", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(&scripted{responses: []func(http.ResponseWriter){status(200, "Content-Type", tc.ctype, tc.body)}})
			defer srv.Close()
			exp := newTestOTLP(t, map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": srv.URL})
			err := exp.ExportSpans(context.Background(), testSpans(3))
			if (err == nil) != (tc.wantErr == "") || err != nil && !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("error %v, want %q", err, tc.wantErr)
			}
		})
	}
}

// certFiles writes a self-signed certificate (for the names given, or for
// client auth when there are none) and its key as PEM files.
func certFiles(t *testing.T, dns ...string) (tls.Certificate, string, string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), crand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "co test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, BasicConstraintsValid: true, IsCA: true}
	if len(dns) > 0 {
		tmpl.DNSNames, tmpl.ExtKeyUsage = dns, []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
		tmpl.IPAddresses = []net.IP{net.ParseIP("127.0.0.1")}
	} else {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	}
	der, err := x509.CreateCertificate(crand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certPath, keyPath := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder})
	if err := os.WriteFile(certPath, certPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyPath, keyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	return pair, certPath, keyPath
}

func TestOTLPTLS(t *testing.T) {
	// The httptest server's own certificate, trusted through a CA file.
	rc := &receiver{}
	srv := httptest.NewUnstartedServer(rc)
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the failed handshakes below
	srv.StartTLS()
	defer srv.Close()
	caPath := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	exp := newTestOTLP(t, map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": srv.URL, "OTEL_EXPORTER_OTLP_CERTIFICATE": caPath})
	if err := exp.ExportSpans(context.Background(), testSpans(1)); err != nil {
		t.Fatalf("with the CA: %v", err)
	}
	exp = newTestOTLP(t, map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": srv.URL})
	if err := exp.ExportSpans(context.Background(), testSpans(1)); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("without the CA: %v, want a certificate error", err)
	}

	// Mutual TLS: the server requires a client certificate.
	serverPair, serverCA, _ := certFiles(t, "localhost")
	clientPair, clientCert, clientKey := certFiles(t)
	pool := x509.NewCertPool()
	pool.AddCert(clientPair.Leaf)
	mrc := &receiver{}
	msrv := httptest.NewUnstartedServer(mrc)
	msrv.TLS = &tls.Config{Certificates: []tls.Certificate{serverPair}, ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool}
	msrv.Config.ErrorLog = log.New(io.Discard, "", 0)
	msrv.StartTLS()
	defer msrv.Close()
	env := map[string]string{
		"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT":    msrv.URL + "/v1/traces",
		"OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE": serverCA,
		"OTEL_EXPORTER_OTLP_CERTIFICATE":        caPath, // the traces one wins
		"OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE": clientCert,
		"OTEL_EXPORTER_OTLP_CLIENT_KEY":         clientKey,
	}
	exp = newTestOTLP(t, env)
	if err := exp.ExportSpans(context.Background(), testSpans(2)); err != nil {
		t.Fatalf("mutual TLS: %v", err)
	}
	if len(mrc.spans) != 2 {
		t.Errorf("mutual TLS: receiver got %d spans", len(mrc.spans))
	}
	delete(env, "OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE")
	delete(env, "OTEL_EXPORTER_OTLP_CLIENT_KEY")
	exp = newTestOTLP(t, env)
	if err := exp.ExportSpans(context.Background(), testSpans(1)); err == nil {
		t.Error("mutual TLS without a client certificate succeeded")
	}
}

func TestOTLPShutdown(t *testing.T) {
	t.Run("later exports are dropped", func(t *testing.T) {
		s := &scripted{responses: []func(http.ResponseWriter){nil}}
		srv := httptest.NewServer(s)
		defer srv.Close()
		exp := newTestOTLP(t, map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": srv.URL})
		if err := exp.Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
		if err := exp.Shutdown(context.Background()); err != nil {
			t.Fatalf("second Shutdown: %v", err)
		}
		if err := exp.ExportSpans(context.Background(), testSpans(1)); err != nil {
			t.Errorf("ExportSpans after Shutdown: %v, want nil", err)
		}
		if n := s.requests(); n != 0 {
			t.Errorf("%d requests after Shutdown", n)
		}
	})
	t.Run("an export under way is interrupted", func(t *testing.T) {
		arrived := make(chan struct{}, 1)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body) // then the server sees the client go (an error here is that going)
			arrived <- struct{}{}
			<-r.Context().Done()
		}))
		defer srv.Close()
		exp := newTestOTLP(t, map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": srv.URL, "OTEL_EXPORTER_OTLP_TIMEOUT": "60000"})
		done := make(chan error, 1)
		go func() { done <- exp.ExportSpans(context.Background(), testSpans(1)) }()
		<-arrived
		if err := exp.Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
		// The export waits on the server for a minute unless Shutdown
		// interrupts it; a test that hangs here is one where it did not.
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("interrupted export: %v, want context.Canceled", err)
		}
	})
	t.Run("a cancelled context", func(t *testing.T) {
		exp := newTestOTLP(t, map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9"})
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := exp.Shutdown(ctx); !errors.Is(err, context.Canceled) {
			t.Errorf("Shutdown with a cancelled context: %v", err)
		}
	})
}

// TestOTLPRetriesEnd: with no timeout (*_TIMEOUT=0), a collector that is
// always unavailable is retried for otlpRetry.maxElapsed, then given up;
// never for ever. On the bubble's clock: the last retry starts within the
// minute, and the export ends there.
func TestOTLPRetriesEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &scripted{responses: []func(http.ResponseWriter){status(503, "", "", "down")}}
		exp := newBubbleOTLP(t, map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector.test", "OTEL_EXPORTER_OTLP_TIMEOUT": "0"}, s)
		start := time.Now()
		err := exp.ExportSpans(context.Background(), testSpans(1))
		took := time.Since(start)
		if err == nil || !strings.Contains(err.Error(), "gave up retrying after 1m0s") || !strings.Contains(err.Error(), "503 Service Unavailable (body: down)") {
			t.Errorf("error %v, want one saying it gave up on the 503", err)
		}
		// The last wait may start just before the minute: it is at most
		// the longest backoff, 1.5 × max.
		if limit := otlpRetry.maxElapsed + otlpRetry.max*3/2; took <= otlpRetry.maxElapsed || took > limit {
			t.Errorf("gave up after %v, want after %v and by %v", took, otlpRetry.maxElapsed, limit)
		}
		if n := s.requests(); n < 8 {
			t.Errorf("%d requests in a minute of backoff from 1 s", n)
		}
	})
}

// TestOTLPTimeout: the traces-specific timeout bounds one export to a
// collector that never answers; on the bubble's clock it ends exactly then.
func TestOTLPTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		hung := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body) // the request is not looked at: read to its end, whatever it holds
			<-r.Context().Done()
		})
		exp := newBubbleOTLP(t, map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector.test", "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT": "200", "OTEL_EXPORTER_OTLP_TIMEOUT": "60000"}, hung)
		start := time.Now()
		err := exp.ExportSpans(context.Background(), testSpans(1))
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("export to a hung collector: %v, want a deadline error", err)
		}
		if took := time.Since(start); took != 200*time.Millisecond {
			t.Errorf("took %v with a 200 ms timeout", took)
		}
	})
}

// TestOTLPSetupReadsGetenv: Setup's exporter takes every variable from
// Options.Getenv, not from the process, and reports bad ones.
func TestOTLPSetupReadsGetenv(t *testing.T) {
	s := &scripted{responses: []func(http.ResponseWriter){nil}}
	srv := httptest.NewServer(s)
	defer srv.Close()
	env := map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT": srv.URL,
		"OTEL_EXPORTER_OTLP_HEADERS":  "x-from=getenv",
		"OTEL_EXPORTER_OTLP_TIMEOUT":  "soon",
		"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc",
	}
	tr := setupT(t, Options{Getenv: func(k string) string { return env[k] }})
	if !tr.OTLP() {
		t.Fatal("OTLP is off")
	}
	want := []string{
		`OTEL_EXPORTER_OTLP_TIMEOUT="soon" is ignored: not a whole number of milliseconds`,
		"OTLP over gRPC is not supported; spans are sent as HTTP/protobuf",
	}
	if !slices.Equal(tr.Warnings(), want) {
		t.Errorf("warnings %q, want %q", tr.Warnings(), want)
	}
	turn(tr.Tracer(), 1, "read_file", false)
	if err := tr.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if s.requests() == 0 || s.headers[0].Get("X-From") != "getenv" {
		t.Errorf("requests %d, headers %v", s.requests(), s.headers)
	}

	env = map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "ftp://collector"}
	tr = setupT(t, Options{Getenv: func(k string) string { return env[k] }})
	if tr.OTLP() {
		t.Error("OTLP is on with a bad endpoint")
	}
	want = []string{`OTLP export is off: OTEL_EXPORTER_OTLP_ENDPOINT="ftp://collector": the scheme must be http or https`}
	if !slices.Equal(tr.Warnings(), want) {
		t.Errorf("warnings %q, want %q", tr.Warnings(), want)
	}
}

func TestOTLPProtocolWarnings(t *testing.T) {
	for _, tc := range []struct {
		name, generic, traces, want string
	}{
		{"none", "", "", ""},
		{"http/protobuf", "http/protobuf", "", ""},
		{"grpc", "grpc", "", "OTLP over gRPC is not supported; spans are sent as HTTP/protobuf"},
		{"traces wins", "grpc", "HTTP/JSON", "OTLP http/json is not supported; spans are sent as HTTP/protobuf"},
		{"unknown", "", "thrift", `OTLP protocol "thrift" is unknown; spans are sent as HTTP/protobuf`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{
				"OTEL_EXPORTER_OTLP_ENDPOINT":        "http://127.0.0.1:9",
				"OTEL_EXPORTER_OTLP_PROTOCOL":        tc.generic,
				"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": tc.traces,
			}
			tr := setupT(t, Options{Getenv: func(k string) string { return env[k] }})
			var want []string
			if tc.want != "" {
				want = []string{tc.want}
			}
			if !tr.OTLP() || !slices.Equal(tr.Warnings(), want) {
				t.Errorf("OTLP %v, warnings %q, want %q", tr.OTLP(), tr.Warnings(), want)
			}
		})
	}
}

// TestOTLPBadValueWarnedOnce: the variables are read once, by co: a bad
// value is one warning in co's words, and nothing reads the process's
// variables again to log about them through OpenTelemetry's global logger
// (which writes to stderr, over the chat; co no longer silences it).
func TestOTLPBadValueWarnedOnce(t *testing.T) {
	var mu sync.Mutex
	var logged []string
	otel.SetLogger(funcr.New(func(prefix, args string) {
		mu.Lock()
		logged = append(logged, prefix+" "+args)
		mu.Unlock()
	}, funcr.Options{Verbosity: 1})) // errors and warnings
	defer otel.SetLogger(logr.Discard())
	rc := &receiver{}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", srv.URL)
	t.Setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "soon")
	t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", "x-tenant=acme,broken")
	tr := setupT(t, Options{}) // Getenv: the process's
	turn(tr.Tracer(), 1, "read_file", false)
	if err := tr.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`OTEL_EXPORTER_OTLP_HEADERS: pair 2 is left out: no '=' in it (write name=value, pairs separated by commas)`,
		`OTEL_EXPORTER_OTLP_TIMEOUT="soon" is ignored: not a whole number of milliseconds`,
	}
	if got := tr.Warnings(); !slices.Equal(got, want) {
		t.Errorf("warnings %q, want %q", got, want)
	}
	if len(rc.spans) != 3 {
		t.Errorf("collector got %d spans, want 3", len(rc.spans))
	}
	mu.Lock()
	defer mu.Unlock()
	if len(logged) > 0 {
		t.Errorf("OpenTelemetry's logger got %q", logged)
	}
}
