package tui

import (
	"reflect"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
)

// /help lists every key the chat and the approval modal answer to: it
// left out ↓, shift+tab, ctrl+x, ctrl+z and the modal's scroll keys.
func TestHelpTextListsEveryKey(t *testing.T) {
	help := HelpText(DefaultKeyMap(), DefaultModalKeyMap())
	for _, km := range []any{DefaultKeyMap(), DefaultModalKeyMap()} {
		v := reflect.ValueOf(km)
		for i := range v.NumField() {
			b := v.Field(i).Interface().(key.Binding)
			h := b.Help()
			if !strings.Contains(help, h.Key) || !strings.Contains(help, h.Desc) {
				t.Errorf("/help lacks %s (%s %q):\n%s", v.Type().Field(i).Name, h.Key, h.Desc, help)
			}
		}
	}
}
