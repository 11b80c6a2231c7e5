package tui

import (
	"fmt"
	"strings"
	"time"

	xansi "github.com/charmbracelet/x/ansi"

	"github.com/co-cli/co/lib/safe"
	"github.com/co-cli/co/telemetry"
	"github.com/co-cli/co/ui/present"
)

// SidePanel shows this session's spans as a tree: name, duration, status;
// errors in red, running spans as running. Its spans come from the
// session's telemetry.Feed (Options.Feed).
type SidePanel struct {
	th     *Theme
	spans  map[string]*spanNode
	roots  []*spanNode
	width  int
	height int
	now    time.Time
	view   string
	rows   []string // View's lines, each exactly width wide
	todos  []string // the session's todo list, shown above the spans
	// recalled are the memories the last turn recalled (memory.go)
	recalled []string
}

// SetTodos sets the todo section (none when empty).
func (p *SidePanel) SetTodos(lines []string) {
	p.todos = lines
	p.refresh()
}

type spanNode struct {
	ev       telemetry.SpanEvent
	children []*spanNode
	attached bool
	// row caches the node's line for key (width, tree prefix and branch);
	// a running span's line changes with time and is never cached.
	row, key string
}

// maxRoots bounds the traces kept (older ones scroll off anyway).
const maxRoots = 100

// NewSidePanel makes an empty panel.
func NewSidePanel(th *Theme) *SidePanel {
	return &SidePanel{th: th, spans: map[string]*spanNode{}}
}

// SetSize sets the panel's size (border included).
func (p *SidePanel) SetSize(w, h int) {
	p.width, p.height = w, h
	p.refresh()
}

// Apply records a span starting or ending.
func (p *SidePanel) Apply(ev telemetry.SpanEvent) {
	if n, ok := p.spans[ev.SpanID]; ok {
		n.ev, n.row = ev, ""
		p.refresh()
		return
	}
	n := &spanNode{ev: ev}
	p.spans[ev.SpanID] = n
	if parent, ok := p.spans[ev.ParentID]; ok && ev.ParentID != "" {
		parent.children = append(parent.children, n)
		n.attached = true
	} else {
		p.roots = append(p.roots, n)
	}
	// A child may have arrived before its parent (feeds drop updates).
	kept := p.roots[:0]
	for _, r := range p.roots {
		if r != n && r.ev.ParentID == ev.SpanID {
			n.children = append(n.children, r)
			r.attached = true
			continue
		}
		kept = append(kept, r)
	}
	p.roots = kept
	if len(p.roots) > maxRoots {
		for _, r := range p.roots[:len(p.roots)-maxRoots] {
			p.forget(r)
		}
		p.roots = append([]*spanNode(nil), p.roots[len(p.roots)-maxRoots:]...)
	}
	p.refresh()
}

func (p *SidePanel) forget(n *spanNode) {
	delete(p.spans, n.ev.SpanID)
	for _, c := range n.children {
		p.forget(c)
	}
}

// Running reports whether a span is still open (its time keeps changing).
func (p *SidePanel) Running() bool {
	for _, n := range p.spans {
		if n.ev.Running {
			return true
		}
	}
	return false
}

// Tick updates running spans' durations.
func (p *SidePanel) Tick(now time.Time) {
	p.now = now
	if p.Running() {
		p.refresh()
	}
}

// Clear forgets every span.
func (p *SidePanel) Clear() {
	p.spans, p.roots = map[string]*spanNode{}, nil
	p.refresh()
}

// View draws the panel: a gap and a left border, and the newest spans at
// the bottom.
func (p *SidePanel) View() string { return p.view }

func (p *SidePanel) refresh() {
	if p.width < 4 || p.height < 1 {
		p.view, p.rows = "", nil
		return
	}
	th := p.th
	w := p.width - 3 // a gap, the border and a space
	// The newest traces fill the panel from the bottom: render from the
	// last one back until the panel is full, not every trace kept.
	var rows []string
	for i := len(p.roots) - 1; i >= 0 && len(rows) < p.height; i-- {
		rows = append(p.appendRows(nil, p.roots[i], "", "", w), rows...)
	}
	title := th.Title.Render("Spans")
	if len(rows) == 0 {
		rows = []string{th.Dim.Render(truncate("none yet", w))}
	}
	var head []string
	if len(p.todos) > 0 {
		head = append(head, th.Title.Render("Todos"))
		for i, l := range p.todos {
			if i == 0 {
				continue // the summary line of the list: the title says it
			}
			head = append(head, truncate(present.Line(safe.Text(l)), w))
		}
		if max := p.height / 2; len(head) > max {
			head = append(head[:max-1], th.Dim.Render(truncate("…", w)))
		}
		head = append(head, "")
	}
	head = append(head, p.recalledRows(w)...)
	if room := p.height - 2 - len(head); len(rows) > room {
		rows = rows[len(rows)-max(room, 0):]
	}
	lines := append(append(head, title, ""), rows...)
	bar := th.Border.Render("│")
	var b strings.Builder
	for i := 0; i < p.height; i++ {
		if i > 0 {
			b.WriteByte('\n')
		}
		// The gap keeps the chat's full-width lines off the border.
		b.WriteString(" " + bar + " ")
		l := ""
		if i < len(lines) {
			l = lines[i]
		}
		b.WriteString(l)
		if pad := w - xansi.StringWidth(l); pad > 0 {
			b.WriteString(strings.Repeat(" ", pad))
		}
	}
	p.view = b.String()
	p.rows = strings.Split(p.view, "\n")
}

// Rows are View's lines.
func (p *SidePanel) Rows() []string { return p.rows }

func (p *SidePanel) appendRows(rows []string, n *spanNode, prefix, branch string, w int) []string {
	rows = append(rows, p.row(n, prefix, branch, w))
	childPrefix := prefix
	switch branch {
	case "├ ":
		childPrefix += "│ "
	case "└ ":
		childPrefix += "  "
	}
	for i, c := range n.children {
		b := "├ "
		if i == len(n.children)-1 {
			b = "└ "
		}
		rows = p.appendRows(rows, c, childPrefix, b, w)
	}
	return rows
}

// row is n's line: tree branch, status mark, name, duration.
func (p *SidePanel) row(n *spanNode, prefix, branch string, w int) string {
	key := fmt.Sprint(w, "|", prefix, branch)
	if n.row != "" && n.key == key && !n.ev.Running {
		return n.row
	}
	th := p.th
	ev := n.ev
	var dur, mark string
	st := th.Dim
	switch {
	case ev.Running:
		d := time.Duration(0)
		if !p.now.IsZero() && p.now.After(ev.Start) {
			d = p.now.Sub(ev.Start)
		}
		dur, st, mark = "running "+present.Duration(d), th.Running, "◌ "
	case ev.Error:
		dur, st, mark = present.Duration(ev.End.Sub(ev.Start)), th.Error, "✗ "
	default:
		dur = present.Duration(ev.End.Sub(ev.Start))
	}
	name := present.Line(safe.Text(ev.Name))
	nameW := w - xansi.StringWidth(prefix+branch+mark) - xansi.StringWidth(dur) - 1
	name = truncate(name, max(nameW, 1))
	gap := max(w-xansi.StringWidth(prefix+branch+mark+name+dur), 1)
	nameStyle := th.User.UnsetBold()
	if ev.Error {
		nameStyle = th.Error
	}
	n.row = th.Border.Render(prefix+branch) + st.Render(mark) + nameStyle.Render(name) + strings.Repeat(" ", gap) + st.Render(dur)
	n.key = key
	return n.row
}
