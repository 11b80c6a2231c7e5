package main

import (
	"bufio"
	"bytes"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"text/template"

	"charm.land/glamour/v2"
	"charm.land/glamour/v2/ansi"
	"charm.land/glamour/v2/styles"
)

// A call to reflect's Method or MethodByName with a name known only at run
// time (text/template evaluating a field) makes the Go linker keep every
// exported method of every type in the binary: co's mapped segments grew by
// a third, and a fresh build is resident in full (README, Figures). The
// linker marks such functions <ReflectMethod> in its -dumpdep output; none
// may be reachable.
func TestLinkerKeepsDeadCodeElimination(t *testing.T) {
	if testing.Short() {
		t.Skip("links the binary")
	}
	bin := filepath.Join(t.TempDir(), "co")
	cmd := exec.Command("go", "build", "-ldflags=-dumpdep", "-o", bin, ".")
	var deps bytes.Buffer
	cmd.Stderr = &deps // the linker writes its dependency edges to stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("go build: %v\n%s", err, tail(deps.String(), 2000))
	}
	callers := map[string][]string{} // edge target -> sources
	culprit := ""                    // the first <ReflectMethod> function the linker reached
	sc := bufio.NewScanner(&deps)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		from, to, ok := strings.Cut(sc.Text(), " -> ")
		if !ok {
			continue
		}
		for _, s := range []string{from, to} {
			if name, found := strings.CutSuffix(s, " <ReflectMethod>"); found && culprit == "" {
				culprit = name
			}
		}
		from = strings.TrimSuffix(from, " <ReflectMethod>")
		to = strings.TrimSuffix(to, " <ReflectMethod>")
		callers[to] = append(callers[to], from)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if culprit == "" {
		return
	}
	// Name the path from the program's roots to the first culprit, which
	// says which package to fix.
	t.Errorf("the linker keeps every exported method: %s is reachable through\n%s",
		culprit, strings.Join(pathFromRoot(callers, culprit), "\n  -> "))
}

// pathFromRoot walks callers back from sym to main.main or an init task
// and returns the path from there to sym.
func pathFromRoot(callers map[string][]string, sym string) []string {
	prev := map[string]string{sym: ""}
	queue := []string{sym}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		if s == "main.main" || s == "runtime.main" || strings.HasPrefix(s, "_") {
			var path []string
			for ; s != ""; s = prev[s] {
				path = append(path, s)
			}
			return path
		}
		for _, c := range callers[s] {
			if _, seen := prev[c]; !seen {
				prev[c] = s
				queue = append(queue, c)
			}
		}
	}
	return []string{sym, "(no path found)"}
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

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
