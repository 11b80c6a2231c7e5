package tools

import (
	"context"
	"fmt"
	"math"
	"net/mail"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Form is a request for input from outside co while a tool runs: an MCP
// server's elicitation (elicitation/create). The front end shows it (a
// modal in the chat, a line form in --plain) or declines it (co run).
// Message, titles and descriptions are the server's text: a front end
// passes them through lib/safe before the terminal.
type Form struct {
	// Server is the MCP server that asks; Project is true when the
	// project's settings added it (not the user's own).
	Server  string
	Project bool
	Message string
	// URL is set for a URL-mode elicitation: a page the server asks the
	// user to open (never opened by co); Fields is then empty.
	URL    string
	Fields []Field
}

// FieldKind is what a form field holds.
type FieldKind int

const (
	FieldString FieldKind = iota
	FieldNumber
	FieldInteger
	FieldBoolean
	FieldChoice // one of Options
	FieldMulti  // any of Options (an array of strings)
)

// Option is one value of a choice field and its title.
type Option struct{ Value, Title string }

// Field is one property of the requested schema.
type Field struct {
	Name, Title, Description string
	Kind                     FieldKind
	Format                   string // string formats: email, uri, date, date-time
	Options                  []Option
	// Default is the schema's default as the field's type (string,
	// float64, int64, bool, []string); nil when none.
	Default  any
	Required bool
	// Secret: the name, title or description reads like a secret (a
	// password, a one-time code, a card or account number, an API key;
	// LooksSecret), or the schema marks it writeOnly: its value is masked
	// on screen and kept out of results, transcripts and spans.
	Secret               bool
	MinLength, MaxLength *int
	Minimum, Maximum     *float64
	MinItems, MaxItems   *int
}

// URLHost is the host a URL-mode form sends the user to, for the user to
// see before consenting (userinfo left out: https://bank.com@evil.example
// goes to evil.example); a warning when it has no web host.
func URLHost(u string) string {
	if p, err := url.Parse(u); err == nil && p.Host != "" && (p.Scheme == "https" || p.Scheme == "http") {
		return p.Host
	}
	return "none (not a valid web address: do not open it)"
}

// Label is the field's title, or its name.
func (f Field) Label() string {
	if f.Title != "" {
		return f.Title
	}
	return f.Name
}

// FormAction is how the user answered a form.
type FormAction string

const (
	FormAccept  FormAction = "accept"
	FormDecline FormAction = "decline"
	FormCancel  FormAction = "cancel"
)

// FormAnswer is the user's answer; Content only with FormAccept.
type FormAnswer struct {
	Action  FormAction
	Content map[string]any
}

type formKey struct{}

// FormFunc shows a form to the user and returns the answer; an error when
// nobody could be asked (the turn ended).
type FormFunc func(context.Context, Form) (FormAnswer, error)

// WithForm returns ctx carrying ask, through which a running tool asks the
// user to fill in a form: the agent passes it to every call, as WithNotice.
func WithForm(ctx context.Context, ask FormFunc) context.Context {
	return context.WithValue(ctx, formKey{}, ask)
}

// FormAsker is ctx's form function (WithForm), nil when it has none.
func FormAsker(ctx context.Context) FormFunc {
	f, _ := ctx.Value(formKey{}).(FormFunc)
	return f
}

// Parse turns text typed for the field into its value; "" gives nil (no
// value). The error says what was wrong and what is expected.
func (f Field) Parse(text string) (any, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil, nil
	}
	switch f.Kind {
	case FieldNumber, FieldInteger:
		n, err := strconv.ParseFloat(text, 64)
		if err != nil || math.IsNaN(n) || math.IsInf(n, 0) {
			return nil, fmt.Errorf("%s: %q is not a number", f.Label(), text)
		}
		if f.Kind == FieldInteger {
			if n != math.Trunc(n) {
				return nil, fmt.Errorf("%s: %q is not a whole number", f.Label(), text)
			}
			if f.Minimum != nil && n < *f.Minimum || f.Maximum != nil && n > *f.Maximum {
				return nil, fmt.Errorf("%s: %s is out of range %s", f.Label(), text, f.rangeText())
			}
			return int64(n), nil
		}
		if f.Minimum != nil && n < *f.Minimum || f.Maximum != nil && n > *f.Maximum {
			return nil, fmt.Errorf("%s: %s is out of range %s", f.Label(), text, f.rangeText())
		}
		return n, nil
	case FieldBoolean:
		switch strings.ToLower(text) {
		case "y", "yes", "true", "on", "1":
			return true, nil
		case "n", "no", "false", "off", "0":
			return false, nil
		}
		return nil, fmt.Errorf("%s: answer yes or no", f.Label())
	case FieldChoice:
		if v, ok := f.option(text); ok {
			return v, nil
		}
		return nil, fmt.Errorf("%s: %q is none of %s", f.Label(), text, f.optionsText())
	case FieldMulti:
		var out []string
		for _, p := range strings.Split(text, ",") {
			if p = strings.TrimSpace(p); p == "" {
				continue
			}
			v, ok := f.option(p)
			if !ok {
				return nil, fmt.Errorf("%s: %q is none of %s", f.Label(), p, f.optionsText())
			}
			if !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
		if err := f.CheckItems(len(out)); err != nil {
			return nil, err
		}
		return out, nil
	}
	n := len([]rune(text))
	if f.MinLength != nil && n < *f.MinLength {
		return nil, fmt.Errorf("%s: at least %d characters", f.Label(), *f.MinLength)
	}
	if f.MaxLength != nil && n > *f.MaxLength {
		return nil, fmt.Errorf("%s: at most %d characters", f.Label(), *f.MaxLength)
	}
	switch f.Format {
	case "email":
		if a, err := mail.ParseAddress(text); err != nil || a.Address != text {
			return nil, fmt.Errorf("%s: %q is not an email address (name@example.com)", f.Label(), text)
		}
	case "uri":
		if u, err := url.Parse(text); err != nil || u.Scheme == "" {
			return nil, fmt.Errorf("%s: %q is not a URI with a scheme (https://…)", f.Label(), text)
		}
	case "date":
		if _, err := time.Parse(time.DateOnly, text); err != nil {
			return nil, fmt.Errorf("%s: %q is not a date (YYYY-MM-DD)", f.Label(), text)
		}
	case "date-time":
		if _, err := time.Parse(time.RFC3339, text); err != nil {
			return nil, fmt.Errorf("%s: %q is not a date and time (2006-01-02T15:04:05Z)", f.Label(), text)
		}
	}
	return text, nil
}

// CheckItems checks how many options of a multi-select are chosen.
func (f Field) CheckItems(n int) error {
	if f.MinItems != nil && n < *f.MinItems {
		return fmt.Errorf("%s: choose at least %d", f.Label(), *f.MinItems)
	}
	if f.MaxItems != nil && n > *f.MaxItems {
		return fmt.Errorf("%s: choose at most %d", f.Label(), *f.MaxItems)
	}
	return nil
}

// option finds text among the options: a value, a title (either case) or
// a 1-based number.
func (f Field) option(text string) (string, bool) {
	for _, o := range f.Options {
		if o.Value == text {
			return o.Value, true
		}
	}
	for _, o := range f.Options {
		if o.Title != "" && strings.EqualFold(o.Title, text) || strings.EqualFold(o.Value, text) {
			return o.Value, true
		}
	}
	if i, err := strconv.Atoi(text); err == nil && i >= 1 && i <= len(f.Options) {
		return f.Options[i-1].Value, true
	}
	return "", false
}

func (f Field) optionsText() string {
	var vs []string
	for _, o := range f.Options {
		vs = append(vs, strconv.Quote(o.Value))
	}
	return strings.Join(vs, ", ")
}

func (f Field) rangeText() string {
	lo, hi := "…", "…"
	if f.Minimum != nil {
		lo = strconv.FormatFloat(*f.Minimum, 'g', -1, 64)
	}
	if f.Maximum != nil {
		hi = strconv.FormatFloat(*f.Maximum, 'g', -1, 64)
	}
	return lo + "–" + hi
}

// Text is v as the field's text (the inverse of Parse); "" for nil.
func (f Field) Text(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case bool:
		if v {
			return "yes"
		}
		return "no"
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	case int64:
		return strconv.FormatInt(v, 10)
	case []string:
		return strings.Join(v, ", ")
	}
	return fmt.Sprint(v)
}

// Missing is the first required field content lacks, "" when none does.
func (f Form) Missing(content map[string]any) string {
	for _, fl := range f.Fields {
		if !fl.Required {
			continue
		}
		v, ok := content[fl.Name]
		if !ok || v == nil {
			return fl.Label()
		}
		if fl.Kind == FieldMulti {
			if s, _ := v.([]string); len(s) == 0 && fl.MinItems != nil && *fl.MinItems > 0 {
				return fl.Label()
			}
		}
	}
	return ""
}

// Secrets are the fields that look like secrets.
func (f Form) Secrets() []string {
	var out []string
	for _, fl := range f.Fields {
		if fl.Secret {
			out = append(out, fl.Label())
		}
	}
	return out
}

// Who says who asks, for a form's title and its warnings.
func (f Form) Who() string {
	if f.Project {
		return "MCP server " + f.Server + " (from this project's settings)"
	}
	return "MCP server " + f.Server
}

// SecretWarning is the warning a form with fields that look like secrets
// shows when a project's server asks; "" otherwise.
func (f Form) SecretWarning() string {
	s := f.Secrets()
	if !f.Project || len(s) == 0 {
		return ""
	}
	return fmt.Sprintf("%s asks for what looks like a secret (%s). It is not co asking, and co does not know what the server will do with it.", f.Who(), strings.Join(s, ", "))
}
