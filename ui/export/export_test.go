package export

import (
	"strings"
	"testing"
)

// A code block's fence is longer than any run of backticks in its text,
// so a tool result holding a fence cannot end the block and write
// Markdown of its own into the transcript.
func TestFenceOutlastsTheText(t *testing.T) {
	for name, c := range map[string]struct{ text, fence string }{
		"plain":      {"ls -l", "```"},
		"a fence":    {"before\n```\n# not a heading\n```", "````"},
		"a long run": {"x ````` y", "``````"},
		"an escape":  {"\x1b[2J", "```"},
	} {
		got := fence(c.text, "")
		if !strings.HasPrefix(got, c.fence+"\n") || !strings.HasSuffix(got, "\n"+c.fence+"\n") || strings.HasPrefix(got, c.fence+"`") {
			t.Errorf("%s: %q; want fenced by %s", name, got, c.fence)
		}
		if strings.Contains(got, "\x1b") {
			t.Errorf("%s: raw escape in %q", name, got)
		}
	}
}

func TestParseFormat(t *testing.T) {
	for in, want := range map[string]Format{"": Markdown, "md": Markdown, "Markdown": Markdown, "json": JSON, "HTML": HTML} {
		if f, err := ParseFormat(in); err != nil || f != want {
			t.Errorf("ParseFormat(%q) = %q, %v; want %q", in, f, err, want)
		}
	}
	if _, err := ParseFormat("pdf"); err == nil || !strings.Contains(err.Error(), `"pdf": use md, json or html`) {
		t.Errorf("ParseFormat(pdf) = %v", err)
	}
}
