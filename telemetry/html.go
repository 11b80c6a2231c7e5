package telemetry

import (
	"embed"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"strings"

	"github.com/co-cli/co/lib/safe"
)

// web holds the viewers' assets, compiled into the binary: the pages work
// with no network.
//
//go:embed web
var web embed.FS

func asset(name string) string {
	b, err := web.ReadFile("web/" + name)
	if err != nil {
		panic("telemetry: missing asset " + name) // a build mistake
	}
	return string(b)
}

// staticCSP forbids every fetch: the page is one file with inline style
// and script, and may not load anything, even by accident.
const staticCSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"

// PageStyle is the viewers' stylesheet and PageCSP their policy, for
// another self-contained page in their look (a session's export).
func PageStyle() string { return asset("style.css") }

// PageCSP is staticCSP, for the pages PageStyle styles.
const PageCSP = staticCSP

// traceDoc is the data embedded in a static trace page.
type traceDoc struct {
	TraceID   string `json:"trace_id"`
	SessionID string `json:"session_id,omitempty"`
	Spans     []Span `json:"spans"`
}

// WriteTraceHTML writes one trace as a self-contained HTML page: the span
// tree as a waterfall, each span's attributes on expand. It references no
// file and no URL.
func WriteTraceHTML(w io.Writer, traceID string, spans []Span) error {
	spans = safeSpans(spans)
	doc := traceDoc{TraceID: traceID, Spans: spans}
	if doc.Spans == nil {
		doc.Spans = []Span{}
	}
	for _, s := range spans {
		if sid, ok := s.Resource["session.id"].(string); ok && sid != "" {
			doc.SessionID = sid
			break
		}
	}
	data, err := json.Marshal(doc) // escapes <, > and &: safe inside <script>
	if err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	fmt.Fprintf(&b, "<meta http-equiv=\"Content-Security-Policy\" content=\"%s\">\n", staticCSP)
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	b.WriteString("<link rel=\"icon\" href=\"data:,\">\n")
	traceID = safe.Text(traceID)
	fmt.Fprintf(&b, "<title>co trace %s</title>\n", html.EscapeString(short(traceID)))
	b.WriteString("<style>\n" + asset("style.css") + "</style>\n</head>\n<body class=\"static\">\n")
	fmt.Fprintf(&b, "<header class=\"top\" id=\"summary\"><h1>co trace <span class=\"mono\">%s</span></h1>"+
		"<button id=\"expand\" type=\"button\">Expand all</button><button id=\"collapse\" type=\"button\">Collapse all</button></header>\n",
		html.EscapeString(traceID))
	b.WriteString("<main id=\"trace\"></main>\n")
	b.WriteString("<script id=\"trace-data\" type=\"application/json\">")
	b.Write(data)
	b.WriteString("</script>\n")
	b.WriteString("<script>\n" + asset("waterfall.js") + "</script>\n")
	b.WriteString("<script>\n" + asset("trace.js") + "</script>\n")
	b.WriteString("</body>\n</html>\n")
	_, err = io.WriteString(w, b.String())
	return err
}

func short(id string) string {
	if len(id) > 16 {
		return id[:16]
	}
	return id
}
