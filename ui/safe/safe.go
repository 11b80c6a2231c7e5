// Package safe is the one sanitiser that text from the LLM, tools, files or
// the network passes through before it reaches the terminal. It neutralises
// everything that could drive the terminal instead of being shown: escape
// sequences (CSI, OSC — including OSC 52 clipboard writes and OSC 8 links —,
// DCS, APC, PM, SOS), C1 controls, and the C0 controls other than newline and
// tab (a lone carriage return or backspace could overwrite what the user
// sees). ESC becomes a visible ␛ so a hostile reply is noticed, not obeyed.
// Bidirectional overrides, embeddings, isolates and marks and the
// zero-width characters that hide text (U+202E, U+200B, …) are shown as
// visible markers such as <U+202E> everywhere, so a reply cannot reorder or
// hide what the user reads; only the joiners U+200C and U+200D, which
// scripts and emoji need, are kept in ordinary text (Reveal marks them too).
//
// Text is stateless: it may be applied to a stream chunk by chunk with the
// same result as to the whole text.
//
// The rules live in the leaf internal/termsafe, so that telemetry's viewers
// (co tail, co traces, co logs), which may not import ui, apply the same ones.
package safe

import "github.com/co-cli/co/internal/termsafe"

// Text returns s with control characters neutralised: ESC (and so every
// escape sequence) is shown as ␛, other C0 and C1 controls and DEL are
// shown as their Unicode control pictures or dropped (CR), tab and newline
// are kept. Bidirectional controls and hiding zero-width characters are
// shown as <U+XXXX> (the joiners U+200C and U+200D are kept). Invalid UTF-8
// bytes become U+FFFD.
func Text(s string) string { return termsafe.Text(s) }

// Reveal is Text that also marks the zero-width joiners, e.g. <U+200D>. Use
// it where the user decides on what they read: the approval modal and
// approval prompts.
func Reveal(s string) string { return termsafe.Reveal(s) }

// HasHidden reports whether s contains characters Reveal would mark.
func HasHidden(s string) bool { return termsafe.HasHidden(s) }
