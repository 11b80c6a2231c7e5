package tui

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"
	xansi "github.com/charmbracelet/x/ansi"

	"github.com/co-cli/co/lib/safe"
)

// Welcome is what the banner says about the session. The provider comes
// from the agent.
type Welcome struct {
	Version   string
	DataDir   string
	Isolation string // e.g. "full (docker)" or "none"
	// Unsandboxed is true when shell commands run without isolation.
	Unsandboxed bool
	Tools       int
	// ToolsText, when set, is the tools row instead of Tools, read at
	// each drawing (the count changes as MCP servers connect).
	ToolsText func() string
}

// tools is the tools row.
func (w Welcome) tools() string {
	if w.ToolsText != nil {
		return safe.Text(w.ToolsText())
	}
	return fmt.Sprint(w.Tools)
}

// welcomeEntry is the banner at the top of the transcript and, when no
// provider is usable, the first-run panel that says what to set.
type welcomeEntry struct {
	lineCache
	w        Welcome
	provider string // "name · model", or "" while resolving
	resolved bool
	err      string // why no provider is usable
	setup    bool   // /setup is offered here (the first-run panel leads with it)
}

func (e *welcomeEntry) setProvider(provider string, resolved bool, err string) {
	e.provider, e.resolved, e.err = provider, resolved, err
	e.invalidate()
}

func (e *welcomeEntry) render(width int, rc *renderCtx) []string {
	if l, ok := e.cached(width); ok {
		return l
	}
	th := rc.th
	inner := max(min(width, 76)-4, 20)
	row := func(k, v string, st lipgloss.Style) string {
		return th.Dim.Render(fmt.Sprintf("%-9s", k)) + st.Render(truncate(v, inner-9))
	}
	prov := e.provider
	provStyle := lipgloss.NewStyle()
	switch {
	case !e.resolved:
		prov, provStyle = "checking for a provider…", th.Dim
	case e.err != "":
		prov, provStyle = "none usable (see below)", th.Error
	}
	sandbox := safe.Text(e.w.Isolation)
	sbStyle := th.Success
	if e.w.Unsandboxed {
		sandbox, sbStyle = "UNSANDBOXED — shell commands run directly on this machine", th.Error.Bold(true)
	}
	body := []string{
		title(th, safe.Text(e.w.Version), inner),
		"",
		row("provider", prov, provStyle),
		row("sandbox", sandbox, sbStyle),
		row("tools", e.w.tools(), lipgloss.NewStyle()),
		row("data", safe.Text(e.w.DataDir), lipgloss.NewStyle()),
		"",
		th.Dim.Render(truncate("Type a message · /help for commands and keys · ctrl+c twice to quit", inner)),
	}
	box := lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(th.borderColor).Padding(0, 1)
	lines := strings.Split(box.Render(padLines(body, inner)), "\n")
	if e.resolved && e.err != "" {
		lines = append(lines, "")
		lines = append(lines, firstRunPanel(th, e.err, inner, e.setup)...)
	}
	for i, l := range lines {
		if xansi.StringWidth(l) > width {
			lines[i] = xansi.Truncate(l, width, "")
		}
	}
	return e.store(width, lines)
}

// firstRunPanel tells a new user exactly what to set to get a provider.
// With the setup offered it leads with /setup, which saves the choice
// and needs no restart; the environment variables are the alternative.
func firstRunPanel(th *Theme, msg string, inner int, setup bool) []string {
	var body []string
	body = append(body, th.Error.Bold(true).Render("No LLM provider is usable yet"), "")
	body = append(body, wrapText(safe.Text(msg), inner)...)
	body = append(body, "")
	if setup {
		body = append(body,
			th.Dim.Render("Type ")+th.Accent.Render("/setup")+th.Dim.Render(" to choose one here (no restart needed)."),
			"",
			th.Dim.Render("Or set one in the environment, then restart co:"),
		)
	} else {
		body = append(body, th.Dim.Render("Set one in the environment, then restart co:"))
	}
	body = append(body,
		"  "+th.Accent.Render("export GEMINI_API_KEY=…")+th.Dim.Render("   (Gemini)"),
		"  "+th.Accent.Render("ollama serve")+th.Dim.Render("              (local Ollama)"),
		"  "+th.Accent.Render("export LLM_PROVIDER=openai OPENAI_BASE_URL=… OPENAI_MODEL=…"),
		"",
		th.Dim.Render("Meanwhile /help, /status, !cmd and the spans panel work."),
	)
	// Wrapped, never cut: what to set is the point of the box.
	var fit []string
	for _, l := range body {
		if xansi.StringWidth(l) <= inner {
			fit = append(fit, l)
			continue
		}
		indent := ""
		if strings.HasPrefix(l, "  ") {
			indent = "    "
		}
		for i, w := range strings.Split(xansi.Wrap(l, inner-len(indent), " "), "\n") {
			if i > 0 {
				w = indent + strings.TrimLeft(w, " ")
			}
			fit = append(fit, w)
		}
	}
	body = fit
	box := lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(th.Error.GetForeground()).Padding(0, 1)
	return strings.Split(box.Render(padLines(body, inner)), "\n")
}

func padLines(lines []string, w int) string {
	for i, l := range lines {
		if pad := w - xansi.StringWidth(l); pad > 0 {
			lines[i] = l + strings.Repeat(" ", pad)
		}
	}
	return strings.Join(lines, "\n")
}

// title is the box's first line, cut to width so that the box keeps its
// border in a narrow terminal.
func title(th *Theme, version string, width int) string {
	name := "co " + version
	if xansi.StringWidth(name) >= width {
		return th.Title.Render(truncate(name, width))
	}
	return th.Title.Render(name) + th.Dim.Render(truncate(" · your assistant in the terminal", width-xansi.StringWidth(name)))
}

func (e *welcomeEntry) plain() string {
	return fmt.Sprintf("co %s — %s — sandbox %s — tools %s — data %s", e.w.Version, e.provider, e.w.Isolation, e.w.tools(), e.w.DataDir)
}
