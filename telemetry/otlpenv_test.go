package telemetry

import (
	"io/fs"
	"maps"
	"os"
	"slices"
	"testing"
	"time"
)

// envFiles reads "files" from a map, for the certificate variables.
func envFiles(files map[string]string) func(string) ([]byte, error) {
	return func(name string) ([]byte, error) {
		if s, ok := files[name]; ok {
			return []byte(s), nil
		}
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
}

func TestOTLPConfigFromEnv(t *testing.T) {
	const p = "OTEL_EXPORTER_OTLP_"
	for _, tc := range []struct {
		name         string
		env          map[string]string
		wantURL      string
		wantHeaders  map[string]string
		wantTimeout  time.Duration
		wantGzip     bool
		wantWarnings []string
	}{
		{name: "base endpoint gets /v1/traces",
			env: map[string]string{p + "ENDPOINT": "http://collector:4318"}, wantURL: "http://collector:4318/v1/traces"},
		{name: "base endpoint with a slash",
			env: map[string]string{p + "ENDPOINT": "http://collector:4318/"}, wantURL: "http://collector:4318/v1/traces"},
		{name: "base endpoint with a path",
			env: map[string]string{p + "ENDPOINT": "https://gateway.example/otlp/"}, wantURL: "https://gateway.example/otlp/v1/traces"},
		{name: "base endpoint trimmed, query kept",
			env: map[string]string{p + "ENDPOINT": "  https://x.example/a?tenant=1 "}, wantURL: "https://x.example/a/v1/traces?tenant=1"},
		{name: "traces endpoint as is",
			env: map[string]string{p + "TRACES_ENDPOINT": "http://collector:4318/custom/path"}, wantURL: "http://collector:4318/custom/path"},
		{name: "traces endpoint without a path is the root",
			env: map[string]string{p + "TRACES_ENDPOINT": "http://collector:4318"}, wantURL: "http://collector:4318/"},
		{name: "traces endpoint wins",
			env: map[string]string{p + "ENDPOINT": "http://a:4318", p + "TRACES_ENDPOINT": "https://b/v1/t"}, wantURL: "https://b/v1/t"},
		{name: "no scheme is https",
			env: map[string]string{p + "ENDPOINT": "collector:4318"}, wantURL: "https://collector:4318/v1/traces"},
		{name: "no scheme, insecure",
			env: map[string]string{p + "ENDPOINT": "collector:4318", p + "INSECURE": "true"}, wantURL: "http://collector:4318/v1/traces"},
		{name: "no scheme, traces insecure wins",
			env:     map[string]string{p + "TRACES_ENDPOINT": "[::1]:4318/v1/traces", p + "INSECURE": "true", p + "TRACES_INSECURE": "FALSE"},
			wantURL: "https://[::1]:4318/v1/traces"},
		{name: "insecure does not change a scheme",
			env: map[string]string{p + "ENDPOINT": "https://collector", p + "INSECURE": "true"}, wantURL: "https://collector/v1/traces"},
		{name: "bad insecure",
			env:     map[string]string{p + "ENDPOINT": "collector", p + "TRACES_INSECURE": "yes", p + "INSECURE": "true"},
			wantURL: "http://collector/v1/traces", wantWarnings: []string{`OTEL_EXPORTER_OTLP_TRACES_INSECURE="yes" is ignored: not true or false`}},
		{name: "uppercase scheme",
			env: map[string]string{p + "ENDPOINT": "HTTP://Collector:4318"}, wantURL: "http://Collector:4318/v1/traces"},
		{name: "headers",
			env:     map[string]string{p + "ENDPOINT": "http://c", p + "HEADERS": " api-key = s%3Dcr%20et ,x-b=1=2,,empty="},
			wantURL: "http://c/v1/traces", wantHeaders: map[string]string{"api-key": "s=cr et", "x-b": "1=2", "empty": ""}},
		{name: "traces headers replace the generic ones",
			env:     map[string]string{p + "ENDPOINT": "http://c", p + "HEADERS": "a=1,b=2", p + "TRACES_HEADERS": "c=3"},
			wantURL: "http://c/v1/traces", wantHeaders: map[string]string{"c": "3"}},
		{name: "bad headers are left out",
			env:         map[string]string{p + "ENDPOINT": "http://c", p + "HEADERS": "novalue,bad key=1,ok=1,esc=%zz,ü=2"},
			wantURL:     "http://c/v1/traces",
			wantHeaders: map[string]string{"ok": "1"},
			wantWarnings: []string{
				`OTEL_EXPORTER_OTLP_HEADERS: pair 1 is left out: no '=' in it (write name=value, pairs separated by commas)`,
				`OTEL_EXPORTER_OTLP_HEADERS: pair 2 is left out: its name is not a valid header name (write name=value, pairs separated by commas)`,
				`OTEL_EXPORTER_OTLP_HEADERS: the value of "esc" is left out: bad %-escape`,
				`OTEL_EXPORTER_OTLP_HEADERS: pair 5 is left out: its name is not a valid header name (write name=value, pairs separated by commas)`,
			}},
		// A pair written wrong may hold the credential: it is named by
		// its position only.
		{name: "a bad pair's text is not shown",
			env:         map[string]string{p + "ENDPOINT": "http://c", p + "HEADERS": "Authorization: Bearer sk-live-SECRET,Authorization: Basic dXNlcjpwYXNzd29yZA==,x-api-key:SECRET="},
			wantURL:     "http://c/v1/traces",
			wantHeaders: map[string]string{},
			wantWarnings: []string{
				`OTEL_EXPORTER_OTLP_HEADERS: pair 1 is left out: no '=' in it (write name=value, pairs separated by commas)`,
				`OTEL_EXPORTER_OTLP_HEADERS: pair 2 is left out: its name is not a valid header name (write name=value, pairs separated by commas)`,
				`OTEL_EXPORTER_OTLP_HEADERS: pair 3 is left out: its name is not a valid header name (write name=value, pairs separated by commas)`,
			}},
		{name: "timeout",
			env: map[string]string{p + "ENDPOINT": "http://c", p + "TIMEOUT": "2500"}, wantURL: "http://c/v1/traces", wantTimeout: 2500 * time.Millisecond},
		{name: "traces timeout wins",
			env: map[string]string{p + "ENDPOINT": "http://c", p + "TIMEOUT": "2500", p + "TRACES_TIMEOUT": "0"}, wantURL: "http://c/v1/traces", wantTimeout: 0},
		{name: "bad traces timeout falls back to the generic one",
			env:     map[string]string{p + "ENDPOINT": "http://c", p + "TIMEOUT": "2500", p + "TRACES_TIMEOUT": "2.5s"},
			wantURL: "http://c/v1/traces", wantTimeout: 2500 * time.Millisecond,
			wantWarnings: []string{`OTEL_EXPORTER_OTLP_TRACES_TIMEOUT="2.5s" is ignored: not a whole number of milliseconds`}},
		{name: "bad timeout is the default",
			env:     map[string]string{p + "ENDPOINT": "http://c", p + "TIMEOUT": "-1"},
			wantURL: "http://c/v1/traces", wantTimeout: 10 * time.Second,
			wantWarnings: []string{`OTEL_EXPORTER_OTLP_TIMEOUT="-1" is ignored: not a whole number of milliseconds`}},
		{name: "gzip",
			env: map[string]string{p + "ENDPOINT": "http://c", p + "COMPRESSION": "gzip"}, wantURL: "http://c/v1/traces", wantGzip: true},
		{name: "traces compression wins",
			env: map[string]string{p + "ENDPOINT": "http://c", p + "COMPRESSION": "gzip", p + "TRACES_COMPRESSION": "none"}, wantURL: "http://c/v1/traces"},
		{name: "unknown compression",
			env:     map[string]string{p + "ENDPOINT": "http://c", p + "COMPRESSION": "zstd"},
			wantURL: "http://c/v1/traces", wantWarnings: []string{`OTEL_EXPORTER_OTLP_COMPRESSION="zstd" is ignored: not gzip or none`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, warnings, err := otlpConfigFromEnv(func(k string) string { return tc.env[k] }, envFiles(nil))
			if err != nil {
				t.Fatal(err)
			}
			if cfg.url != tc.wantURL {
				t.Errorf("url %q, want %q", cfg.url, tc.wantURL)
			}
			if tc.wantHeaders != nil && !maps.Equal(cfg.headers, tc.wantHeaders) {
				t.Errorf("headers %q, want %q", cfg.headers, tc.wantHeaders)
			}
			wantTimeout := tc.wantTimeout
			if wantTimeout == 0 && tc.env[p+"TRACES_TIMEOUT"] != "0" {
				wantTimeout = otlpDefaultTimeout
			}
			if cfg.timeout != wantTimeout {
				t.Errorf("timeout %v, want %v", cfg.timeout, wantTimeout)
			}
			if cfg.gzip != tc.wantGzip {
				t.Errorf("gzip %v", cfg.gzip)
			}
			if !slices.Equal(warnings, tc.wantWarnings) {
				t.Errorf("warnings %q, want %q", warnings, tc.wantWarnings)
			}
		})
	}
}

func TestOTLPConfigFromEnvErrors(t *testing.T) {
	const p = "OTEL_EXPORTER_OTLP_"
	_, cert, key := certFiles(t)
	certPEM, keyPEM := mustRead(t, cert), mustRead(t, key)
	files := map[string]string{"/ca.pem": certPEM, "/cert.pem": certPEM, "/key.pem": keyPEM, "/junk": "not PEM"}
	for _, tc := range []struct {
		name string
		env  map[string]string
		want string
	}{
		{"other scheme", map[string]string{p + "ENDPOINT": "ftp://collector"},
			`OTEL_EXPORTER_OTLP_ENDPOINT="ftp://collector": the scheme must be http or https`},
		{"unix socket", map[string]string{p + "TRACES_ENDPOINT": "unix:///run/otel.sock"},
			`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT="unix:///run/otel.sock": the scheme must be http or https`},
		{"a password is not shown", map[string]string{p + "ENDPOINT": "ftp://user:hunter2@collector"},
			`OTEL_EXPORTER_OTLP_ENDPOINT="ftp://user:xxxxx@collector": the scheme must be http or https`},
		{"nor in a value that is not a URL", map[string]string{p + "ENDPOINT": "http://user:hunter2@[::1"},
			`OTEL_EXPORTER_OTLP_ENDPOINT="…@[::1" is not a URL`},
		{"nor in a scheme-less value that is not a URL", map[string]string{p + "ENDPOINT": "user:hunter2@host:4318/%zz"},
			`OTEL_EXPORTER_OTLP_ENDPOINT="…@host:4318/%zz" is not a URL`},
		{"nor a key in the query", map[string]string{p + "ENDPOINT": "ftp://collector/?api_key=hunter2"},
			`OTEL_EXPORTER_OTLP_ENDPOINT="ftp://collector/?…": the scheme must be http or https`},
		{"nor a key in the query of a value that is not a URL", map[string]string{p + "ENDPOINT": "http://[::1/?api_key=hunter2"},
			`OTEL_EXPORTER_OTLP_ENDPOINT="http://[::1/?…" is not a URL`},
		{"no host", map[string]string{p + "ENDPOINT": "http:///v1/traces"},
			`OTEL_EXPORTER_OTLP_ENDPOINT="http:///v1/traces" has no host`},
		{"not a URL", map[string]string{p + "ENDPOINT": "http://[::1"},
			`OTEL_EXPORTER_OTLP_ENDPOINT="http://[::1" is not a URL`},
		{"missing CA file", map[string]string{p + "ENDPOINT": "https://c", p + "CERTIFICATE": "/nope.pem"},
			"OTEL_EXPORTER_OTLP_CERTIFICATE: open /nope.pem: file does not exist"},
		{"CA file without a certificate", map[string]string{p + "ENDPOINT": "https://c", p + "TRACES_CERTIFICATE": "/junk"},
			"OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE: no PEM certificate in /junk"},
		{"client certificate without key", map[string]string{p + "ENDPOINT": "https://c", p + "CLIENT_CERTIFICATE": "/cert.pem"},
			"OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE is set but OTEL_EXPORTER_OTLP_CLIENT_KEY is not"},
		{"client key without certificate", map[string]string{p + "ENDPOINT": "https://c", p + "TRACES_CLIENT_KEY": "/key.pem"},
			"OTEL_EXPORTER_OTLP_TRACES_CLIENT_KEY is set but OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE is not"},
		{"client key that does not match", map[string]string{p + "ENDPOINT": "https://c", p + "CLIENT_CERTIFICATE": "/cert.pem", p + "CLIENT_KEY": "/junk"},
			"OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE and OTEL_EXPORTER_OTLP_CLIENT_KEY: tls: failed to find any PEM data in key input"},
		{"TLS files with an http endpoint", map[string]string{p + "ENDPOINT": "http://c", p + "CERTIFICATE": "/ca.pem"},
			"OTEL_EXPORTER_OTLP_CERTIFICATE is set, but the endpoint http://c/v1/traces is not https"},
		{"TLS files with an insecure endpoint", map[string]string{p + "ENDPOINT": "c:4318", p + "INSECURE": "true", p + "CLIENT_CERTIFICATE": "/cert.pem", p + "CLIENT_KEY": "/key.pem"},
			"OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE and OTEL_EXPORTER_OTLP_CLIENT_KEY are set, but the endpoint http://c:4318/v1/traces is not https"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := otlpConfigFromEnv(func(k string) string { return tc.env[k] }, envFiles(files))
			if err == nil || err.Error() != tc.want {
				t.Errorf("error %v\nwant %s", err, tc.want)
			}
		})
	}
	// A good set, for contrast.
	cfg, _, err := otlpConfigFromEnv(func(k string) string {
		return map[string]string{p + "ENDPOINT": "https://c", p + "CERTIFICATE": "/ca.pem", p + "CLIENT_CERTIFICATE": "/cert.pem", p + "CLIENT_KEY": "/key.pem"}[k]
	}, envFiles(files))
	if err != nil || cfg.tls == nil || cfg.tls.RootCAs == nil || len(cfg.tls.Certificates) != 1 {
		t.Errorf("good TLS files: %v, %+v", err, cfg.tls)
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
