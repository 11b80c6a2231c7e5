package redact

import "strings"

// SecretFile reports whether a file's base name is one that holds secrets
// by convention: dotenv files (.env, .env.local, prod.env), credentials of
// package managers and tools (.npmrc, .pypirc, .netrc, .pgpass,
// .git-credentials), private keys (*.pem, *.key, *.p12, *.pfx, id_rsa and
// its kin). A repository's instruction files are never read from one.
func SecretFile(base string) bool {
	b := strings.ToLower(base)
	switch b {
	case ".env", ".npmrc", ".pypirc", ".netrc", ".pgpass", ".git-credentials", "credentials":
		return true
	}
	for _, p := range []string{".env.", "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519"} {
		if strings.HasPrefix(b, p) {
			return true
		}
	}
	for _, s := range []string{".env", ".pem", ".key", ".p12", ".pfx"} {
		if strings.HasSuffix(b, s) {
			return true
		}
	}
	return false
}
