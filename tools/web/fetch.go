package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html/charset"

	"github.com/co-cli/co/tools"
)

// Fetch is web_fetch.
type Fetch struct{ s *Session }

func (t *Fetch) Name() string       { return "web_fetch" }
func (t *Fetch) Class() tools.Class { return tools.ReadOnly }
func (t *Fetch) Description() string {
	return "Fetch one web page by URL (http or https) and return its content: HTML as markdown, text and JSON as they are; " +
		"a PDF as its text (page by page); an image as a line giving its type, size and dimensions; other types (archives, audio) are described, not shown. At most max_chars characters (default 20000); " +
		"truncated says when the page was cut. Follows up to 5 redirects. Private, loopback and cloud-metadata addresses are refused. " +
		"A URL that did not come from the user or an earlier web_search/web_fetch result asks the user first."
}
func (t *Fetch) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"url":{"type":"string","description":"The http or https URL to fetch."},` +
		`"max_chars":{"type":"integer","minimum":1,"maximum":100000,"description":"Most characters of content to return (default 20000)."}` +
		`},"required":["url"],"additionalProperties":false}`)
}

// ObservePrompt records the URLs the user wrote: those run without asking.
func (t *Fetch) ObservePrompt(text string) { t.s.Observe(text) }

// ObserveAttached records the URLs in files the user attached as seen, like
// those of an earlier result: the model may have written them there.
func (t *Fetch) ObserveAttached(text string) { t.s.record(extractURLs(text, true), false) }

type fetchArgs struct {
	URL      string `json:"url"`
	MaxChars int    `json:"max_chars"`
}

// Check lets a URL run without asking only if it came from the user or an
// earlier result; any other URL asks, showing it whole.
func (t *Fetch) Check(_ context.Context, raw json.RawMessage) tools.Check {
	var a fetchArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return tools.Check{Decision: tools.Ask, Reason: "the arguments could not be read"}
	}
	u, err := parse(a.URL)
	if err != nil {
		// Refused by Run before any request, whatever happens meanwhile.
		return tools.Check{Decision: tools.Allow, Reason: "the URL will be refused without a request: " + err.Error()}
	}
	out := t.s.outbound(u)
	if t.s.Seen(u) {
		// After untrusted content the agent asks for this call and puts
		// this reason after its own, so it must say where the URL came
		// from: a page that chose it, unless the user gave it.
		why := "the URL was in an earlier web result"
		if out.Exact {
			why = "you gave this URL"
		}
		return tools.Check{Decision: tools.Allow, Reason: why, Outbound: out}
	}
	host := strings.ToLower(u.Hostname())
	return tools.Check{
		Outbound:   out,
		Decision:   tools.Ask,
		Reason:     "this URL did not come from you or an earlier result: a prompt-injected page could use it to send data out",
		Scope:      "web_fetch:" + host,
		ScopeLabel: "any URL on " + host,
		Preview:    "GET " + u.String(),
		NoYolo:     true, // yolo must not switch the exfiltration guard off
		// What Seen lets through: a URL the user wrote (ObservePrompt).
		Unattended: "write the URL in your request: a URL you give is fetched without asking",
	}
}

func (t *Fetch) Run(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	var a fetchArgs
	if err := tools.Decode(t.Name(), raw, &a); err != nil {
		return tools.Result{}, err
	}
	u, err := parse(a.URL)
	if err != nil {
		return tools.Result{}, err
	}
	maxChars := tools.Clamp(a.MaxChars, DefaultMaxChars, MaxMaxChars)
	s := t.s
	rctx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return tools.Result{}, tools.Retryf("url %q cannot be requested: %v", a.URL, err)
	}
	// The address of each hop's connection, to tell an intranet page.
	var mu sync.Mutex
	var addrs []netip.AddrPort
	req = req.WithContext(httptrace.WithClientTrace(rctx, &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) {
		if ap, err := netip.ParseAddrPort(i.Conn.RemoteAddr().String()); err == nil {
			mu.Lock()
			addrs = append(addrs, ap)
			mu.Unlock()
		}
	}}))
	origin := func(u *url.URL) tools.Origin {
		mu.Lock()
		defer mu.Unlock()
		return pageOrigin(u, s.intranet(u, addrs))
	}
	req.Header.Set("User-Agent", userAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,text/plain;q=0.9,application/json;q=0.9,*/*;q=0.5")
	resp, err := s.fetch.Do(req)
	mu.Lock()
	reached := len(addrs) > 0
	mu.Unlock()
	if reached { // a server got the request: undo lists it, as not undoable
		s.journalled(ctx, t.Name(), "fetched "+u.Redacted())
	}
	if err != nil {
		if ctx.Err() != nil {
			return tools.Result{}, ctx.Err()
		}
		res := tools.Result{}
		if answered(u, err) {
			// The error names what a server chose (a redirect's URL):
			// the page's words, as untrusted as its body.
			res.Origins = []tools.Origin{origin(u)}
		}
		return res, fetchError(u, err, s.opts.Timeout.String())
	}
	defer resp.Body.Close()
	final := resp.Request.URL
	// From here the server has answered: every result, a failure too,
	// carries what it chose (a redirect's URL, its headers).
	origins := []tools.Origin{origin(final)}

	ct := resp.Header.Get("Content-Type")
	mt, _, _ := mime.ParseMediaType(ct)
	kind := classify(mt)
	meta := map[string]any{"url": final.String(), "status": resp.StatusCode, "truncated": false}
	if final.String() != u.String() {
		meta["redirected_from"] = u.String()
	}
	var body []byte
	rawTruncated := false
	if kind != binaryKind || mt == "" || generic(mt) {
		rd := io.Reader(resp.Body)
		if mt == "" || generic(mt) {
			// Sniffed from its first bytes, then read as what it is.
			head := make([]byte, 512)
			n, _ := io.ReadFull(resp.Body, head)
			head = head[:n]
			if mt = tools.MediaType(mt, head); mt == "" {
				mt = "text/plain"
			}
			kind = classify(mt)
			rd = io.MultiReader(bytes.NewReader(head), resp.Body)
		}
		limit := s.opts.MaxBytes
		switch kind {
		case pdfKind:
			limit = tools.MaxMediaBytes // a PDF is read whole or not at all
		case imageKind:
			limit = min(limit, imageHead) // enough for its dimensions
		}
		if kind == pdfKind && resp.ContentLength > limit {
			// Said too large from its length, not after reading 32 MiB.
			body, rawTruncated = nil, true
		} else {
			body, err = io.ReadAll(io.LimitReader(rd, limit+1))
		}
		if err != nil && len(body) == 0 {
			return tools.Result{Origins: origins}, tools.Retryf("reading %s failed: %v", final, err)
		}
		if err != nil && kind == pdfKind { // a PDF's start is no PDF
			return tools.Result{Origins: origins}, tools.Retryf("reading %s failed after %s: %v", final, tools.Size(int64(len(body))), err)
		}
		if int64(len(body)) > limit {
			body, rawTruncated = body[:limit], true
		}
	}
	meta["content_type"] = mt

	if resp.StatusCode >= 400 {
		excerpt := ""
		if kind == textKind || kind == htmlKind {
			excerpt = strings.TrimSpace(tools.CutRunes(plainExcerpt(body, ct, kind, final), 300))
		}
		msg := fmt.Sprintf("%s answered HTTP %d %s", final, resp.StatusCode, http.StatusText(resp.StatusCode))
		if excerpt != "" {
			msg += ": " + excerpt
		}
		return tools.Result{Origins: origins}, &tools.Retry{Msg: msg}
	}

	size := resp.ContentLength
	if size < 0 && body != nil && !rawTruncated {
		size = int64(len(body))
	}
	switch kind {
	case pdfKind:
		// Links in a PDF count as links in a page (followed without
		// asking until untrusted content makes outbound calls ask).
		s.record([]string{final.String()}, false)
		if rawTruncated {
			meta["truncated"] = true
			what := "over the " + tools.Size(tools.MaxMediaBytes) + " co reads"
			if size > 0 {
				what = tools.Size(size) + ", " + what
			}
			return tools.Result{Display: fmt.Sprintf("(PDF from %s: %s, so its text was not read; ask the user for a smaller copy or the pages needed)", final, what), Meta: meta, Origins: origins}, nil
		}
		text, truncated := tools.PDFText(body, int64(len(body)), final.String(), maxChars)
		s.record(extractURLs(text, false), false)
		meta["truncated"] = truncated
		return tools.Result{Display: text, Meta: meta, Origins: origins}, nil
	case imageKind:
		s.record([]string{final.String()}, false)
		return tools.Result{Display: tools.DescribeImage(body, mt, size, final.String()), Meta: meta, Origins: origins}, nil
	}

	if kind == binaryKind {
		sz := "size unknown"
		if size >= 0 {
			sz = tools.Size(size)
		}
		s.record([]string{final.String()}, false)
		return tools.Result{Display: fmt.Sprintf("(%s content from %s, %s: not shown; web_fetch returns text, HTML, JSON and the text of PDFs)", mt, final, sz), Meta: meta, Origins: origins}, nil
	}

	text, err := decode(body, ct)
	if err != nil {
		return tools.Result{Origins: origins}, tools.Retryf("the content of %s could not be decoded: %v", final, err)
	}
	if kind == htmlKind {
		md, err := toMarkdown(rctx, text, final)
		if err != nil {
			return tools.Result{Origins: origins}, fmt.Errorf("turning %s into markdown: %w", final, err)
		}
		text = md
	}
	s.record(append([]string{final.String()}, extractURLs(text, false)...), false)

	total := utf8.RuneCountInString(text)
	truncated := rawTruncated
	if total > maxChars {
		text = tools.CutRunes(text, maxChars)
		truncated = true
	}
	meta["truncated"] = truncated
	switch {
	case total > maxChars:
		text += fmt.Sprintf("\n\n[truncated: showed %d of %d characters; fetch again with a larger max_chars to see more]", maxChars, total)
	case rawTruncated:
		text += fmt.Sprintf("\n\n[truncated: the page is larger than %s; only its start was read]", tools.Size(s.opts.MaxBytes))
	}
	if strings.TrimSpace(text) == "" {
		text = fmt.Sprintf("(%s returned no text)", final)
	}
	return tools.Result{Display: text, Meta: meta, Origins: origins}, nil
}

type kind int

const (
	textKind kind = iota
	htmlKind
	binaryKind
	pdfKind
	imageKind
)

// imageHead is the most of an image read: its header holds the dimensions.
const imageHead = 1 << 20

// generic is a media type that says nothing: the body is sniffed.
func generic(mt string) bool {
	return mt == "application/octet-stream" || mt == "binary/octet-stream"
}

// classify says how a media type is shown.
func classify(mt string) kind {
	switch {
	case mt == "text/html" || mt == "application/xhtml+xml":
		return htmlKind
	case strings.HasPrefix(mt, "text/"),
		mt == "application/json", strings.HasSuffix(mt, "+json"),
		mt == "application/xml", strings.HasSuffix(mt, "+xml"),
		mt == "application/javascript", mt == "application/ecmascript",
		mt == "application/x-yaml", mt == "application/yaml", mt == "application/toml",
		mt == "application/x-ndjson":
		return textKind
	case mt == "":
		return textKind // sniffed after reading
	case tools.IsPDF(mt, nil):
		return pdfKind
	case strings.HasPrefix(mt, "image/") && mt != "image/svg+xml":
		return imageKind
	}
	return binaryKind
}

// decode turns body into UTF-8 using the charset of the content type (or,
// for HTML, its <meta>).
func decode(body []byte, contentType string) (string, error) {
	r, err := charset.NewReader(bytes.NewReader(body), contentType)
	if err != nil {
		return strings.ToValidUTF8(string(body), "\uFFFD"), nil
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return "", err
	}
	return strings.ToValidUTF8(string(b), "\uFFFD"), nil
}

func toMarkdown(ctx context.Context, html string, page *url.URL) (string, error) {
	conv := converter.NewConverter(converter.WithPlugins(
		base.NewBasePlugin(), commonmark.NewCommonmarkPlugin(), table.NewTablePlugin(),
	))
	return conv.ConvertString(html, converter.WithDomain(page.String()), converter.WithContext(ctx))
}

func plainExcerpt(body []byte, ct string, k kind, final *url.URL) string {
	text, err := decode(body, ct)
	if err != nil {
		return ""
	}
	if k == htmlKind {
		if md, err := toMarkdown(context.Background(), text, final); err == nil {
			text = md
		}
	}
	return strings.Join(strings.Fields(text), " ")
}

// fetchError explains a failed request to the model.
// answered says whether err came after a server answered the request for u:
// a redirect was followed (to a URL the server chose) or refused.
func answered(u *url.URL, err error) bool {
	var re *redirectError
	var ue *url.Error
	return errors.As(err, &re) || (errors.As(err, &ue) && ue.URL != u.String())
}

func fetchError(u *url.URL, err error, timeout string) error {
	var be *BlockedError
	var re *redirectError
	var dns *net.DNSError
	var ue *url.Error
	switch {
	case errors.As(err, &be):
		return tools.Retryf("refused to fetch %s: %v", u, be)
	case errors.As(err, &re):
		return tools.Retryf("%s: %s", u, re.msg)
	case errors.As(err, &dns):
		return tools.Retryf("%s: the host %q could not be resolved; check the URL", u, dns.Name)
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ue) && ue.Timeout()):
		return tools.Retryf("%s did not answer within %s", u, timeout)
	}
	return tools.Retryf("fetching %s failed: %v", u, err)
}
