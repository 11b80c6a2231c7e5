package safe

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestText(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"plain", "hello\tworld\n", "hello\tworld\n"},
		{"unicode kept", "héllo → 世界 🎉", "héllo → 世界 🎉"},
		{"CSI colour", "\x1b[31mred\x1b[0m", "␛[31mred␛[0m"},
		{"CSI clear screen", "\x1b[2J\x1b[H", "␛[2J␛[H"},
		{"OSC 52 clipboard", "\x1b]52;c;ZXZpbA==\x07", "␛]52;c;ZXZpbA==␇"},
		{"OSC 8 link", "\x1b]8;;http://evil\x1b\\click\x1b]8;;\x1b\\", "␛]8;;http://evil␛\\click␛]8;;␛\\"},
		{"OSC title", "\x1b]0;pwned\x07", "␛]0;pwned␇"},
		{"DCS", "\x1bP1$qm\x1b\\", "␛P1$qm␛\\"},
		{"APC", "\x1b_Gf=100;AAAA\x1b\\", "␛_Gf=100;AAAA␛\\"},
		{"C1 CSI", "a\u009b31mb", "a<U+009B>31mb"},
		{"C1 OSC", "\u009d52;c;x\u009c", "<U+009D>52;c;x<U+009C>"},
		{"lone CR dropped", "safe\rEVIL", "safeEVIL"},
		{"CRLF to LF", "a\r\nb", "a\nb"},
		{"backspace", "abc\b\b\bxyz", "abc␈␈␈xyz"},
		{"bell and nul", "a\x07\x00b", "a␇␀b"},
		{"DEL", "a\x7fb", "a␡b"},
		{"invalid utf8", "a\xffb", "a\uFFFDb"},
		{"bidi override marked", "abc\u202Etxt.exe", "abc<U+202E>txt.exe"},
		{"bidi isolate marked", "x\u2066y\u2069", "x<U+2066>y<U+2069>"},
		{"zero-width space marked", "pay\u200Bpal", "pay<U+200B>pal"},
		{"BOM marked", "\uFEFFhi", "<U+FEFF>hi"},
		{"emoji joiner kept", "👩\u200D💻", "👩\u200D💻"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Text(tc.in)
			if got != tc.want {
				t.Errorf("Text(%q) = %q, want %q", tc.in, got, tc.want)
			}
			if strings.ContainsRune(got, 0x1b) || strings.ContainsAny(got, "\r\b\x07\u202E\u200B") {
				t.Errorf("output still has controls: %q", got)
			}
		})
	}
}

func TestReveal(t *testing.T) {
	in := "rm -rf /tmp/x\u202E\u2066gpj.exe\u200B"
	got := Reveal(in)
	for _, w := range []string{"<U+202E>", "<U+2066>", "<U+200B>"} {
		if !strings.Contains(got, w) {
			t.Errorf("Reveal(%q) = %q lacks %s", in, got, w)
		}
	}
	if !HasHidden(in) || HasHidden("plain") {
		t.Error("HasHidden wrong")
	}
}

func FuzzText(f *testing.F) {
	for _, s := range []string{"\x1b[31m", "a\r\nb", "\u009b", "héllo", "\xff\xfe", "a\u202Eb\u200Bc"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Text(s)
		if !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8 out of %q", s)
		}
		for _, r := range out {
			if r < 0x20 && r != '\n' && r != '\t' || r >= 0x7f && r <= 0x9f || hiding(r) {
				t.Fatalf("control %U survived in %q", r, out)
			}
		}
		// Chunking must not matter: the sanitiser is stateless per rune.
		if utf8.ValidString(s) {
			mid := len(s) / 2
			for mid > 0 && !utf8.RuneStart(s[mid]) {
				mid--
			}
			if Text(s[:mid])+Text(s[mid:]) != out {
				t.Fatalf("chunked result differs for %q", s)
			}
		}
	})
}

func BenchmarkTextPlain(b *testing.B) {
	s := strings.Repeat("ordinary text with `code` and ünïcödé ", 4)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		Text(s)
	}
}

// EscapeJSON leaves JSON that decodes to the same value, with nothing raw
// that Text would have changed.
func TestEscapeJSON(t *testing.T) {
	in := "a\x1b[2J \u009b31m \u202eevil\x7f \u200d ok é"
	b, err := json.Marshal(map[string]string{"k\u202e": in})
	if err != nil {
		t.Fatal(err)
	}
	out := EscapeJSON(b)
	for _, r := range string(out) {
		if unsafeRune(r) {
			t.Fatalf("raw %U in %s", r, out)
		}
	}
	var back map[string]string
	if err := json.Unmarshal(out, &back); err != nil || back["k\u202e"] != in {
		t.Fatalf("not lossless: %s → %q %v", out, back, err)
	}
	plain := []byte(`{"a":"é"}`)
	if got := EscapeJSON(plain); string(got) != string(plain) {
		t.Errorf("plain JSON changed: %s", got)
	}
}
