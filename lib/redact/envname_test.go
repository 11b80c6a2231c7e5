package redact

import (
	"slices"
	"testing"
)

func TestSecretName(t *testing.T) {
	for _, name := range []string{"FOO_TOKEN", "api_key", "Secret", "DB_PASSWORD", "KEYRING", "OPENAI_API_KEY"} {
		if !SecretName(name) {
			t.Errorf("SecretName(%q) = false", name)
		}
	}
	for _, name := range []string{"PATH", "HOME", "LANG", "TERM", "DEBUG"} {
		if SecretName(name) {
			t.Errorf("SecretName(%q) = true", name)
		}
	}
	got := WithoutSecretNames([]string{"PATH=/bin", "OPENAI_API_KEY=sk-x", "X_TOKEN=t", "HOME=/h", "broken"})
	if want := []string{"PATH=/bin", "HOME=/h"}; !slices.Equal(got, want) {
		t.Errorf("WithoutSecretNames = %q, want %q", got, want)
	}
}
