package provider

import (
	"errors"
	"io"
	"net"
	"net/http"
	"syscall"
)

// Unreachable reports whether err says the provider could not be reached
// or could not answer now, so that the same request may succeed later: no
// connection (refused, reset, no route, a host not found, a timeout), a
// stream that sent nothing for the stall timeout, a 5xx or a 429 once the
// client's own retries ran out. An answer that asking again cannot change
// is not: a refused key, a wrong address or model (4xx), an exhausted
// daily quota (QuotaError), a request over the context window, a 500 that
// names a refusal of the server's setup (images without a projector, tools
// without --jinja). A scheduled run tries again on it (internal/cli).
func Unreachable(err error) bool {
	if err == nil {
		return false
	}
	var quota *QuotaError
	if errors.As(err, &quota) {
		return false
	}
	if _, ok := AsContextExceeded(err); ok {
		return false
	}
	status, msg := statusMessage(err)
	switch {
	case status >= 500:
		return !refusesImages(msg) && !needsJinja(msg)
	case status == http.StatusTooManyRequests:
		return true
	case status != 0:
		return false
	}
	if errors.Is(err, ErrStalled) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return true
	}
	for _, e := range []error{syscall.ECONNREFUSED, syscall.ECONNRESET, syscall.ECONNABORTED, syscall.ENETUNREACH, syscall.EHOSTUNREACH, syscall.ETIMEDOUT} {
		if errors.Is(err, e) {
			return true
		}
	}
	var dnsErr *net.DNSError
	var opErr *net.OpError
	var netErr net.Error
	return errors.As(err, &dnsErr) || errors.As(err, &opErr) || errors.As(err, &netErr) && netErr.Timeout()
}
