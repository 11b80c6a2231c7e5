package extensions

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Problem is something wrong with an instruction file, a skill or a
// command. Path and Line say where (Line 0: the file as a whole); Msg says
// what and what co did about it (not loaded, loaded anyway, shadowed).
type Problem struct {
	Path string
	Line int
	Msg  string
}

func (p Problem) String() string {
	if p.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", p.Path, p.Line, p.Msg)
	}
	return p.Path + ": " + p.Msg
}

// frontMatter is a file split into its YAML front matter and its body.
type frontMatter struct {
	// fields are the top-level scalar values by key, with their lines in
	// the file.
	fields map[string]field
	body   string
	has    bool // the file had front matter
}

type field struct {
	value  string
	line   int
	scalar bool // a string, number or boolean (not a list or mapping)
}

// yamlLine finds "line N" in a YAML error message.
var yamlLine = regexp.MustCompile(`line (\d+)`)

// parseFrontMatter splits data into front matter and body. Front matter is
// the lines between a first line "---" and the next line "---" (the
// format of SKILL.md, https://agentskills.io/specification, and of
// Markdown front matter generally), parsed as YAML with go.yaml.in/yaml/v3.
// A file that does not start with "---" has none (required says whether
// that is a problem). Lines in problems are the file's lines.
func parseFrontMatter(path string, data []byte, required bool) (frontMatter, *Problem) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	first, rest, _ := strings.Cut(text, "\n")
	if strings.TrimRight(first, " \t") != "---" {
		if required {
			return frontMatter{}, &Problem{Path: path, Line: 1, Msg: `the file must start with YAML front matter: a line "---", then "name: …" and "description: …", then a line "---"`}
		}
		return frontMatter{body: text}, nil
	}
	// Find the closing line.
	var yml string
	end := -1
	off := 0
	for off <= len(rest) {
		line, _, found := strings.Cut(rest[off:], "\n")
		if strings.TrimRight(line, " \t") == "---" {
			yml, end = rest[:off], off+len(line)
			break
		}
		if !found {
			break
		}
		off += len(line) + 1
	}
	if end < 0 {
		return frontMatter{}, &Problem{Path: path, Line: 1, Msg: `the front matter opened by "---" on line 1 is never closed: end it with a line "---"`}
	}
	body := strings.TrimPrefix(rest[end:], "\n")
	fm := frontMatter{fields: map[string]field{}, body: body, has: true}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(yml), &doc); err != nil {
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		// yaml.v3 leaves the line out of an error on the first line of
		// the YAML, which is the file's second.
		line := 2
		if m := yamlLine.FindStringSubmatchIndex(msg); m != nil {
			n, _ := strconv.Atoi(msg[m[2]:m[3]])
			line = n + 1 // the front matter starts on line 2
			msg = strings.TrimSpace(strings.TrimPrefix(msg[:m[0]]+msg[m[1]:], ":"))
		}
		hint := ""
		if strings.Contains(msg, "mapping values are not allowed") {
			hint = ` (a value containing ": " must be quoted, e.g. description: "Use when: …")`
		}
		return frontMatter{}, &Problem{Path: path, Line: line, Msg: "the front matter is not valid YAML: " + msg + hint}
	}
	if len(doc.Content) == 0 {
		return fm, nil // empty front matter
	}
	m := doc.Content[0]
	if m.Kind != yaml.MappingNode {
		return frontMatter{}, &Problem{Path: path, Line: m.Line + 1, Msg: "the front matter must be keys and values (name: …, description: …)"}
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		f := field{line: v.Line + 1, scalar: v.Kind == yaml.ScalarNode}
		if f.scalar && v.Tag != "!!null" {
			f.value = v.Value
		}
		fm.fields[k.Value] = f
	}
	return fm, nil
}

// text returns the string value of key; a problem when it is not a single
// value.
func (fm frontMatter) text(path, key string) (string, int, *Problem) {
	f, ok := fm.fields[key]
	if !ok {
		return "", 0, nil
	}
	if !f.scalar {
		return "", f.line, &Problem{Path: path, Line: f.line, Msg: fmt.Sprintf("%s must be a single line of text, not a list or a mapping", key)}
	}
	return f.value, f.line, nil
}
