package memory

import (
	"strings"
	"unicode"
)

// FindMax is how many memories Find returns at most.
const FindMax = 200

// Find is what the chat's /memory view shows for what is typed in its
// search field: with no word, every memory as List orders them (pinned
// first, then newest); else the memories having every word typed, each as
// the start of a word (the last one is usually half typed), best first by
// BM25, and first of all the one whose id starts with a single word typed.
// Unlike Search, one-letter and common words count (the user is narrowing
// a list, not asking a question) and nothing counts as used: browsing is
// not recall. It returns at most limit memories (<= 0: FindMax) and how
// many matched in all.
func (s *Store) Find(query string, limit int) ([]Memory, int, error) {
	if limit <= 0 {
		limit = FindMax
	}
	words := findWords(query)
	if len(words) == 0 {
		ms, err := s.List()
		n := len(ms)
		if n > limit {
			ms = ms[:limit]
		}
		return ms, n, err
	}
	rows, err := s.rank(words, false, true)
	if err != nil {
		return nil, 0, err
	}
	var byID []Memory
	if len(words) == 1 && isHex(words[0]) {
		byID, err = s.query(`SELECT `+cols+` FROM memories WHERE id >= ? AND id < ? ORDER BY id LIMIT 2`, words[0], words[0]+"\xff")
		if err != nil {
			return nil, 0, err
		}
	}
	n := len(rows)
	if len(rows) > limit {
		rows = rows[:limit]
	}
	ms, err := s.byRowids(rows)
	if err != nil || len(byID) == 0 {
		return ms, n, err
	}
	// The id's memory first, once (its text may have the word too).
	out := byID
	for _, m := range ms {
		if m.ID != byID[0].ID && (len(byID) < 2 || m.ID != byID[1].ID) {
			out = append(out, m)
		} else {
			n--
		}
	}
	n += len(byID)
	if len(out) > limit {
		out = out[:limit]
	}
	return out, n, nil
}

// findWords splits a query typed in the view: letters and digits, lower
// case, each once (at most maxTerms).
func findWords(q string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(q), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if seen[w] {
			continue
		}
		seen[w] = true
		out = append(out, w)
		if len(out) == maxTerms {
			break
		}
	}
	return out
}

func isHex(w string) bool {
	for _, r := range w {
		if !strings.ContainsRune("0123456789abcdef", r) {
			return false
		}
	}
	return w != ""
}
