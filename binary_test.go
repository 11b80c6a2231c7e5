package main

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"text/template"

	"charm.land/glamour/v2"
	"charm.land/glamour/v2/ansi"
	"charm.land/glamour/v2/styles"
)

// third_party/glamour applies a style's Format without text/template (see
// the test above). It must give text/template's answer for every format
// glamour's own styles use and for the forms of {{.text}} text/template
// accepts, and refuse anything else rather than print it.
func TestGlamourFormatIsTextTemplatesForDotText(t *testing.T) {
	formats := map[string]bool{}
	for _, c := range styles.DefaultStyles {
		for _, f := range []string{c.Image.Format, c.ImageText.Format, c.HorizontalRule.Format, c.Link.Format, c.LinkText.Format, c.Text.Format} {
			if f != "" {
				formats[f] = true
			}
		}
	}
	for _, f := range []string{
		"{{.text}}", "«{{ .text }}»", "a {{- .text -}} b", "a\n{{-\t.text\t-}}\nb",
		"{{.text}}{{.text}}", "x }} y {{.text}}", "plain text", "{{  .text  }}!", "a {{-.text}}",
	} {
		formats[f] = true
	}
	const token = "word"
	for f := range formats {
		var want bytes.Buffer
		tmpl, err := template.New("").Parse(f)
		if err == nil {
			err = tmpl.Execute(&want, map[string]any{"text": token})
		}
		got, gotErr := renderFormat(t, f, token)
		if err != nil {
			if gotErr == nil {
				t.Errorf("format %q: text/template fails (%v) but glamour printed %q", f, err, got)
			}
			continue
		}
		if gotErr != nil {
			t.Errorf("format %q: %v, want %q", f, gotErr, want.String())
			continue
		}
		// A format without actions prints itself: render what
		// text/template made and compare the two screens.
		if strings.Contains(want.String(), "{{") {
			t.Fatalf("format %q: text/template made %q; pick another case", f, want.String())
		}
		if lit, err := renderFormat(t, want.String(), token); err != nil || got != lit {
			t.Errorf("format %q rendered %q, text/template's answer renders %q (%v)", f, got, lit, err)
		}
	}
	for _, f := range []string{"{{.other}}", "{{.text | printf \"%q\"}}", "{{if .text}}x{{end}}", "{{.text", "{{/* c */}}"} {
		if got, err := renderFormat(t, f, token); err == nil {
			t.Errorf("format %q rendered %q, want an error", f, got)
		} else if !strings.Contains(err.Error(), strconv.Quote(f)) {
			t.Errorf("format %q: error %q does not name the format", f, err)
		}
	}
}

// renderFormat renders token as a paragraph whose text style has format.
func renderFormat(t *testing.T, format, token string) (string, error) {
	t.Helper()
	cfg := styles.NoTTYStyleConfig
	cfg.Text = ansi.StylePrimitive{Format: format}
	r, err := glamour.NewTermRenderer(glamour.WithStyles(cfg), glamour.WithWordWrap(200))
	if err != nil {
		t.Fatal(err)
	}
	return r.Render(token)
}
