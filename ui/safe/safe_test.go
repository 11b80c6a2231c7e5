package safe

import "testing"

// ui/safe is the front ends' name for internal/termsafe (whose tests hold
// the rules): the same text comes out of both.
func TestSafeIsTermsafe(t *testing.T) {
	in := "bad \x1b[2J\x1b]52;c;ZXZpbA==\x07 \u202eevil\u200d"
	if got, want := Text(in), "bad ␛[2J␛]52;c;ZXZpbA==␇ <U+202E>evil\u200d"; got != want {
		t.Errorf("Text = %q, want %q", got, want)
	}
	if got := Reveal(in); got != "bad ␛[2J␛]52;c;ZXZpbA==␇ <U+202E>evil<U+200D>" {
		t.Errorf("Reveal = %q", got)
	}
	if !HasHidden(in) || HasHidden("plain") {
		t.Error("HasHidden")
	}
}
