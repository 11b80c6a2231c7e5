package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"github.com/co-cli/co/lib/cost"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/co-cli/co/hooks"
)

// Change is one edit of a settings file: Key set to Value (text, parsed as
// its environment variable is: `co config set KEY VALUE`), or, with Unset,
// Key removed from the file so the value below it (the default) applies.
type Change struct {
	Key, Value string
	Unset      bool
}

// EditFile applies changes to the settings file at path (the user file,
// normally Paths.UserFile) and writes it back the way Save writes: atomically,
// mode 0600, through a symbolic link, the directory created with mode 0700.
// It is what `co config set` and `co config unset`, and the chat's first-run
// setup, save with.
//
// Every value is checked as the loader checks it, with the loader's
// messages, before anything is written; an unknown key is refused with a
// "did you mean". The file must load as it is: a file the loader refuses is
// not touched (its *Error, naming the line, is returned). Everything the
// edit does not concern is kept byte for byte: the other keys, their order
// and formatting, and keys this co does not know (a newer co's). A key set
// that the file lacks is added after its last key; a key set twice in the
// file (the loader reads the last) keeps only its last place. Unsetting a
// key the file lacks changes nothing, and writes nothing.
func EditFile(path string, changes ...Change) error {
	data, err := os.ReadFile(path)
	missing := errors.Is(err, fs.ErrNotExist)
	if err != nil && !missing {
		return &Error{Source: path, Msg: "cannot read settings: " + readError(err), Err: err}
	}
	if !missing {
		if _, _, err := decodeFile(path, data, ""); err != nil {
			return err
		}
	}
	bom := []byte{}
	if b, ok := bytes.CutPrefix(data, []byte("\xef\xbb\xbf")); ok {
		bom, data = []byte("\xef\xbb\xbf"), b
	}
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{}\n")
	}
	text := data
	changed := false
	for _, c := range changes {
		f := lookupField(c.Key)
		if f == nil {
			return unknownSettingError(c.Key)
		}
		var enc []byte
		if !c.Unset {
			if strings.TrimSpace(c.Value) == "" {
				return &Error{Key: f.key, Msg: quoteKey(f.key) + "needs a value; to go back to the default, unset it" +
					listHint(f)}
			}
			v, err := f.parseText(c.Value, "", "") // "~/" stays as written: the loader expands it
			if err != nil {
				return err
			}
			if enc, err = encodeValue(v); err != nil {
				return &Error{Source: path, Key: f.key, Msg: "cannot encode " + quote(f.key) + ": " + err.Error(), Err: err}
			}
		}
		var did bool
		if text, did, err = editMember(text, f.key, enc, c.Unset); err != nil {
			return &Error{Source: path, Msg: "cannot edit settings: " + err.Error(), Err: err}
		}
		changed = changed || did
	}
	if !changed {
		return nil
	}
	out := append(bom, text...)
	// The edit keeps what was valid valid; check it as the loader will.
	if _, _, err := decodeFile(path, out, ""); err != nil {
		return err
	}
	return writeSettings(path, out)
}

// listHint adds, for a list, how to set it empty.
func listHint(f *field) string {
	switch f.kind() {
	case KindStringList, KindPolicy:
		return `; to set an empty list, give []`
	case KindMCP:
		return `; to set no servers, give {}`
	case KindSchedules:
		return `; to set no schedules, give {} (co schedule rm removes one with its entry)`
	case KindHooks:
		return `; to set no hooks, give {}`
	case KindPrices:
		return `; to set no prices of your own, give {}`
	}
	return ""
}

// unknownSettingError refuses a key that is not a setting, with the
// closest one.
func unknownSettingError(key string) error {
	msg := "unknown setting " + quote(key)
	if sug := suggest(key); sug != "" {
		msg += " (did you mean " + quote(sug) + "?)"
	}
	return &Error{Key: key, Msg: msg + "; co config lists every setting"}
}

// encodeValue renders a setting's value as a settings file holds it.
func encodeValue(v any) ([]byte, error) {
	v = fileValue(v)
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// fileValue is v as a settings file holds it: [] rather than null for an
// empty list, MCP servers as an object by name. Save and EditFile both
// write through it.
func fileValue(v any) any {
	switch x := v.(type) {
	case []string:
		if x == nil {
			return []string{}
		}
	case []PolicyRule:
		if x == nil {
			return []PolicyRule{}
		}
	case []MCPServer:
		return mcpObject(x)
	case []Schedule:
		return scheduleObject(x)
	case hooks.Config:
		if x == nil {
			return hooks.Config{}
		}
	case cost.Prices:
		if x == nil {
			return cost.Prices{}
		}
	}
	return v
}

// member is one key of a JSON object, located in its text.
type member struct {
	key                        string
	keyStart, valStart, valEnd int
}

// members locates the top-level object's keys in text, and its braces.
func members(text []byte) (ms []member, open, closing int, err error) {
	dec := json.NewDecoder(bytes.NewReader(text))
	tok, err := dec.Token()
	if err != nil {
		return nil, 0, 0, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, 0, 0, errors.New("not a JSON object")
	}
	open = int(dec.InputOffset()) - 1
	for dec.More() {
		from := int(dec.InputOffset())
		tok, err := dec.Token()
		if err != nil {
			return nil, 0, 0, err
		}
		key, _ := tok.(string)
		keyStart := skip(text, from, " \t\r\n,")
		valStart := skip(text, int(dec.InputOffset()), " \t\r\n:")
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, 0, 0, err
		}
		ms = append(ms, member{key, keyStart, valStart, int(dec.InputOffset())})
	}
	if _, err := dec.Token(); err != nil {
		return nil, 0, 0, err
	}
	return ms, open, int(dec.InputOffset()) - 1, nil
}

// skip returns the first offset at or after i whose byte is not in set.
func skip(text []byte, i int, set string) int {
	for i < len(text) && strings.IndexByte(set, text[i]) >= 0 {
		i++
	}
	return i
}

// editMember sets key to the encoded value enc (or removes it when unset)
// in the object text, leaving the rest of the text as it is.
func editMember(text []byte, key string, enc []byte, unset bool) ([]byte, bool, error) {
	changed := false
	for {
		ms, open, closing, err := members(text)
		if err != nil {
			return nil, false, err
		}
		var at []int
		for i, m := range ms {
			if m.key == key {
				at = append(at, i)
			}
		}
		switch {
		case len(at) > 1 || (unset && len(at) == 1):
			text = removeMember(text, ms, at[0], open, closing) // then look again
			changed = true
		case unset:
			return text, changed, nil
		case len(at) == 1:
			m := ms[at[0]]
			val := layout(text, m.keyStart, enc)
			if bytes.Equal(text[m.valStart:m.valEnd], val) {
				return text, changed, nil
			}
			return splice(text, m.valStart, m.valEnd, val), true, nil
		default:
			name, _ := json.Marshal(key)
			if len(ms) == 0 {
				entry := append(append(name, ": "...), indentValue(enc, "  ")...)
				return splice(text, open+1, closing, append(append([]byte("\n  "), entry...), '\n')), true, nil
			}
			last := ms[len(ms)-1]
			sep := " " // a one-line object stays on one line
			if ind, ok := ownLine(text, last.keyStart); ok {
				sep = "\n" + ind
			}
			entry := append(append(name, ": "...), layout(text, last.keyStart, enc)...)
			return splice(text, last.valEnd, last.valEnd, append([]byte(","+sep), entry...)), true, nil
		}
	}
}

// removeMember cuts member i out with its comma and the space before the
// next key, so what follows takes its place.
func removeMember(text []byte, ms []member, i, open, closing int) []byte {
	switch {
	case len(ms) == 1:
		return splice(text, open+1, closing, nil)
	case i < len(ms)-1:
		return splice(text, ms[i].keyStart, ms[i+1].keyStart, nil)
	default:
		return splice(text, ms[i-1].valEnd, ms[i].valEnd, nil)
	}
}

// ownLine reports whether the key at offset i starts its own line, and
// the white space before it.
func ownLine(text []byte, i int) (indent string, ok bool) {
	nl := bytes.LastIndexByte(text[:i], '\n')
	if nl < 0 {
		return "", false
	}
	if ind := text[nl+1 : i]; len(bytes.TrimLeft(ind, " \t")) == 0 {
		return string(ind), true
	}
	return "", false
}

// layout lays out an encoded value for the key at offset i: indented to the
// key's line when the key starts its own line, else on one line.
func layout(text []byte, i int, enc []byte) []byte {
	if ind, ok := ownLine(text, i); ok {
		return indentValue(enc, ind)
	}
	var b bytes.Buffer
	if json.Compact(&b, enc) != nil {
		return enc
	}
	return b.Bytes()
}

// indentValue indents the continuation lines of an encoded value.
func indentValue(enc []byte, indent string) []byte {
	if indent == "" {
		return enc
	}
	return bytes.ReplaceAll(enc, []byte("\n"), []byte("\n"+indent))
}

func splice(text []byte, from, to int, with []byte) []byte {
	out := make([]byte, 0, len(text)-(to-from)+len(with))
	out = append(out, text[:from]...)
	out = append(out, with...)
	return append(out, text[to:]...)
}

// writeSettings writes data to path as Save does: through a symbolic link,
// atomically, mode 0600.
func writeSettings(path string, data []byte) error {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		if target, err := filepath.EvalSymlinks(path); err == nil {
			path = target
		}
	}
	if err := writeAtomic(path, data); err != nil {
		return &Error{Source: path, Msg: "cannot save settings: " + err.Error(), Err: err}
	}
	return nil
}

// CheckValue checks value for key as EditFile (and the loader, for the
// environment variable) would, without writing anything: for a form that
// asks for one value at a time (the chat's first-run setup).
func CheckValue(key, value string) error {
	f := lookupField(key)
	if f == nil {
		return unknownSettingError(key)
	}
	_, err := f.parseText(value, "", "")
	return err
}
