package config

import (
	"encoding/json"
	"github.com/co-cli/co/lib/cost"
	"strconv"

	"github.com/co-cli/co/hooks"
)

// Entry is one setting as `co config` shows it.
type Entry struct {
	Key         string
	Value       string // display form; secrets masked, see Entries
	Source      Source
	Env         string
	Description string
	Secret      bool
	// Ignored are the files that set the key but are not in effect (a
	// project file's user-only setting): Value and Source are what is.
	Ignored []Source
}

// Entries lists every setting in table order with its effective value and
// source. Secrets show as "(not set)", "set" or, when at least 12
// characters long, "set (…wxyz)" with the last four; other empty strings
// show as "(not set)"; lists and rules as JSON (the form the environment
// variables accept). A value a project file set but may not is not shown:
// Ignored names that file.
func (l *Loaded) Entries() []Entry {
	out := make([]Entry, len(table))
	for i := range table {
		f := &table[i]
		out[i] = Entry{
			Key:         f.key,
			Value:       f.display(f.get(&l.Settings)),
			Source:      l.Sources[f.key],
			Env:         f.env,
			Description: f.desc,
			Secret:      f.secret,
		}
		for _, ig := range l.Ignored {
			if ig.Key == f.key {
				out[i].Ignored = append(out[i].Ignored, ig.Source)
			}
		}
	}
	return out
}

// display renders a value for humans.
func (f *field) display(v any) string {
	switch v := v.(type) {
	case string:
		switch {
		case v == "":
			return "(not set)"
		case f.secret:
			return MaskSecret(v)
		}
		return v
	case bool:
		return strconv.FormatBool(v)
	case int:
		return strconv.Itoa(v)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	case []string:
		if v == nil {
			v = []string{}
		}
		b, _ := json.Marshal(v)
		return string(b)
	case []PolicyRule:
		if v == nil {
			v = []PolicyRule{}
		}
		b, _ := json.Marshal(v)
		return string(b)
	case []MCPServer:
		return mcpDisplay(v)
	case []Schedule:
		return scheduleDisplay(v)
	case hooks.Config:
		return hooksDisplay(v)
	case cost.Prices:
		if v == nil {
			v = cost.Prices{}
		}
		b, _ := json.Marshal(v)
		return string(b)
	}
	return ""
}

// MaskSecret renders a secret for display: "(not set)", "set", or for a
// value of 12 characters or more "set (…" + its last four + ")".
func MaskSecret(v string) string {
	switch r := []rune(v); {
	case len(r) == 0:
		return "(not set)"
	case len(r) < 12:
		return "set"
	default:
		return "set (…" + string(r[len(r)-4:]) + ")"
	}
}
