package tools

import (
	"strings"
	"unicode"
)

// The words that make a form field a secret, taken from the names real
// sign-up, login, payment, banking and 2FA forms give their fields
// (docs/SOURCES.md#secret-form-fields): the HTML autofill tokens
// (current-password, new-password, one-time-code, cc-number, cc-csc,
// cc-exp), framework conventions (Rails' and Laravel's
// password_confirmation, Django's password1/password2, Drupal's pass),
// payment SDKs' fields (Stripe's cardNumber/cardCvc/cardExpiry and iban,
// Braintree's and Square's cvv), and what banks and wallets ask for.
// They are matched as whole words of the field's name, title or
// description (split at anything not a letter or digit and at camelCase
// humps, trailing digits dropped: password2 is password), never as
// substrings: "bypass cache", "passenger", "compass", "tokenizer",
// "pinned" and "keyboard" are no secrets.
var (
	// secretWord: one word is enough.
	secretWord = setOf(
		// passwords (pw, pwd, passwd: login forms; pass: Drupal's)
		"password", "passwd", "pwd", "pw", "pass", "passcode", "passphrase", "pin", "pincode",
		"passwort", "kennwort", "contraseña", "contrasena", "senha", "wachtwoord", "lösenord", "пароль",
		// one-time codes and second factors
		"otp", "totp", "hotp", "mfa", "2fa", "tfa", "2sv", "authenticator",
		// payment cards (cvv, cvc, csc, cvn: the code on the card)
		"cvv", "cvc", "csc", "cvn", "ccnum", "ccnumber", "cardnumber", "cardno", "creditcard",
		// bank accounts and identity numbers
		"iban", "ssn", "itin",
		// credentials
		"secret", "token", "apikey", "credential", "credentials", "privatekey", "secretkey", "accesskey",
		"mnemonic", "seedphrase",
	)
	// secretPart: a word that contains one of these is enough
	// (confirmpassword, newpasswd; scripts written without spaces).
	secretPart = []string{"password", "passwd", "passphrase", "passcode", "密码", "パスワード", "비밀번호"}
	// secretPhrase: these words in a row.
	secretPhrase = [][]string{
		{"one", "time"}, {"verification", "code"}, {"security", "code"}, {"auth", "code"},
		{"authentication", "code"}, {"authorization", "code"}, {"confirmation", "code"}, {"login", "code"},
		{"sign", "in", "code"}, {"signin", "code"}, {"access", "code"}, {"backup", "code"}, {"recovery", "code"},
		{"sms", "code"}, {"two", "factor"}, {"2", "factor"}, {"second", "factor"}, {"mot", "de", "passe"},
		{"api", "key"}, {"private", "key"}, {"secret", "key"}, {"access", "key"}, {"signing", "key"},
		{"encryption", "key"}, {"license", "key"}, {"licence", "key"}, {"recovery", "key"}, {"master", "key"},
		{"seed", "phrase"}, {"seed", "words"}, {"recovery", "phrase"}, {"wallet", "seed"},
		{"cc", "number"}, {"cc", "num"}, {"cc", "exp"}, {"card", "number"}, {"card", "num"}, {"card", "no"},
		{"credit", "card"}, {"debit", "card"}, {"card", "exp"}, {"card", "expiry"}, {"card", "expiration"},
		{"account", "number"}, {"account", "no"}, {"acct", "number"}, {"acct", "no"}, {"acct", "num"},
		{"bank", "account"}, {"routing", "number"}, {"aba", "number"}, {"sort", "code"},
		{"social", "security"}, {"social", "insurance"}, {"national", "insurance"}, {"national", "id"},
		{"tax", "id"}, {"taxpayer", "id"}, {"tax", "number"}, {"tax", "identification"},
		{"passport", "number"}, {"security", "answer"},
	}
	// aboutWord: a secret word followed by one of these names something
	// about the secret, not the secret (token_count, password_hint,
	// secret_name, api_key_id, private_key_path, pin_location).
	aboutWord = setOf(
		"name", "names", "label", "title", "id", "ids", "type", "kind", "count", "length", "len", "size",
		"limit", "limits", "max", "min", "description", "desc", "hint", "expiry", "expiration", "expires",
		"scope", "scopes", "format", "policy", "strength", "rule", "rules", "url", "uri", "endpoint", "path",
		"file", "filename", "dir", "location", "lat", "lng", "rate", "usage", "budget", "window", "estimate",
		"through", "thru", "manager", "enabled", "required", "reset", "age", "header", "provider", "version",
		"fail", "tab", "color", "colour",
	)
	// aboutBefore: a secret word after one of these is a count or a kind
	// of something else (max_token, boarding pass, day pass).
	aboutBefore = setOf("max", "min", "num", "total", "input", "output", "prompt", "completion",
		"boarding", "season", "day", "bus", "ski", "mountain", "drop", "map")
)

func setOf(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// LooksSecret reports whether a field's name, title or description reads
// like it asks for a secret: a password, a one-time or 2FA code, a card,
// bank account or identity number, an API key or token, a wallet's seed
// phrase.
func LooksSecret(texts ...string) bool {
	for _, s := range texts {
		if wordsSecret(fieldWords(s)) {
			return true
		}
	}
	return false
}

func wordsSecret(w []string) bool {
	for i := range w {
		if n := secretAt(w, i); n > 0 {
			before := i > 0 && aboutBefore[w[i-1]]
			after := i+n < len(w) && aboutWord[w[i+n]]
			if !before && !after {
				return true
			}
		}
	}
	return false
}

// secretAt is how many words from w[i] on name a secret, 0 when none do.
func secretAt(w []string, i int) int {
	for _, p := range secretPhrase {
		if i+len(p) <= len(w) && equalWords(w[i:i+len(p)], p) {
			return len(p)
		}
	}
	if secretWord[w[i]] {
		return 1
	}
	for _, part := range secretPart {
		if strings.Contains(w[i], part) {
			return 1
		}
	}
	return 0
}

func equalWords(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// fieldWords splits s into lower-case words: at anything not a letter or
// a digit, and at camelCase humps (cardNumber, APIKey: api key); a word's
// trailing digits are dropped (password2, cvc2), a word of digits kept.
func fieldWords(s string) []string {
	var out []string
	rs := []rune(s)
	start := -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		w := strings.ToLower(string(rs[start:end]))
		if t := strings.TrimRightFunc(w, unicode.IsDigit); t != "" {
			w = t
		}
		out = append(out, w)
		start = -1
	}
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush(i)
			continue
		}
		if start >= 0 && unicode.IsUpper(r) {
			prev := rs[i-1]
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) && !digitsOnly(rs[start:i]) || unicode.IsUpper(prev) && nextLower {
				flush(i)
			}
		}
		if start < 0 {
			start = i
		}
	}
	flush(len(rs))
	return out
}

func digitsOnly(rs []rune) bool {
	for _, r := range rs {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}
