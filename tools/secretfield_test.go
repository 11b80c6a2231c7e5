package tools_test

import (
	"testing"

	"github.com/co-cli/co/tools"
)

// The names, titles and descriptions real forms give their secret fields
// (docs/SOURCES.md#secret-form-fields) look secret; the ordinary ones,
// including words that merely contain a secret word ("bypass cache",
// "compass", "tokenizer"), do not.
func TestLooksSecret(t *testing.T) {
	secret := []string{
		// passwords: HTML autofill tokens, Rails/Laravel, Django, Drupal, login forms
		"password", "Password", "current-password", "new-password", "password_confirmation", "password_confirm",
		"passwordConfirmation", "confirmPassword", "confirm_password", "Confirm password", "password1", "password2",
		"repassword", "re_password", "newPassword", "old_password", "passwd", "pwd", "pw", "pass", "user_pass",
		"db_pass", "passphrase", "Pass phrase", "passcode", "PASSWORD", "Mot de passe", "Passwort", "contraseña", "密码",
		// PINs and one-time codes
		"pin", "PIN", "pin_code", "pinCode", "PIN number", "pin1", "otp", "totp", "one-time-code", "One-time code",
		"mfa_code", "2fa", "2FA code", "2faCode", "twoFactorCode", "two_factor_code", "verification_code",
		"Verification code", "verificationCode", "security_code", "Security code", "auth_code", "sms_code",
		"backup_code", "Recovery code", "Authenticator code", "confirmation_code",
		"Enter the 6-digit code from your authenticator app",
		// payment cards: autofill tokens, Stripe Elements, Braintree/Square
		"cc-number", "cc-csc", "cc-exp", "cc-exp-month", "cvv", "CVV", "cvc", "cvc2", "cardNumber", "cardCvc",
		"cardExpiry", "card_number", "Card number", "creditCardNumber", "credit_card", "ccnum",
		// bank accounts and identity numbers
		"iban", "IBAN", "account_number", "accountNumber", "Account number", "acct_no", "routing_number",
		"routingNumber", "sort_code", "sortCode", "bank_account", "ssn", "SSN", "Social Security number",
		"social_security_number", "tax_id", "taxId", "Tax ID", "National Insurance number", "passport_number",
		// credentials
		"api_key", "apiKey", "APIKey", "API key", "x-api-key", "apikey", "secret", "client_secret", "clientSecret",
		"token", "access_token", "refresh_token", "authToken", "bearer_token", "GitHub token", "private_key",
		"privateKey", "secret_access_key", "credentials", "security_answer", "license_key", "password_reset_token",
		// wallets
		"mnemonic", "seed_phrase", "Seed phrase", "Recovery phrase", "Secret recovery phrase", "wallet_seed",
	}
	clear := []string{
		// words that contain a secret word
		"bypass cache", "bypass_cache", "passenger", "Passenger count", "compass", "compass_heading", "tokenizer",
		"tokens", "max_tokens", "maxTokens", "pinned", "pinned_only", "keyboard", "keyboard_layout", "spinner",
		"secretary", "passage", "password_hint", "passive", "opinion", "pinterest_url",
		// about a secret, not the secret
		"token_count", "tokenCount", "max_token", "token_type", "token_name", "secret_name", "api_key_id",
		"access_key_id", "private_key_path", "password_policy", "pass_through", "boarding pass", "pin_location",
		// ordinary fields of the same forms
		"name", "email", "username", "first_name", "address-line1", "postal_code", "zip code", "country_code",
		"promo_code", "Discount code", "coupon", "code", "source_code", "language", "timezone", "phone",
		"cardholderName", "cardholder_name", "expiration_date", "seed", "random_seed", "sort_order", "account_name",
		"account", "bank_name", "key", "sort_key", "primary key", "amount", "currency", "message", "comment",
		"Your full, legal name", "where to reply", "Favorite number", "passport_country",
	}
	for _, s := range secret {
		if !tools.LooksSecret(s) {
			t.Errorf("%q does not look secret", s)
		}
	}
	for _, s := range clear {
		if tools.LooksSecret(s) {
			t.Errorf("%q looks secret", s)
		}
	}
}
