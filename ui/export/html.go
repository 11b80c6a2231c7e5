package export

import (
	"fmt"
	"html"
	"io"
	"strings"

	"github.com/co-cli/co/lib/safe"
	"github.com/co-cli/co/sessions"
	"github.com/co-cli/co/telemetry"
)

// pageStyle is what a conversation adds to the viewers' stylesheet.
const pageStyle = `
.conv { padding: 8px 16px 24px; max-width: 980px; }
.step { border: 1px solid var(--line); border-radius: 6px; margin: 10px 0; background: var(--bg); }
.step > h3 { margin: 0; padding: 4px 10px; font-size: 12px; border-bottom: 1px solid var(--line); background: var(--panel); }
.step .body { padding: 6px 10px; }
.step pre { margin: 0; white-space: pre-wrap; word-break: break-word; max-height: 480px; overflow: auto; }
.step.user > h3 { color: var(--agent); }
.step.assistant > h3 { color: var(--llm); }
.step.call > h3, .step.result > h3 { color: var(--tool); }
.step.note, .step.decision, .step.summary { border-style: dashed; }
.step.undone, .step.summarised { opacity: .6; }
.untrusted { border-color: var(--error); }
.untrusted .warn { color: var(--error); font-weight: 600; padding: 4px 10px; }
.mark { color: var(--error); font-weight: 600; margin-left: 8px; }
dl.info { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 8px 16px; }
dl.info dt { color: var(--muted); } dl.info dd { margin: 0; }
`

// writeHTML writes d as one page that loads nothing: the viewers' style
// inline, no script, every text escaped.
func writeHTML(w io.Writer, d sessions.Exported) error {
	esc := func(s string) string { return html.EscapeString(safe.Text(s)) }
	var b strings.Builder
	b.WriteString("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	fmt.Fprintf(&b, "<meta http-equiv=\"Content-Security-Policy\" content=\"%s\">\n", telemetry.PageCSP)
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<link rel=\"icon\" href=\"data:,\">\n")
	title := d.Session.Title
	if title == "" {
		title = "(untitled)"
	}
	fmt.Fprintf(&b, "<title>co session %s</title>\n", esc(oneLine(title)))
	b.WriteString("<style>\n" + telemetry.PageStyle() + pageStyle + "</style>\n</head>\n<body class=\"static\">\n")
	fmt.Fprintf(&b, "<header class=\"top\"><h1>co session <span class=\"mono\">%s</span></h1><span class=\"meta\">%s</span></header>\n",
		esc(d.Session.ID), esc(oneLine(title)))
	b.WriteString("<dl class=\"info\" id=\"info\">\n")
	for _, l := range header(d) {
		k, v, _ := strings.Cut(l, ": ")
		fmt.Fprintf(&b, "<dt>%s</dt><dd>%s</dd>\n", esc(k), esc(v))
	}
	b.WriteString("</dl>\n<main class=\"conv\" id=\"conversation\">\n")
	for _, s := range steps(d) {
		class := "step " + s.kind
		if s.mark != "" {
			class += " " + s.mark
		}
		if s.untrusted != "" {
			class += " untrusted"
		}
		fmt.Fprintf(&b, "<section class=\"%s\"><h3>%s", class, esc(s.label()))
		if n := markNote(s.mark); n != "" {
			fmt.Fprintf(&b, "<span class=\"mark\">%s</span>", esc(n))
		}
		b.WriteString("</h3>\n")
		if s.untrusted != "" {
			fmt.Fprintf(&b, "<div class=\"warn\">%s from: %s</div>\n", esc(UntrustedNote), esc(s.untrusted))
		}
		if s.sources != "" {
			fmt.Fprintf(&b, "<div class=\"body muted\">Source: %s</div>\n", esc(s.sources))
		}
		body := s.text
		if s.kind == "call" {
			body = s.code
		}
		if s.kind != "decision" && body != "" {
			fmt.Fprintf(&b, "<div class=\"body\"><pre>%s</pre></div>\n", esc(strings.TrimRight(body, "\n")))
		}
		if s.cut {
			b.WriteString("<div class=\"body muted\">[interrupted]</div>\n")
		}
		for _, a := range s.atts {
			fmt.Fprintf(&b, "<div class=\"body muted\">Attached: %s</div>\n", esc(a))
		}
		b.WriteString("</section>\n")
	}
	b.WriteString("</main>\n</body>\n</html>\n")
	_, err := io.WriteString(w, b.String())
	return err
}
