package tui

import (
	"fmt"
	"image/color"

	"charm.land/glamour/v2/ansi"
	"charm.land/glamour/v2/styles"
	"charm.land/lipgloss/v2"
)

// Theme holds every style the chat uses. Components never build colours of
// their own: a light, a dark and a colourless theme differ only here.
type Theme struct {
	Name string // light, dark or none (NO_COLOR)

	// Markdown is the glamour style for assistant replies.
	Markdown ansi.StyleConfig

	User      lipgloss.Style // the user's messages
	UserMark  lipgloss.Style // the ❯ before them
	Queued    lipgloss.Style // a message waiting for the turn to end
	Dim       lipgloss.Style // secondary text
	Notice    lipgloss.Style // notes from the agent
	Error     lipgloss.Style
	Warn      lipgloss.Style
	Success   lipgloss.Style
	Running   lipgloss.Style
	ToolName  lipgloss.Style
	Panel     lipgloss.Style // the frame around a tool's display text
	Selected  lipgloss.Style // the gutter mark of the selected message
	Accent    lipgloss.Style
	Title     lipgloss.Style // bold headings in panels
	Border    lipgloss.Style // separators between panes
	DiffAdd   lipgloss.Style
	DiffDel   lipgloss.Style
	DiffHunk  lipgloss.Style
	Hidden    lipgloss.Style // <U+202E> markers in the approval modal
	Modal     lipgloss.Style // the modal's box
	KeyHint   lipgloss.Style // a key name in hints
	Status    lipgloss.Style // the status bar's base
	Badge     lipgloss.Style // UNSANDBOXED
	BadgeOK   lipgloss.Style // sandbox: full
	Yolo      lipgloss.Style
	InputLine lipgloss.Style // the rule above the input

	borderColor color.Color
}

type palette struct {
	fg, dim, accent, user, err, warn, ok, running, tool, border, badgeBG, badgeFG, statusBG, statusFG, hidden color.Color
}

var (
	darkPalette = palette{
		fg:       lipgloss.Color("#D8D8D8"),
		dim:      lipgloss.Color("#8A8A8A"),
		accent:   lipgloss.Color("#7AA2F7"),
		user:     lipgloss.Color("#E0AF68"),
		err:      lipgloss.Color("#F7768E"),
		warn:     lipgloss.Color("#E0AF68"),
		ok:       lipgloss.Color("#9ECE6A"),
		running:  lipgloss.Color("#7DCFFF"),
		tool:     lipgloss.Color("#BB9AF7"),
		border:   lipgloss.Color("#3B4261"),
		badgeBG:  lipgloss.Color("#DB4B4B"),
		badgeFG:  lipgloss.Color("#FFFFFF"),
		statusBG: lipgloss.Color("#1F2335"),
		statusFG: lipgloss.Color("#C0CAF5"),
		hidden:   lipgloss.Color("#FF9E64"),
	}
	lightPalette = palette{
		fg:       lipgloss.Color("#1F2328"),
		dim:      lipgloss.Color("#6E7781"),
		accent:   lipgloss.Color("#0969DA"),
		user:     lipgloss.Color("#9A6700"),
		err:      lipgloss.Color("#CF222E"),
		warn:     lipgloss.Color("#9A6700"),
		ok:       lipgloss.Color("#1A7F37"),
		running:  lipgloss.Color("#0550AE"),
		tool:     lipgloss.Color("#8250DF"),
		border:   lipgloss.Color("#D0D7DE"),
		badgeBG:  lipgloss.Color("#CF222E"),
		badgeFG:  lipgloss.Color("#FFFFFF"),
		statusBG: lipgloss.Color("#EAEEF2"),
		statusFG: lipgloss.Color("#1F2328"),
		hidden:   lipgloss.Color("#BC4C00"),
	}
)

// NewTheme returns the theme called name ("light" or "dark"; anything else
// is light, the settings default). noColor gives a theme without colours
// that still marks what matters with bold, reverse and underline.
func NewTheme(name string, noColor bool) Theme {
	if noColor {
		return monoTheme()
	}
	p, md, code := lightPalette, styles.LightStyleConfig, codeStyleLight
	if name == "dark" {
		p, md, code = darkPalette, styles.DarkStyleConfig, codeStyleDark
	} else {
		name = "light"
	}
	// Code in the theme's own colours (see codestyle.go), inline code too.
	md.CodeBlock.Chroma = nil
	md.CodeBlock.Theme = code
	md.CodeBlock.Color = hexPtr(p.fg)
	md.Code.Color = hexPtr(p.err)
	md.Code.BackgroundColor = nil
	s := lipgloss.NewStyle
	return Theme{
		Name:        name,
		Markdown:    chatMarkdown(md),
		User:        s().Foreground(p.fg).Bold(true),
		UserMark:    s().Foreground(p.user).Bold(true),
		Queued:      s().Foreground(p.dim).Italic(true),
		Dim:         s().Foreground(p.dim),
		Notice:      s().Foreground(p.dim).Italic(true),
		Error:       s().Foreground(p.err),
		Warn:        s().Foreground(p.warn),
		Success:     s().Foreground(p.ok),
		Running:     s().Foreground(p.running),
		ToolName:    s().Foreground(p.tool).Bold(true),
		Panel:       s().Foreground(p.border),
		Selected:    s().Foreground(p.accent).Bold(true),
		Accent:      s().Foreground(p.accent),
		Title:       s().Foreground(p.accent).Bold(true),
		Border:      s().Foreground(p.border),
		DiffAdd:     s().Foreground(p.ok),
		DiffDel:     s().Foreground(p.err),
		DiffHunk:    s().Foreground(p.running),
		Hidden:      s().Foreground(p.hidden).Bold(true),
		Modal:       s().Border(lipgloss.RoundedBorder()).BorderForeground(p.accent).Padding(0, 1),
		KeyHint:     s().Foreground(p.accent).Bold(true),
		Status:      s().Foreground(p.statusFG).Background(p.statusBG),
		Badge:       s().Foreground(p.badgeFG).Background(p.badgeBG).Bold(true),
		BadgeOK:     s().Foreground(p.ok).Background(p.statusBG),
		Yolo:        s().Foreground(p.warn).Background(p.statusBG).Bold(true),
		InputLine:   s().Foreground(p.border),
		borderColor: p.border,
	}
}

func hexPtr(c color.Color) *string {
	r, g, b, _ := c.RGBA()
	s := fmt.Sprintf("#%02X%02X%02X", r>>8, g>>8, b>>8)
	return &s
}

func monoTheme() Theme {
	s := lipgloss.NewStyle
	return Theme{
		Name:      "none",
		Markdown:  chatMarkdown(styles.NoTTYStyleConfig),
		User:      s().Bold(true),
		UserMark:  s().Bold(true),
		Queued:    s().Italic(true),
		Dim:       s(),
		Notice:    s().Italic(true),
		Error:     s().Bold(true),
		Warn:      s().Bold(true),
		Success:   s(),
		Running:   s(),
		ToolName:  s().Bold(true),
		Panel:     s(),
		Selected:  s().Bold(true),
		Accent:    s(),
		Title:     s().Bold(true),
		Border:    s(),
		DiffAdd:   s(),
		DiffDel:   s(),
		DiffHunk:  s(),
		Hidden:    s().Reverse(true),
		Modal:     s().Border(lipgloss.RoundedBorder()).Padding(0, 1),
		KeyHint:   s().Bold(true),
		Status:    s().Reverse(true),
		Badge:     s().Bold(true).Reverse(true),
		BadgeOK:   s().Reverse(true),
		Yolo:      s().Reverse(true).Bold(true),
		InputLine: s(),
	}
}

// chatMarkdown adapts a glamour style to the transcript: no document
// margin or colour (the chat pane draws its own gutter) and no blank lines
// around the document (blocks are joined by the chat).
func chatMarkdown(c ansi.StyleConfig) ansi.StyleConfig {
	zero := uint(0)
	c.Document.Margin = &zero
	c.Document.BlockPrefix = ""
	c.Document.BlockSuffix = ""
	c.Document.Color = nil
	c.Document.BackgroundColor = nil
	c.Paragraph.Color = nil
	return c
}
