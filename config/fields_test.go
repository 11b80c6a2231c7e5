package config

import (
	"reflect"
	"strings"
	"testing"
	"unsafe"
)

// The table and the Settings struct must agree: every struct field has
// exactly one row, keys and variables are unique, every row is described,
// and every default has the field's type and is valid.
func TestTableMatchesSettings(t *testing.T) {
	st := reflect.TypeOf(Settings{})
	byOffset := map[uintptr]string{}
	for i := range st.NumField() {
		byOffset[st.Field(i).Offset] = st.Field(i).Name
	}
	var s Settings
	base := uintptr(unsafe.Pointer(&s))
	seenField := map[string]string{}
	seenKey := map[string]bool{}
	seenEnv := map[string]bool{}
	for i := range table {
		f := &table[i]
		off := reflect.ValueOf(f.ptr(&s)).Pointer() - base
		name, ok := byOffset[off]
		if !ok {
			t.Errorf("%s: ptr does not point at a Settings field", f.key)
			continue
		}
		if prev, dup := seenField[name]; dup {
			t.Errorf("Settings.%s has two rows: %s and %s", name, prev, f.key)
		}
		seenField[name] = f.key
		if seenKey[f.key] || f.env != "" && seenEnv[f.env] {
			t.Errorf("duplicate key %q or env %q", f.key, f.env)
		}
		seenKey[f.key], seenEnv[f.env] = true, true
		if f.desc == "" || strings.Contains(f.desc, "\n") {
			t.Errorf("%s: description must be one line, got %q", f.key, f.desc)
		}
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s: default %T does not fit the field: %v", f.key, f.def, r)
				}
			}()
			f.set(&s, cloneValue(f.def))
		}()
		if msg := f.validate(f.def); msg != "" {
			t.Errorf("%s: default is invalid: %s", f.key, msg)
		}
		if (f.check == nil) != (f.format == "") {
			t.Errorf("%s: check and format go together", f.key)
		}
	}
	for i := range st.NumField() {
		if _, ok := seenField[st.Field(i).Name]; !ok {
			t.Errorf("Settings.%s has no row in the table", st.Field(i).Name)
		}
	}
}

func TestFields(t *testing.T) {
	fs := Fields()
	if len(fs) != len(table) {
		t.Fatalf("len(Fields()) = %d, want %d", len(fs), len(table))
	}
	byKey := map[string]Field{}
	for _, f := range fs {
		byKey[f.Key] = f
	}
	tests := []struct {
		key, env, constraint string
		kind                 Kind
		secret               bool
		def                  any
	}{
		{"llm_provider", "LLM_PROVIDER", `"gemini", "ollama" or "openai"`, KindString, false, "gemini"},
		{"gemini_api_key", "GEMINI_API_KEY", "", KindString, true, ""},
		{"tool_retries", "CO_CLI_TOOL_RETRIES", ">= 0", KindInt, false, 3},
		{"sandbox_cpus", "CO_CLI_SANDBOX_CPUS", "> 0", KindFloat, false, 1.0},
		{"auto_confirm", "CO_CLI_AUTO_CONFIRM", "", KindBool, false, false},
		{"shell_safe_commands", "CO_CLI_SHELL_SAFE_COMMANDS", "", KindStringList, false, Defaults().ShellSafeCommands},
		{"shell_policy", "CO_CLI_SHELL_POLICY", `decision "allow", "ask" or "deny"`, KindPolicy, false, []PolicyRule(nil)},
		{"brave_search_base_url", "BRAVE_SEARCH_BASE_URL", "an http or https URL", KindString, false, "https://api.search.brave.com/res/v1"},
	}
	for _, tc := range tests {
		t.Run(tc.key, func(t *testing.T) {
			f, ok := byKey[tc.key]
			if !ok {
				t.Fatal("missing")
			}
			if f.Env != tc.env || f.Constraint != tc.constraint || f.Kind != tc.kind || f.Secret != tc.secret || !reflect.DeepEqual(f.Default, tc.def) {
				t.Errorf("Field = %+v", f)
			}
		})
	}
	// Fields hands out copies: changing them leaves the table alone.
	fs[0].Allowed[0] = "x"
	byKey["shell_safe_commands"].Default.([]string)[0] = "rm"
	if Fields()[0].Allowed[0] != "gemini" || Defaults().ShellSafeCommands[0] != "ls" {
		t.Error("Fields returned the table's own slices")
	}
	secrets := 0
	for _, f := range fs {
		if f.Secret {
			secrets++
		}
	}
	if secrets != 4 {
		t.Errorf("%d secret settings, want 4", secrets)
	}
}

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{KindString: "string", KindBool: "bool", KindInt: "int", KindFloat: "float", KindStringList: "list", KindPolicy: "rules", KindPrices: "prices", Kind(10): "Kind(10)"} {
		if k.String() != want {
			t.Errorf("Kind(%d).String() = %q, want %q", int(k), k.String(), want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "abc", 0}, {"", "abc", 3}, {"abc", "abd", 1},
		{"tool_retires", "tool_retries", 1}, {"ab", "ba", 1}, {"kitten", "sitting", 3},
	} {
		if got := editDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
