package config

import (
	"strconv"
	"strings"
)

// Error is a settings problem that stops co from starting: malformed JSON, a
// value of the wrong type or out of range. Its message is meant for the user
// as it is, e.g.
//
//	/p/.co-cli/settings.json:3:14: invalid character '}' looking for beginning of object key string
//	/h/.config/co-cli/settings.json: "tool_retries" must be an integer, got "three" (string)
//	$CO_CLI_THEME: "theme" must be "auto", "light" or "dark", got "blue"
type Error struct {
	// Source is the file path, "$NAME" for an environment variable, or ""
	// when the settings did not come from a file or the environment.
	Source string
	// Line and Column (1-based, in runes) locate a JSON syntax error; 0
	// otherwise.
	Line, Column int
	// Key is the setting concerned, or "" for a problem with the whole file.
	Key string
	// Msg is the message without the source, e.g. `"theme" must be ...`.
	Msg string
	// Err is the underlying error (a *json.SyntaxError, an fs error), if any.
	Err error
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Source != "" {
		b.WriteString(e.Source)
		if e.Line > 0 {
			b.WriteString(":" + strconv.Itoa(e.Line) + ":" + strconv.Itoa(e.Column))
		}
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// Warning is a problem that does not stop co: an unknown key in a settings
// file, or an XDG variable that had to be ignored.
type Warning struct {
	Source     string // file path or "$NAME"
	Key        string // the unknown key, if that is the problem
	Suggestion string // the known key it probably meant, or ""
	Msg        string // the whole message
}

func (w Warning) String() string { return w.Msg }

func unknownKeyWarning(source, key string) Warning {
	w := Warning{Source: source, Key: key, Suggestion: suggest(key)}
	w.Msg = "unknown setting " + quote(key) + " in " + source
	if w.Suggestion != "" {
		w.Msg += " (did you mean " + strconv.Quote(w.Suggestion) + "?)"
	}
	return w
}

// quoteKey starts a message about key: `"tool_retries" `.
func quoteKey(key string) string { return strconv.Quote(key) + " " }

// suggest returns the known key closest to an unknown one, or "" when none
// is close. An environment variable's name used as a key ("CO_CLI_THEME")
// and case or dash slips ("Tool-Retries") map straight to the key.
func suggest(key string) string {
	norm := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(key)), "-", "_")
	for i := range table {
		if norm == table[i].key || norm == strings.ToLower(table[i].env) {
			return table[i].key
		}
	}
	best, bestDist := "", len(norm)/4
	if bestDist < 2 {
		bestDist = 2
	}
	bestDist++ // allowed distance is < this
	for i := range table {
		if d := editDistance(norm, table[i].key); d < bestDist {
			best, bestDist = table[i].key, d
		}
	}
	return best
}

// editDistance is the optimal-string-alignment distance between a and b
// (Levenshtein plus adjacent transpositions), over bytes. Keys are ASCII.
func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 { // no key is this long; skip the work
		return max(len(a), len(b))
	}
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
