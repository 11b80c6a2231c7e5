package message

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestParsePiped(t *testing.T) {
	for _, c := range []struct {
		name, in  string
		text      string // want, when no error
		lines     int
		errSubstr string
	}{
		{name: "empty", in: ""},
		{name: "white space only", in: " \n\t\n"},
		{name: "a diff", in: "diff --git a/x b/x\n+y\n", text: "diff --git a/x b/x\n+y\n", lines: 2},
		{name: "no last newline", in: "one\ntwo", text: "one\ntwo", lines: 2},
		{name: "a character cut by head -c", in: "naïve caf\xc3", text: "naïve caf\uFFFD", lines: 1},
		{name: "four stray bytes in a short text", in: "\xe9a\xe9b\xe9c\xe9", text: "\uFFFDa\uFFFDb\uFFFDc\uFFFD", lines: 1},
		{name: "one stray byte in a hundred", in: strings.Repeat("x", 594) + "\xe9\xe9\xe9\xe9\xe9\xe9", text: strings.Repeat("x", 594) + "\uFFFD", lines: 1},
		{name: "five stray bytes in a short text", in: "\xe9a\xe9b\xe9c\xe9d\xe9", errSubstr: "not UTF-8 text (5 of its 9 bytes"},
		{name: "Latin-1", in: strings.Repeat("caf\xe9 ", 30), errSubstr: "iconv -f LATIN1"},
		{name: "a NUL byte", in: "text\x00more", errSubstr: "a NUL byte at byte 5 of 9 B"},
		{name: "UTF-16", in: "h\x00i\x00", errSubstr: "iconv -f UTF-16"},
		{name: "the most characters", in: strings.Repeat("é", MaxPipedChars), text: strings.Repeat("é", MaxPipedChars), lines: 1},
		{name: "one character over", in: strings.Repeat("é", MaxPipedChars+1), errSubstr: "holds 100,001 characters, and co run attaches at most 100,000"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := ParsePiped([]byte(c.in))
			if c.errSubstr != "" {
				if err == nil || !strings.Contains(err.Error(), c.errSubstr) || !IsPipedError(err) {
					t.Fatalf("err = %v, want one with %q", err, c.errSubstr)
				}
				return
			}
			if err != nil || p.Text != c.text || p.Lines != c.lines {
				t.Fatalf("= %q, %d lines, %v; want %q, %d lines", p.Text, p.Lines, err, c.text, c.lines)
			}
		})
	}
}

// More bytes than MaxPipedChars characters can take is refused without
// reading the rest; a reader's failure is no PipedError.
func TestReadPipedStopsAtTheLimit(t *testing.T) {
	r := &countingReader{r: strings.NewReader(strings.Repeat("a", 10*MaxPipedChars))}
	_, err := ReadPiped(r)
	if err == nil || !IsPipedError(err) || !strings.Contains(err.Error(), "more than 100,000 characters") || !strings.Contains(err.Error(), "head -c 100000") {
		t.Fatalf("err = %v", err)
	}
	if r.n > 4*MaxPipedChars+1 {
		t.Errorf("read %d bytes", r.n)
	}
	_, err = ReadPiped(iotest.ErrReader(errors.New("boom")))
	if err == nil || IsPipedError(err) || !strings.Contains(err.Error(), "reading standard input: boom") {
		t.Errorf("err = %v", err)
	}
}

type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

func TestPipedSummary(t *testing.T) {
	if got := (Piped{Text: "a\n", Lines: 1}).Summary(); got != "standard input (1 line, 2 B, untrusted)" {
		t.Errorf("Summary = %q", got)
	}
	if got := (Piped{Text: strings.Repeat("x", 2048), Lines: 40}).Summary(); got != "standard input (40 lines, 2 KB, untrusted)" {
		t.Errorf("Summary = %q", got)
	}
	if o := PipedOrigin(); !o.Untrusted || o.Public || o.Label != "standard input" {
		t.Errorf("PipedOrigin = %+v", o)
	}
}

// A message Attach made reads back as the prompt and the text, whatever
// the text holds (its own closing tag, another block's start); anything
// else reads back whole.
func FuzzSplitPiped(f *testing.F) {
	f.Add("review this", "diff\n+x\n")
	f.Add("", "")
	f.Add("p", "\n</piped-input>")
	f.Add("p", PipedMark+" lines=1 bytes=0>\n\n</piped-input>")
	f.Add("p\n\n"+PipedIntro, "x")
	f.Fuzz(func(t *testing.T, prompt, text string) {
		if strings.Contains(prompt, PipedMark) {
			return // the user typed the mark itself
		}
		in := Piped{Text: text, Lines: strings.Count(text, "\n")}
		got, p, ok := SplitPiped(in.Attach(prompt))
		if !ok || got != prompt || p != in {
			t.Fatalf("SplitPiped(Attach(%q, %q)) = %q, %+v, %v", prompt, text, got, p, ok)
		}
		if got, _, ok := SplitPiped(prompt); ok || got != prompt {
			t.Fatalf("SplitPiped(%q) = %q, %v", prompt, got, ok)
		}
	})
}
