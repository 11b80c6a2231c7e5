package notes

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// parseTags returns a note's tags, lower-cased and without '#', in the
// order first seen: from the front matter (tags: or tag:, as a list, a
// [flow, list] or a string of words separated by commas or spaces) and
// inline #tags in the text outside code.
func parseTags(text string) []string {
	var tags []string
	seen := map[string]bool{}
	add := func(t string) {
		t = strings.ToLower(strings.TrimPrefix(strings.Trim(strings.TrimSpace(t), `"'`), "#"))
		if t != "" && !seen[t] && validTag(t) {
			seen[t] = true
			tags = append(tags, t)
		}
	}
	fm, body := frontMatter(text)
	for _, t := range frontMatterTags(fm) {
		add(t)
	}
	for _, t := range inlineTags(body) {
		add(t)
	}
	return tags
}

// frontMatter splits a note into its YAML front matter (without the ---
// lines) and the rest.
func frontMatter(text string) (fm, body string) {
	if !strings.HasPrefix(text, "---\n") && !strings.HasPrefix(text, "---\r\n") {
		return "", text
	}
	rest := text[strings.IndexByte(text, '\n')+1:]
	off := 0
	for off <= len(rest) {
		end := strings.IndexByte(rest[off:], '\n')
		line := rest[off:]
		if end >= 0 {
			line = rest[off : off+end]
		}
		if l := strings.TrimRight(line, "\r \t"); l == "---" || l == "..." {
			if end < 0 {
				return rest[:off], ""
			}
			return rest[:off], rest[off+end+1:]
		}
		if end < 0 {
			break
		}
		off += end + 1
	}
	return "", text // not closed: not front matter
}

// frontMatterTags reads the tags: (or tag:) key of front matter.
func frontMatterTags(fm string) []string {
	var out []string
	lines := strings.Split(fm, "\n")
	for i := 0; i < len(lines); i++ {
		line := strings.TrimRight(lines[i], "\r")
		key, val, ok := strings.Cut(line, ":")
		if !ok || strings.HasPrefix(key, " ") || strings.HasPrefix(key, "\t") {
			continue
		}
		if k := strings.ToLower(strings.TrimSpace(key)); k != "tags" && k != "tag" {
			continue
		}
		val = strings.TrimSpace(val)
		switch {
		case strings.HasPrefix(val, "["):
			val = strings.TrimSuffix(strings.TrimPrefix(val, "["), "]")
			out = append(out, strings.Split(val, ",")...)
		case val != "":
			out = append(out, strings.FieldsFunc(val, func(r rune) bool { return r == ',' || unicode.IsSpace(r) })...)
		default:
			// A block list on the following lines: "  - tag".
			for i+1 < len(lines) {
				next := strings.TrimSpace(strings.TrimRight(lines[i+1], "\r"))
				if !strings.HasPrefix(next, "-") {
					break
				}
				out = append(out, strings.TrimSpace(strings.TrimPrefix(next, "-")))
				i++
			}
		}
	}
	return out
}

// inlineTags finds #tags outside fenced code and `code spans`: a # at the
// start of a line or after a space or one of "(,;", followed by letters,
// digits, _, - or / (nested tags). A heading's "# " is no tag.
func inlineTags(body string) []string {
	var out []string
	fence := ""
	for len(body) > 0 {
		line := body
		if i := strings.IndexByte(body, '\n'); i >= 0 {
			line, body = body[:i], body[i+1:]
		} else {
			body = ""
		}
		trimmed := strings.TrimSpace(line)
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = trimmed[:3]
			continue
		}
		if strings.IndexByte(line, '#') < 0 {
			continue
		}
		inCode := false
		for i := 0; i < len(line); i++ {
			switch c := line[i]; {
			case c == '`':
				inCode = !inCode
			case c == '#' && !inCode && (i == 0 || strings.IndexByte(" \t(,;", line[i-1]) >= 0):
				j := i + 1
				for j < len(line) {
					r, size := utf8.DecodeRuneInString(line[j:])
					if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-' || r == '/') {
						break
					}
					j += size
				}
				if j > i+1 {
					out = append(out, line[i+1:j])
				}
				i = j - 1
			}
		}
	}
	return out
}

// validTag: Obsidian tags need at least one character that is not a digit.
func validTag(t string) bool {
	for _, r := range t {
		if !unicode.IsDigit(r) && r != '/' && r != '-' && r != '_' {
			return true
		}
	}
	return false
}

// hasTag reports whether tags include want or a tag nested under it
// (want "project" matches "project/alpha").
func hasTag(tags []string, want string) bool {
	for _, t := range tags {
		if t == want || strings.HasPrefix(t, want+"/") {
			return true
		}
	}
	return false
}
