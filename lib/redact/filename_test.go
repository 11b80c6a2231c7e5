package redact

import "testing"

func TestSecretFile(t *testing.T) {
	for _, n := range []string{".env", ".ENV", ".env.local", "prod.env", ".npmrc", ".netrc", "id_rsa", "id_ed25519.pub", "deploy.pem", "tls.key", "credentials"} {
		if !SecretFile(n) {
			t.Errorf("SecretFile(%q) = false", n)
		}
	}
	for _, n := range []string{"AGENTS.md", ".cursorrules", "env.md", "environment.md", "keys.md", ".envrc", "README"} {
		if SecretFile(n) {
			t.Errorf("SecretFile(%q) = true", n)
		}
	}
}
