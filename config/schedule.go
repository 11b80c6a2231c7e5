package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/co-cli/co/schedule"
)

// Schedule is one entry of schedules: a prompt run unattended at the times
// At says (a SPEC: schedule.Parse), in Workspace. Tools and Approve are
// tool names (create_email_draft, mcp__server__tool) the run may use and
// may run without asking; Notify is where its answer goes (desktop, slack,
// mail). Schedules come from the user file only: never from a project
// file or the environment.
type Schedule struct {
	Name      string   `json:"-"`
	At        string   `json:"at"`
	Prompt    string   `json:"prompt"`
	Workspace string   `json:"workspace"`
	Tools     []string `json:"tools,omitempty"`
	Approve   []string `json:"approve,omitempty"`
	Notify    []string `json:"notify,omitempty"`
	// MaxCost is the most one run may cost in US dollars, in place of
	// max_cost (0: max_cost's).
	MaxCost float64 `json:"max_cost,omitempty"`
}

// scheduleFields are the fields of one schedule, for messages.
var scheduleFields = []string{"at", "prompt", "workspace", "tools", "approve", "notify", "max_cost"}

// NotifySlackHelp says how to write a Slack target.
const NotifySlackHelp = `write slack:MEMBER_ID for a direct message from co's bot (your member ID: in Slack, your profile → ⋮ → "Copy member ID", like U0123ABC) or slack:#channel (or the channel's ID, like C0123ABC)`

// ParseNotify splits one value of a schedule's notify into its kind
// (desktop, slack, mail) and, for slack, its target; msg is what is wrong
// with it, or "". A schedule's notify may hold "desktop", "mail" and
// "slack:TARGET": a member ID (U0123ABC: a direct message from co's bot)
// or a channel (#name or its ID). Plain "slack" is refused: a bot has no
// "me" to write to.
func ParseNotify(v string) (kind, target, msg string) {
	switch {
	case v == "desktop" || v == "mail":
		return v, "", ""
	case v == "slack" || v == "slack:":
		return "", "", "say where on Slack: " + NotifySlackHelp
	case strings.HasPrefix(v, "slack:"):
		t := strings.TrimPrefix(v, "slack:")
		if !slackTarget(t) {
			return "", "", "not a Slack member or channel: " + NotifySlackHelp
		}
		return "slack", t, ""
	}
	return "", "", "each must be desktop, slack:MEMBER_ID, slack:#channel or mail"
}

// slackTarget: a member ID (U…, W…), a channel ID (C…, G…, D…) or #name.
func slackTarget(t string) bool {
	if name, ok := strings.CutPrefix(t, "#"); ok {
		return name != "" && !strings.ContainsAny(name, " \t\n#<>,@")
	}
	if len(t) < 7 || !strings.ContainsRune("UWCGD", rune(t[0])) {
		return false
	}
	for _, r := range t {
		if (r < 'A' || r > 'Z') && (r < '0' || r > '9') {
			return false
		}
	}
	return true
}

// ScheduleExample is a schedule as a settings file holds it, for messages.
const ScheduleExample = `{"brief": {"at": "weekdays 08:00", "prompt": "Summarise today's mail", "workspace": "/home/me/notes"}}`

// decodeSchedules decodes schedules: an object from a schedule name to an
// entry. msg continues after the key.
func decodeSchedules(raw json.RawMessage) ([]Schedule, string) {
	return decodeNamed(raw, ` must be an object from a schedule name to {"at": ..., "prompt": ..., "workspace": ...}, like `+
		ScheduleExample+`, got `, decodeSchedule)
}

func decodeSchedule(name string, raw json.RawMessage) (Schedule, string) {
	s := Schedule{Name: name}
	if !schedule.NameOK(name) {
		return s, ` is not a schedule name: use lower-case letters, digits, - and _ (starting with a letter or digit, no "--"), like "morning-brief"`
	}
	raw = bytes.TrimSpace(raw)
	var obj map[string]json.RawMessage
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &obj) != nil {
		return s, ` must be an object like {"at": "weekdays 08:00", "prompt": "...", "workspace": "/home/me/notes"}, got ` + shownJSON(raw)
	}
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		v := bytes.TrimSpace(obj[k])
		if string(v) == "null" {
			continue
		}
		var err error
		isString := len(v) > 0 && v[0] == '"'
		isList := len(v) > 0 && v[0] == '['
		switch k {
		case "at":
			err = jsonString(v, isString, &s.At)
		case "prompt":
			err = jsonString(v, isString, &s.Prompt)
		case "workspace":
			err = jsonString(v, isString, &s.Workspace)
		case "tools":
			err = jsonList(v, isList, &s.Tools)
		case "approve":
			err = jsonList(v, isList, &s.Approve)
		case "notify":
			err = jsonList(v, isList, &s.Notify)
		case "max_cost":
			if json.Unmarshal(v, &s.MaxCost) != nil || s.MaxCost < 0 {
				return s, ".max_cost must be a number >= 0 (US dollars for one run; 0: max_cost's), got " + shownJSON(v)
			}
		default:
			return s, " has an unknown field " + quote(k) + " (a schedule has " + strings.Join(scheduleFields, ", ") + ")"
		}
		if err != nil {
			want := "a string"
			if k == "tools" || k == "approve" || k == "notify" {
				want = "a list of strings"
			}
			return s, "." + k + " must be " + want + ", got " + shownJSON(v)
		}
	}
	return s, validateSchedule(s)
}

var errWrongType = errors.New("wrong type")

func jsonString(v []byte, ok bool, dst *string) error {
	if !ok || json.Unmarshal(v, dst) != nil {
		return errWrongType
	}
	return nil
}

func jsonList(v []byte, ok bool, dst *[]string) error {
	if !ok || json.Unmarshal(v, dst) != nil {
		return errWrongType
	}
	return nil
}

// validateSchedule returns what is wrong with s, or "" (msg continues
// after schedules.NAME).
func validateSchedule(s Schedule) string {
	if strings.TrimSpace(s.At) == "" {
		return `.at is missing: when to run, like "weekdays 08:00", "every 2h" or "2026-12-01 09:30"`
	}
	if _, err := schedule.Parse(s.At); err != nil {
		return ".at: " + err.Error()
	}
	if strings.TrimSpace(s.Prompt) == "" {
		return `.prompt is missing: what to ask, like "Summarise today's mail"`
	}
	if s.Workspace == "" || !filepath.IsAbs(s.Workspace) {
		return `.workspace must be an absolute directory (where the run works, like "/home/me/notes"), got ` + quote(s.Workspace)
	}
	for _, list := range []struct {
		key  string
		vals []string
	}{{"tools", s.Tools}, {"approve", s.Approve}} {
		for _, v := range list.vals {
			if strings.TrimSpace(v) == "" || strings.ContainsAny(v, " \t\n") {
				return "." + list.key + " holds " + quote(v) + `: write tool names, like "create_email_draft" or "mcp__server__tool"`
			}
		}
	}
	for _, n := range s.Notify {
		if _, _, msg := ParseNotify(n); msg != "" {
			return ".notify holds " + quote(n) + ": " + msg
		}
	}
	return ""
}

// FindSchedule returns the schedule called name, or false.
func (s *Settings) FindSchedule(name string) (Schedule, bool) {
	for _, x := range s.Schedules {
		if x.Name == name {
			return x, true
		}
	}
	return Schedule{}, false
}

func cloneSchedules(v []Schedule) []Schedule {
	out := slices.Clone(v)
	for i := range out {
		out[i].Tools = slices.Clone(out[i].Tools)
		out[i].Approve = slices.Clone(out[i].Approve)
		out[i].Notify = slices.Clone(out[i].Notify)
	}
	return out
}

func equalSchedules(a, b []Schedule) bool {
	return slices.EqualFunc(a, b, func(x, y Schedule) bool {
		return x.Name == y.Name && x.At == y.At && x.Prompt == y.Prompt && x.Workspace == y.Workspace &&
			slices.Equal(x.Tools, y.Tools) && slices.Equal(x.Approve, y.Approve) && slices.Equal(x.Notify, y.Notify) && x.MaxCost == y.MaxCost
	})
}

// scheduleObject is the schedules as a settings file holds them.
func scheduleObject(v []Schedule) map[string]Schedule {
	out := make(map[string]Schedule, len(v))
	for _, s := range v {
		out[s.Name] = s
	}
	return out
}

// scheduleDisplay renders the schedules for co config.
func scheduleDisplay(v []Schedule) string {
	b, _ := json.Marshal(scheduleObject(v))
	return string(b)
}

// SchedulesChange is the EditFile change that sets schedules to v (co
// schedule add and rm save with it).
func SchedulesChange(v []Schedule) Change {
	b, _ := encodeValue(v)
	return Change{Key: "schedules", Value: string(b)}
}
