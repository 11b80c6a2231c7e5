package mcp

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"syscall"
)

// statusSeen is the transport of a login's connection to the server: it
// keeps the last answer that was an HTTP error, which the SDK reports only
// as its status text ("sending \"initialize\": Internal Server Error").
type statusSeen struct {
	base   http.RoundTripper
	mu     sync.Mutex
	status int
	url    string
}

func (t *statusSeen) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err == nil && resp.StatusCode >= 400 {
		t.mu.Lock()
		t.status, t.url = resp.StatusCode, req.URL.String()
		t.mu.Unlock()
	}
	return resp, err
}

func (t *statusSeen) last() (int, string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.status, t.url
}

// loginFailed is the error of a login that could not talk to the server
// or its authorization server: which server, the URL tried, what failed
// (the connection refused, the host not found, TLS, an HTTP status, no
// answer in time) and what to do. An error it cannot name keeps its own
// text, after the server's name and URL.
func (s *server) loginFailed(u string, err error, seen *statusSeen, unexp *unexpander) error {
	name := s.cfg.Name
	tried := u
	var ue *url.Error
	if errors.As(err, &ue) && ue.URL != "" {
		tried = ue.URL
	}
	tried = unexp.text(tried)
	again := "then run co mcp login " + name + " again."
	check := "check mcp_servers." + name + ".url"
	if tried != unexp.text(u) {
		check = "that address came from the server's authorization metadata; check mcp_servers." + name + ".url, or ask the server's operator"
	}
	var dns *net.DNSError
	var hostErr x509.HostnameError
	var authErr x509.UnknownAuthorityError
	var invalidErr x509.CertificateInvalidError
	var verifyErr *tls.CertificateVerificationError
	var recErr tls.RecordHeaderError
	var why string
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		why = fmt.Sprintf("could not connect to %s: connection refused (nothing listens there) — start the server, or %s; %s", tried, check, again)
	case errors.As(err, &dns):
		why = fmt.Sprintf("could not connect to %s: cannot resolve the host %s (DNS) — %s; %s", tried, dns.Name, check, again)
	case errors.As(err, &hostErr), errors.As(err, &authErr), errors.As(err, &invalidErr), errors.As(err, &verifyErr):
		why = fmt.Sprintf("the TLS connection to %s failed: its certificate is not trusted (%v) — %s (the host's name, https or http), "+
			"or have the certificate's authority trusted by this machine; %s", tried, tlsCause(err), check, again)
	case errors.As(err, &recErr) || strings.Contains(err.Error(), "server gave HTTP response to HTTPS client"):
		// net/http turns a plain HTTP answer to a TLS hello into that error.
		why = fmt.Sprintf("the TLS connection to %s failed: the server answers plain HTTP there — the URL may need http:// rather than https://; %s; %s",
			tried, check, again)
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded):
		why = fmt.Sprintf("no answer from %s in time — check that the server is up and reachable from here; %s", tried, again)
	}
	if why == "" {
		// 401 and 403 are the authorization flow's, which says more.
		if status, at := seen.last(); status != 0 && status != http.StatusUnauthorized && status != http.StatusForbidden {
			at = unexp.text(at)
			what := fmt.Sprintf("%s answered HTTP %d %s", at, status, http.StatusText(status))
			switch {
			case status >= 500:
				why = what + " — the server failed; try again later, or ask its operator (its log says why); " + again
			case status == http.StatusNotFound || status == http.StatusMethodNotAllowed:
				why = what + " — no MCP endpoint there; " + check + " (the server's MCP endpoint, often ending in /mcp); " + again
			default:
				why = what + " (" + unexp.text(err.Error()) + ") — " + check + "; " + again
			}
		}
	}
	if why == "" {
		return fmt.Errorf("logging in to MCP server %s at %s: %s", name, unexp.text(u), unexp.text(err.Error()))
	}
	return fmt.Errorf("logging in to MCP server %s failed: %s", name, why)
}

// tlsCause is the certificate's problem in x509's words, without the
// request around it.
func tlsCause(err error) error {
	var verifyErr *tls.CertificateVerificationError
	if errors.As(err, &verifyErr) && verifyErr.Err != nil {
		return verifyErr.Err
	}
	for e := err; e != nil; e = errors.Unwrap(e) {
		switch e.(type) {
		case x509.HostnameError, x509.UnknownAuthorityError, x509.CertificateInvalidError:
			return e
		}
	}
	return err
}
