package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// docPages are the README and the pages of docs/ a user reads.
func docPages(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{"README.md"}, pages...)
}

var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// Every relative link of the README and docs/*.md names a file that exists
// and, with a #fragment, a heading of that page: moving a section to
// docs/ cannot leave a link pointing nowhere.
func TestDocLinksResolve(t *testing.T) {
	anchors := map[string]map[string]bool{}
	headingsOf := func(p string) map[string]bool {
		if a, ok := anchors[p]; ok {
			return a
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		anchors[p] = markdownAnchors(string(b))
		return anchors[p]
	}
	n := 0
	for _, page := range docPages(t) {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range proseLines(string(b)) {
			for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				n++
				file, frag, _ := strings.Cut(target, "#")
				path := page
				if file != "" {
					path = filepath.Join(filepath.Dir(page), file)
					if _, err := os.Stat(path); err != nil {
						t.Errorf("%s:%d: link %s: no such file %s", page, i+1, target, path)
						continue
					}
				}
				if frag != "" && strings.HasSuffix(path, ".md") && !headingsOf(path)[frag] {
					t.Errorf("%s:%d: link %s: %s has no heading #%s", page, i+1, target, path, frag)
				}
			}
		}
	}
	if n < 50 {
		t.Fatalf("found only %d relative links; the extraction is broken", n)
	}
}

// The checker catches a link to a missing heading and one to a missing file.
func TestDocLinkCheckCatches(t *testing.T) {
	a := markdownAnchors("# Scheduled runs\n\n## Where a run's answer also goes\n```\n# not a heading\n```\n## Scheduled runs\n")
	for _, want := range []string{"scheduled-runs", "where-a-runs-answer-also-goes", "scheduled-runs-1"} {
		if !a[want] {
			t.Errorf("no anchor %q in %v", want, a)
		}
	}
	if a["not-a-heading"] {
		t.Error("a line in a code block was taken for a heading")
	}
	if got := proseLines("a [x](#y)\n```\n[z](#w)\n```\n"); strings.Contains(strings.Join(got, "\n"), "#w") {
		t.Error("a link in a code block was checked")
	}
}

// markdownAnchors returns the ids GitHub gives the headings of a page; a
// repeated heading gets -1, -2, ….
func markdownAnchors(text string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	for _, l := range proseLines(text) {
		h := strings.TrimLeft(l, "#")
		if len(h) == len(l) || !strings.HasPrefix(h, " ") {
			continue
		}
		a := githubAnchor(strings.ReplaceAll(h, "`", ""))
		if k := seen[a]; k > 0 {
			out[a+"-"+strconv.Itoa(k)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

// proseLines returns the page's lines with those inside fenced code
// blocks blanked, so that line numbers stay right.
func proseLines(text string) []string {
	lines := strings.Split(text, "\n")
	fenced := false
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fenced = !fenced
			lines[i] = ""
			continue
		}
		if fenced {
			lines[i] = ""
		}
	}
	return lines
}
