package telemetry

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// otlpConfig is where and how the OTLP exporter sends, read from the
// standard OTEL_EXPORTER_OTLP_* variables.
type otlpConfig struct {
	url     string
	shown   string // url for messages, its password hidden
	headers map[string]string
	timeout time.Duration // for one export, retries included; 0: none
	gzip    bool
	tls     *tls.Config // nil: the system's roots, no client certificate
}

const (
	otlpEnvPrefix      = "OTEL_EXPORTER_OTLP_"
	otlpTracesPath     = "/v1/traces"
	otlpDefaultTimeout = 10 * time.Second
)

// otlpEnv reads the variables and keeps the warnings about them. For each
// setting X the traces-specific variable (OTEL_EXPORTER_OTLP_TRACES_X) wins
// over the generic one (OTEL_EXPORTER_OTLP_X). Values are trimmed; an empty
// one is unset.
type otlpEnv struct {
	getenv   func(string) string
	warnings []string
}

type envValue struct{ name, value string }

// set returns the variables of setting x that have a value, the specific
// one first.
func (e *otlpEnv) set(x string) []envValue {
	var out []envValue
	for _, n := range []string{otlpEnvPrefix + "TRACES_" + x, otlpEnvPrefix + x} {
		if v := strings.TrimSpace(e.getenv(n)); v != "" {
			out = append(out, envValue{n, v})
		}
	}
	return out
}

func (e *otlpEnv) first(x string) (envValue, bool) {
	if vs := e.set(x); len(vs) > 0 {
		return vs[0], true
	}
	return envValue{}, false
}

func (e *otlpEnv) warnf(format string, args ...any) {
	e.warnings = append(e.warnings, fmt.Sprintf(format, args...))
}

// otlpConfigFromEnv reads the exporter's settings from the variables
// otlptracehttp reads, with their meaning:
//
//   - OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is the URL, as is (no path: "/");
//     OTEL_EXPORTER_OTLP_ENDPOINT is a base to which /v1/traces is added.
//     A URL without a scheme is https, or http when *_INSECURE=true.
//   - *_HEADERS: key=value pairs, comma-separated, values URL-decoded;
//     *_TIMEOUT: ms for one export, retries included (10 s); *_COMPRESSION.
//   - *_CERTIFICATE: a PEM file of the CAs to trust instead of the system's;
//     *_CLIENT_CERTIFICATE and *_CLIENT_KEY: PEM files for mutual TLS.
//
// A value that would send spans elsewhere or less securely than asked is
// an error; one with a safe default is a warning and the default; both name
// the variable. Why co reads them and not otlptracehttp:
// docs/SOURCES.md#opentelemetry-the-otlp-exporters-variables.
func otlpConfigFromEnv(getenv func(string) string, readFile func(string) ([]byte, error)) (otlpConfig, []string, error) {
	e := &otlpEnv{getenv: getenv}
	cfg := otlpConfig{timeout: otlpDefaultTimeout}

	insecure := false
	for _, v := range e.set("INSECURE") {
		b, err := strconv.ParseBool(v.value)
		if err != nil {
			e.warnf("%s=%q is ignored: not true or false", v.name, v.value)
			continue
		}
		insecure = b
		break
	}
	u, err := otlpEndpoint(e, insecure)
	if err != nil {
		return cfg, e.warnings, err
	}
	cfg.url, cfg.shown = u.String(), redactedURL(u)

	if v, ok := e.first("HEADERS"); ok {
		cfg.headers = parseOTLPHeaders(e, v)
	}
	for _, v := range e.set("TIMEOUT") {
		ms, err := strconv.ParseInt(v.value, 10, 64)
		if err != nil || ms < 0 || ms > int64(time.Duration(1<<63-1)/time.Millisecond) {
			e.warnf("%s=%q is ignored: not a whole number of milliseconds", v.name, v.value)
			continue
		}
		cfg.timeout = time.Duration(ms) * time.Millisecond
		break
	}
	for _, v := range e.set("COMPRESSION") {
		switch strings.ToLower(v.value) {
		case "gzip":
			cfg.gzip = true
		case "none":
		default:
			e.warnf("%s=%q is ignored: not gzip or none", v.name, v.value)
			continue
		}
		break
	}

	tlsCfg, tlsVars, err := otlpTLS(e, readFile)
	if err != nil {
		return cfg, e.warnings, err
	}
	if tlsCfg != nil && u.Scheme != "https" {
		verb := "is"
		if len(tlsVars) > 1 {
			verb = "are"
		}
		return cfg, e.warnings, fmt.Errorf("%s %s set, but the endpoint %s is not https", strings.Join(tlsVars, " and "), verb, cfg.shown)
	}
	cfg.tls = tlsCfg
	return cfg, e.warnings, nil
}

// otlpEndpoint is the URL spans are posted to.
func otlpEndpoint(e *otlpEnv, insecure bool) (*url.URL, error) {
	ev, ok := e.first("ENDPOINT")
	if !ok {
		return nil, fmt.Errorf("neither %sENDPOINT nor %sTRACES_ENDPOINT is set", otlpEnvPrefix, otlpEnvPrefix)
	}
	name, v, signal := ev.name, ev.value, ev.name == otlpEnvPrefix+"TRACES_ENDPOINT"
	raw := v
	if !strings.Contains(v, "://") {
		// host:port[/path], as gRPC endpoints are often written.
		if insecure {
			raw = "http://" + v
		} else {
			raw = "https://" + v
		}
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%s=%q is not a URL", name, shownURL(v))
	}
	u.Scheme = strings.ToLower(u.Scheme)
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("%s=%q: the scheme must be http or https", name, shownURL(v))
	}
	if u.Host == "" {
		return nil, fmt.Errorf("%s=%q has no host", name, shownURL(v))
	}
	u.Fragment, u.RawFragment = "", ""
	if signal {
		// "MUST be used as-is", except that no path means the root.
		if u.Path == "" {
			u.Path, u.RawPath = "/", ""
		}
	} else {
		u.Path, u.RawPath = path.Join("/", u.Path, otlpTracesPath), ""
	}
	return u, nil
}

// shownURL is an endpoint as messages show it: a password in it hidden,
// and the query, which may carry a key, left out. Text that does not parse
// as a URL with a host (a scheme-less "user:secret@host" reads as scheme
// "user") loses everything up to its last '@'.
func shownURL(v string) string {
	if u, err := url.Parse(v); err == nil && (u.User != nil || !strings.Contains(v, "@")) {
		return redactedURL(u)
	}
	if i := strings.LastIndex(v, "@"); i >= 0 {
		v = "…" + v[i:]
	}
	if i := strings.IndexByte(v, '?'); i >= 0 {
		v = v[:i] + "?…"
	}
	return v
}

// redactedURL is u without its password and query.
func redactedURL(u *url.URL) string {
	c := *u
	if c.RawQuery != "" || c.ForceQuery {
		c.RawQuery, c.ForceQuery = "…", false
	}
	return c.Redacted()
}

// parseOTLPHeaders reads a W3C-baggage-like list: key=value pairs separated
// by commas, the values percent-encoded. A bad pair is left out, with a
// warning.
func parseOTLPHeaders(e *otlpEnv, v envValue) map[string]string {
	h := map[string]string{}
	// A bad pair is named by its position, never by its text: the text
	// may hold the credential ("Authorization: Bearer …" written with a
	// colon, or a base64 value cut at its '=').
	for i, pair := range strings.Split(v.value, ",") {
		if strings.TrimSpace(pair) == "" {
			continue
		}
		k, val, ok := strings.Cut(pair, "=")
		k = strings.TrimSpace(k)
		switch {
		case !ok:
			e.warnf("%s: pair %d is left out: no '=' in it (write name=value, pairs separated by commas)", v.name, i+1)
			continue
		case !isHeaderName(k):
			e.warnf("%s: pair %d is left out: its name is not a valid header name (write name=value, pairs separated by commas)", v.name, i+1)
			continue
		}
		dec, err := url.PathUnescape(val)
		if err != nil {
			e.warnf("%s: the value of %q is left out: bad %%-escape", v.name, k)
			continue
		}
		h[k] = strings.TrimSpace(dec)
	}
	return h
}

// isHeaderName: an RFC 9110 token.
func isHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c > unicode.MaxASCII || !(unicode.IsLetter(c) || unicode.IsDigit(c) || strings.ContainsRune("!#$%&'*+-.^_`|~", c)) {
			return false
		}
	}
	return true
}

// otlpTLS builds the TLS configuration from the certificate variables;
// nil when none is set. vars are the variables used, for messages.
func otlpTLS(e *otlpEnv, readFile func(string) ([]byte, error)) (_ *tls.Config, vars []string, _ error) {
	ca, hasCA := e.first("CERTIFICATE")
	cert, hasCert := e.first("CLIENT_CERTIFICATE")
	key, hasKey := e.first("CLIENT_KEY")
	if !hasCA && !hasCert && !hasKey {
		return nil, nil, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if hasCA {
		vars = append(vars, ca.name)
		pem, err := readFile(ca.value)
		if err != nil {
			return nil, vars, fmt.Errorf("%s: %w", ca.name, err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, vars, fmt.Errorf("%s: no PEM certificate in %s", ca.name, ca.value)
		}
		cfg.RootCAs = pool
	}
	switch {
	case hasCert && !hasKey:
		return nil, vars, fmt.Errorf("%s is set but %sCLIENT_KEY is not", cert.name, otlpEnvPrefix)
	case hasKey && !hasCert:
		return nil, vars, fmt.Errorf("%s is set but %sCLIENT_CERTIFICATE is not", key.name, otlpEnvPrefix)
	case hasCert:
		vars = append(vars, cert.name, key.name)
		certPEM, err := readFile(cert.value)
		if err != nil {
			return nil, vars, fmt.Errorf("%s: %w", cert.name, err)
		}
		keyPEM, err := readFile(key.value)
		if err != nil {
			return nil, vars, fmt.Errorf("%s: %w", key.name, err)
		}
		pair, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			return nil, vars, fmt.Errorf("%s and %s: %w", cert.name, key.name, err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return cfg, vars, nil
}
