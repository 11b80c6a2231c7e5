package redact

import (
	"os"
	"strings"
	"testing"
)

// compiledAtStart is how many expressions were compiled when the test
// binary reached TestMain: package initialisation (ours and the tests'
// variables) is over by then.
var compiledAtStart int32

func TestMain(m *testing.M) {
	compiledAtStart = compiled.Load()
	os.Exit(m.Run())
}

// Every co process links this package; none should pay for compiling the
// patterns before it has text to redact.
func TestPatternsCompileOnFirstUseOnly(t *testing.T) {
	if compiledAtStart != 0 {
		t.Fatalf("%d expressions compiled during package initialisation, want 0 (compile them on first use)", compiledAtStart)
	}
	var r *Redactor
	text := "-----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY----- Authorization: Bearer abcdefghijklmnopqrstuvwxyz123456 api_key=abcdefghijklmnop"
	first := r.String(text)
	if strings.Contains(first, "abcdefghijklmnop") {
		t.Fatalf("not redacted after lazy compilation: %q", first)
	}
	n := compiled.Load()
	if n == 0 {
		t.Fatal("no expression compiled after redacting text with secrets in it")
	}
	if again := r.String(text); again != first || compiled.Load() != n {
		t.Errorf("second redaction compiled again (%d → %d) or differs: %q", n, compiled.Load(), again)
	}
	if n > int32(len(patterns)) {
		t.Errorf("%d compilations for %d patterns", n, len(patterns))
	}
}
