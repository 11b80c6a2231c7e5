package telemetry

import "github.com/co-cli/co/lib/redact"

// The redaction itself lives in lib/redact, shared with the memory
// store (which refuses secrets rather than storing them redacted).

// Redacted replaces a secret found by value (a configured key or token).
const Redacted = redact.Redacted

// Redactor removes secrets from text.
type Redactor = redact.Redactor

// NewRedactor returns a Redactor for the secret values.
func NewRedactor(secrets []string) *Redactor { return redact.NewRedactor(secrets) }
