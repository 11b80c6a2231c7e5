package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/co-cli/co/lib/cost"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/co-cli/co/hooks"
)

// LoadOptions say where Load looks. The zero value means the real process:
// os.LookupEnv, the current directory and the user's home directory. Tests
// set all three so they never touch the real home or environment.
type LoadOptions struct {
	// Getenv looks up an environment variable (settings and XDG_*). Default
	// os.LookupEnv.
	Getenv func(name string) (string, bool)
	// WorkDir is where the project file is looked for. Default os.Getwd.
	WorkDir string
	// HomeDir is the home directory. Default os.UserHomeDir.
	HomeDir string
	// Partial makes Load go on past the problems that stop co, for the
	// commands that report (co status, co config): a settings file that
	// cannot be read or is not a JSON object is left out whole, a value of
	// the wrong type or out of range (in a file or an environment
	// variable) is left out alone. Load then returns the settings without
	// them, each problem in Loaded.Problems, and the same problems as its
	// error. Without a home or working directory it still fails.
	Partial bool
}

func (opts LoadOptions) withDefaults() LoadOptions {
	if opts.Getenv == nil {
		opts.Getenv = os.LookupEnv
	}
	return opts
}

// Layer is where a value came from, lowest precedence first.
type Layer int

// The layers, in the order they apply.
const (
	LayerDefault Layer = iota
	LayerUser
	LayerProject
	LayerEnv
)

func (l Layer) String() string {
	switch l {
	case LayerDefault:
		return "default"
	case LayerUser:
		return "user"
	case LayerProject:
		return "project"
	case LayerEnv:
		return "env"
	}
	return "Layer(" + strconv.Itoa(int(l)) + ")"
}

// Source is the provenance of one effective value.
type Source struct {
	Layer Layer
	// Name is the file path for LayerUser and LayerProject, the variable
	// name (without $) for LayerEnv, "" for LayerDefault.
	Name string
}

// String returns "default", the file path, or "$NAME".
func (s Source) String() string {
	switch s.Layer {
	case LayerDefault:
		return "default"
	case LayerEnv:
		return "$" + s.Name
	}
	return s.Name
}

// Loaded is the result of Load.
type Loaded struct {
	Settings Settings
	Paths    Paths
	// Sources holds, for every key in the table, where its effective value
	// came from.
	Sources map[string]Source
	// Files are the settings files that existed and were read, in order.
	Files []string
	// Warnings are problems that did not stop the load (unknown keys,
	// ignored XDG variables, settings a project file may not set). Show
	// them to the user.
	Warnings []Warning
	// Ignored are the values a settings file held that are not in effect:
	// the user-only settings of the project file, in table order.
	Ignored []Ignored
	// Problems are what a LoadOptions.Partial load left out, in the order
	// found: whole files (Key "") and single values.
	Problems []*Error
	// ProjectHooks are the project file's "hooks" (ProjectHooksFile),
	// apart from the user's (Settings.Hooks): they run only once the user
	// consents to them (hooks.Trust).
	ProjectHooks     hooks.Config
	ProjectHooksFile string
}

// problem records err's problems (LoadOptions.Partial).
func (l *Loaded) problem(err error) {
	if e, ok := err.(*Error); ok {
		l.Problems = append(l.Problems, e)
		return
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok { // errors.Join
		for _, x := range j.Unwrap() {
			l.problem(x)
		}
		return
	}
	l.Problems = append(l.Problems, &Error{Msg: err.Error(), Err: err})
}

// Problem returns the problem found in the settings file at path that
// left the whole file out (LoadOptions.Partial), or nil.
func (l *Loaded) Problem(path string) *Error {
	for _, p := range l.Problems {
		if p.Source == path && p.Key == "" {
			return p
		}
	}
	return nil
}

// problems is a Partial load's error: its problems, joined.
func (l *Loaded) problems() error {
	errs := make([]error, len(l.Problems))
	for i, p := range l.Problems {
		errs[i] = p
	}
	return joinErrors(errs)
}

// Ignored is a value a settings file set that Load ignored.
type Ignored struct {
	Key    string
	Source Source // the file that set it
	// Why says why the file may not set it.
	Why string
}

// IsSet reports whether the user chose key's value (in a file or the
// environment) rather than leaving the default.
func (l *Loaded) IsSet(key string) bool {
	src, ok := l.Sources[key]
	return ok && src.Layer != LayerDefault
}

// Load returns the effective settings: defaults, then the user file, then
// the project file, then the environment, each replacing earlier values key
// by key. A missing file is skipped. The error, if any, is an *Error or
// several joined with errors.Join; Load stops at the first layer with
// problems and reports all of that layer's problems.
func Load(opts LoadOptions) (*Loaded, error) {
	opts = opts.withDefaults()
	paths, warns, err := resolvePaths(opts)
	if err != nil {
		return nil, err
	}
	home, _ := opts.home() // for "~/" in path settings; none if unknown
	l := &Loaded{
		Settings: Defaults(),
		Paths:    paths,
		Sources:  make(map[string]Source, len(table)),
		Warnings: warns,
	}
	for i := range table {
		l.Sources[table[i].key] = Source{Layer: LayerDefault}
	}

	files := []struct {
		layer Layer
		path  string
	}{{LayerUser, paths.UserFile}, {LayerProject, paths.ProjectFile}}
	for _, file := range files {
		data, err := os.ReadFile(file.path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			err := &Error{Source: file.path, Msg: "cannot read settings: " + readError(err), Err: err}
			if !opts.Partial {
				return nil, err
			}
			l.problem(err)
			continue
		}
		l.Files = append(l.Files, file.path)
		vals, fileWarns, err := decodeFile(file.path, data, home)
		l.Warnings = append(l.Warnings, fileWarns...)
		if err != nil {
			if !opts.Partial {
				return nil, err
			}
			l.problem(err) // vals holds the file's good values, if any
		}
		for _, kv := range vals {
			v := kv.v
			if file.layer == LayerProject && kv.f.kind() == KindHooks {
				// Kept apart: a project's hooks run only with the
				// user's consent, and never as the user's own.
				l.ProjectHooks, l.ProjectHooksFile = v.(hooks.Config), file.path
				continue
			}
			if file.layer == LayerProject {
				var ok bool
				if v, ok = l.projectValue(file.path, kv.f.key, v); !ok {
					continue
				}
			}
			kv.f.set(&l.Settings, v)
			l.Sources[kv.f.key] = Source{Layer: file.layer, Name: file.path}
		}
	}

	var errs []error
	for i := range table {
		f := &table[i]
		if f.env == "" {
			continue // a user-file-only setting (schedules)
		}
		text, ok := opts.Getenv(f.env)
		if !ok || strings.TrimSpace(text) == "" {
			continue
		}
		v, err := f.parseText(text, "$"+f.env, home)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		f.set(&l.Settings, v)
		l.Sources[f.key] = Source{Layer: LayerEnv, Name: f.env}
	}
	if err := joinErrors(errs); err != nil {
		if !opts.Partial {
			return nil, err
		}
		l.problem(err)
	}
	if len(l.Problems) > 0 {
		return l, l.problems()
	}
	return l, nil
}

// projectValue filters a value from the project file: a setting that is not
// on the allow list (projectAllowed) is ignored, and allow rules are
// dropped from shell_policy, each with a warning. ok is false when nothing
// of the value is kept.
func (l *Loaded) projectValue(path, key string, v any) (any, bool) {
	if !projectMaySet(key) {
		why := projectWhy(key)
		l.Ignored = append(l.Ignored, Ignored{Key: key, Source: Source{Layer: LayerProject, Name: path}, Why: why})
		l.Warnings = append(l.Warnings, Warning{Source: path, Key: key, Msg: l.ignoredMsg(path, key, why)})
		return nil, false
	}
	if servers, ok := v.([]MCPServer); ok {
		return l.projectMCPServers(path, servers), true
	}
	rules, isRules := v.([]PolicyRule)
	if !isRules {
		return v, true
	}
	kept := rules[:0:0]
	for _, r := range rules {
		if strings.EqualFold(r.Decision, "allow") {
			l.Warnings = append(l.Warnings, Warning{Source: path, Key: key,
				Msg: fmt.Sprintf("ignored the allow rule %q in %s: a project file may add ask and deny rules only; put allow rules in %s", r.Match, path, l.Paths.UserFile)})
			continue
		}
		kept = append(kept, r)
	}
	// Project rules add to the user's, so a project cannot drop a user's deny.
	return append(slices.Clone(l.Settings.ShellPolicy), kept...), true
}

// ignoredMsg is the warning for a user-only setting found in the project
// file at path: the key, the file, why, and where to set it instead.
func (l *Loaded) ignoredMsg(path, key, why string) string {
	instead := l.Paths.UserFile
	if f := lookupField(key); f != nil && f.env != "" {
		instead += " or $" + f.env
	}
	return fmt.Sprintf("ignored %q in %s: a project file may not set it (%s); set it in %s instead",
		key, path, why, instead)
}

// LoadFile returns the defaults overlaid with one settings file, for editing
// that file (read, Set, Save). A missing file gives the defaults. A "~/" in
// a path setting is expanded with os.UserHomeDir.
func LoadFile(path string) (*Settings, []Warning, error) {
	s := Defaults()
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &s, nil, nil
	}
	if err != nil {
		return nil, nil, &Error{Source: path, Msg: "cannot read settings: " + readError(err), Err: err}
	}
	home, _ := os.UserHomeDir()
	vals, warns, err := decodeFile(path, data, home)
	if err != nil {
		return nil, warns, err
	}
	for _, kv := range vals {
		kv.f.set(&s, kv.v)
	}
	return &s, warns, nil
}

// readError shortens an fs error: the path is already in the message.
func readError(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// keyValue is one decoded setting.
type keyValue struct {
	f *field
	v any
}

// decodeFile parses a settings file. Values come back in table order; null
// values are left out. Unknown keys are warnings.
func decodeFile(path string, data []byte, home string) ([]keyValue, []Warning, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a UTF-8 BOM some editors write
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, nil, nil // an empty file is an empty object
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line, col := position(data, se)
			return nil, nil, &Error{Source: path, Line: line, Column: col, Msg: se.Error(), Err: err}
		}
		if trimmed[0] != '{' {
			return nil, nil, &Error{Source: path, Err: err,
				Msg: `settings must be a JSON object like {"theme": "dark"}, got ` + jsonType(trimmed)}
		}
		return nil, nil, &Error{Source: path, Msg: err.Error(), Err: err}
	}
	if obj == nil { // the file holds null
		return nil, nil, &Error{Source: path, Msg: `settings must be a JSON object like {"theme": "dark"}, got null`}
	}

	var warns []Warning
	var unknown []string
	for k := range obj {
		if lookupField(k) == nil {
			unknown = append(unknown, k)
		}
	}
	slices.Sort(unknown)
	for _, k := range unknown {
		warns = append(warns, unknownKeyWarning(path, k))
	}

	var vals []keyValue
	var errs []error
	for i := range table {
		f := &table[i]
		raw, ok := obj[f.key]
		if !ok {
			continue
		}
		v, set, msg := f.decodeJSON(raw, home)
		if msg != "" {
			errs = append(errs, &Error{Source: path, Key: f.key, Msg: msg})
			continue
		}
		if set && f.kind() == KindHooks {
			warns = append(warns, hooksWarnings(path, raw)...)
		}
		if set {
			vals = append(vals, keyValue{f, v})
		}
	}
	// The good values too: a Partial load keeps them.
	return vals, warns, joinErrors(errs)
}

// position turns a syntax error's byte offset into a 1-based line and
// column (in runes).
func position(data []byte, se *json.SyntaxError) (line, col int) {
	pos := int(se.Offset) - 1 // Offset counts the bytes read, the bad one included
	if strings.HasPrefix(se.Error(), "unexpected end of JSON input") {
		pos = len(data) // the problem is just past the end
	}
	pos = max(0, min(pos, len(data)))
	before := data[:pos]
	line = 1 + bytes.Count(before, []byte("\n"))
	lineStart := bytes.LastIndexByte(before, '\n') + 1
	return line, utf8.RuneCount(before[lineStart:]) + 1
}

// decodeJSON decodes and checks one value from a file. set is false for
// null; msg is the whole message when the value is wrong.
func (f *field) decodeJSON(raw json.RawMessage, home string) (v any, set bool, msg string) {
	raw = bytes.TrimSpace(raw)
	if string(raw) == "null" {
		return nil, false, ""
	}
	wrong := func() (any, bool, string) {
		return nil, false, quoteKey(f.key) + "must be " + f.expected() + ", got " + f.shown(raw)
	}
	switch f.kind() {
	case KindString:
		var s string
		if raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
			return wrong()
		}
		v = f.expand(s, home)
	case KindBool:
		switch string(raw) {
		case "true":
			v = true
		case "false":
			v = false
		default:
			return wrong()
		}
	case KindInt:
		n, ok := jsonInt(raw)
		if !ok {
			return wrong()
		}
		v = n
	case KindFloat:
		x, err := strconv.ParseFloat(string(raw), 64)
		if !isJSONNumber(raw) || err != nil || math.IsInf(x, 0) {
			return wrong()
		}
		v = x
	case KindStringList:
		var items []json.RawMessage
		if raw[0] != '[' || json.Unmarshal(raw, &items) != nil {
			return wrong()
		}
		list := make([]string, 0, len(items))
		for i, it := range items {
			var s string
			if len(it) == 0 || it[0] != '"' || json.Unmarshal(it, &s) != nil {
				return nil, false, fmt.Sprintf("%q[%d] must be a string, got %s", f.key, i, f.shown(it))
			}
			list = append(list, s)
		}
		v = list
	case KindPolicy:
		var items []json.RawMessage
		if raw[0] != '[' || json.Unmarshal(raw, &items) != nil {
			return wrong()
		}
		rules := make([]PolicyRule, 0, len(items))
		for i, it := range items {
			r, msg := decodeRule(it)
			if msg != "" {
				return nil, false, fmt.Sprintf("%q[%d]%s", f.key, i, msg)
			}
			rules = append(rules, r)
		}
		v = rules
	case KindMCP:
		servers, msg := decodeMCPServers(raw)
		if msg != "" {
			return nil, false, strconv.Quote(f.key) + msg
		}
		v = servers
	case KindSchedules:
		schedules, msg := decodeSchedules(raw)
		if msg != "" {
			return nil, false, strconv.Quote(f.key) + msg
		}
		v = schedules
	case KindHooks:
		c, _, err := hooks.Decode(raw)
		if err != nil {
			return nil, false, err.Error()
		}
		v = c
	case KindPrices:
		p, err := cost.Parse(raw)
		if err != nil {
			return nil, false, strconv.Quote(f.key) + ": " + strings.TrimPrefix(err.Error(), "model prices: ")
		}
		v = p
	}
	if msg := f.validate(v); msg != "" {
		return nil, false, msg
	}
	return v, true, ""
}

// decodeRule decodes one shell_policy rule. msg continues the key and index:
// ` must be an object ...`, `.decision must be ...`.
func decodeRule(raw json.RawMessage) (PolicyRule, string) {
	var r PolicyRule
	var obj map[string]json.RawMessage
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &obj) != nil {
		return r, ` must be a rule like {"match": "git push", "decision": "ask", "reason": "..."}, got ` + shownJSON(raw)
	}
	var names []string
	for name := range obj {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		var dst *string
		switch name {
		case "match":
			dst = &r.Match
		case "decision":
			dst = &r.Decision
		case "reason":
			dst = &r.Reason
		default:
			return r, " has an unknown field " + quote(name) + " (a rule has match, decision and reason)"
		}
		it := bytes.TrimSpace(obj[name])
		if string(it) == "null" {
			continue
		}
		if len(it) == 0 || it[0] != '"' || json.Unmarshal(it, dst) != nil {
			return r, "." + name + " must be a string, got " + shownJSON(it)
		}
	}
	return r, validateRule(r)
}

// parseText parses a value given as text (an environment variable, or
// `co config set`) and checks it. source goes into the error ("$NAME").
func (f *field) parseText(text, source, home string) (any, error) {
	text = strings.TrimSpace(text)
	fail := func(msg string) (any, error) {
		return nil, &Error{Source: source, Key: f.key, Msg: msg}
	}
	got := quote(text) // only non-string kinds can be wrong, and no secret is one
	wrong := func() (any, error) {
		return fail(quoteKey(f.key) + "must be " + f.expected() + ", got " + got)
	}
	var v any
	switch f.kind() {
	case KindString:
		v = f.expand(text, home)
	case KindBool:
		switch strings.ToLower(text) {
		case "true", "1", "yes", "on":
			v = true
		case "false", "0", "no", "off":
			v = false
		default:
			return fail(quoteKey(f.key) + "must be a boolean (true/false, 1/0, yes/no, on/off), got " + got)
		}
	case KindInt:
		n, err := strconv.Atoi(text)
		if err != nil {
			return wrong()
		}
		v = n
	case KindFloat:
		x, err := strconv.ParseFloat(text, 64)
		if err != nil || math.IsInf(x, 0) || math.IsNaN(x) {
			return wrong()
		}
		v = x
	case KindStringList:
		if !strings.HasPrefix(text, "[") {
			list := []string{}
			for item := range strings.SplitSeq(text, ",") {
				if item = strings.TrimSpace(item); item != "" {
					list = append(list, item)
				}
			}
			v = list
			break
		}
		fallthrough
	case KindPolicy, KindMCP, KindSchedules, KindHooks, KindPrices:
		raw := []byte(text)
		if err := json.Unmarshal(raw, new(json.RawMessage)); err != nil {
			msg := quoteKey(f.key) + `must be a JSON array of rules like [{"match": "git push", "decision": "ask"}]`
			if f.kind() == KindSchedules {
				msg = quoteKey(f.key) + "must be a JSON object like " + ScheduleExample
			}
			if f.kind() == KindMCP {
				msg = quoteKey(f.key) + `must be a JSON object like {"name": {"command": "npx", "args": ["-y", "some-server"]}}`
			}
			if f.kind() == KindHooks {
				msg = quoteKey(f.key) + "must be a JSON object like " + HooksExample
			}
			if f.kind() == KindPrices {
				msg = quoteKey(f.key) + `must be a JSON object like {"my-model": {"input": 0.5, "cached_input": 0.05, "output": 2}}`
			}
			if f.kind() == KindStringList {
				msg = quoteKey(f.key) + `must be a JSON array of strings like ["ls","git status"] or a comma-separated list`
			}
			var se *json.SyntaxError
			if errors.As(err, &se) {
				_, col := position(raw, se)
				return fail(fmt.Sprintf("%s: column %d: %s", msg, col, se.Error()))
			}
			return fail(msg + ": " + err.Error())
		}
		dv, set, msg := f.decodeJSON(raw, home)
		if msg != "" {
			return fail(msg)
		}
		if !set { // "null"
			dv = cloneValue(f.def)
		}
		return dv, nil
	}
	if msg := f.validate(v); msg != "" {
		return fail(msg)
	}
	return v, nil
}

// expand replaces a leading "~/" in a path setting with home.
func (f *field) expand(s, home string) string {
	if !f.path || home == "" {
		return s
	}
	if s == "~" {
		return home
	}
	if rest, ok := strings.CutPrefix(s, "~/"); ok {
		return filepath.Join(home, rest)
	}
	return s
}

// shown renders a JSON value found in a file for a message: the compact
// value and its JSON type, or just the type for a secret.
func (f *field) shown(raw json.RawMessage) string {
	if f.secret {
		t := jsonType(raw)
		if t == "array" || t == "object" {
			return "an " + t
		}
		return "a " + t
	}
	return shownJSON(raw)
}

// shownJSON renders a JSON value as `"three" (string)`, `[1,2] (array)`.
func shownJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		b.Reset()
		b.Write(raw)
	}
	s := b.String()
	const limit = 60
	if utf8.RuneCountInString(s) > limit {
		s = string([]rune(s)[:limit]) + "…"
	}
	return s + " (" + jsonType(raw) + ")"
}

// jsonType names the type of a JSON value from its first byte.
func jsonType(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// isJSONNumber reports whether raw is a JSON number (ParseFloat alone would
// also take "Inf", "0x1p3" and "1_000").
func isJSONNumber(raw []byte) bool {
	return len(raw) > 0 && (raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9')) && json.Valid(raw)
}

// jsonInt reads a JSON number that is a whole number within int range
// (3, 3.0, 1e3).
func jsonInt(raw []byte) (int, bool) {
	if !isJSONNumber(raw) {
		return 0, false
	}
	if n, err := strconv.Atoi(string(raw)); err == nil {
		return n, true
	}
	x, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || x != math.Trunc(x) || math.Abs(x) > 1<<53 {
		return 0, false
	}
	return int(x), true
}
