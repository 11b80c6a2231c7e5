package jsonstr

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzAppend: the output is byte for byte encoding/json's (HTML escaping
// off), so it decodes to what encoding/json keeps of s (each invalid UTF-8
// byte becomes U+FFFD).
func FuzzAppend(f *testing.F) {
	for _, s := range []string{"", "plain", "quote \" backslash \\ nl \n tab \t bs \b ff \f", "\x00\x1f\x7f", "é ü 日本", "\u2028\u2029", "bad \xff utf8 \xc3", "<script>&",
		"eight by\"tes then more plain text", "0123456789abcdef\n0123456789abcdef\x01", "plain text until é and after", "sixteen bytes ok\u2028 and \xfe!"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Append([]byte("prefix"), s)
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		if w := append([]byte("prefix"), bytes.TrimSuffix(want.Bytes(), []byte("\n"))...); !bytes.Equal(got, w) {
			t.Fatalf("Append(%q)\n = %s\nwant %s", s, got, w)
		}
		var back string
		if err := json.Unmarshal(got[len("prefix"):], &back); err != nil {
			t.Fatalf("%q encodes to invalid JSON %s: %v", s, got, err)
		}
	})
}

// TestPlain8 checks the eight-byte test against the byte-by-byte one for
// every byte value in every position.
func TestPlain8(t *testing.T) {
	plain := func(c byte) bool { return c >= 0x20 && c < 0x80 && c != '"' && c != '\\' }
	for pos := 0; pos < 8; pos++ {
		for c := 0; c < 256; c++ {
			b := []byte("abcdefgh")
			b[pos] = byte(c)
			if got, want := plain8(string(b)), plain(byte(c)); got != want {
				t.Fatalf("plain8(%q) = %v, want %v", b, got, want)
			}
		}
	}
}
