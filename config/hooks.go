package config

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/co-cli/co/hooks"
)

// HooksExample is a "hooks" value, for messages.
const HooksExample = `{"PreToolUse": [{"matcher": "run_shell_command", "hooks": [{"type": "command", "command": "~/bin/guard"}]}]}`

// hooksWarnings are hooks.Decode's warnings on a file's "hooks" (an event
// co does not have, a matcher it ignores), as the settings' warnings.
func hooksWarnings(path string, raw json.RawMessage) []Warning {
	_, ws, err := hooks.Decode(raw)
	if err != nil {
		return nil
	}
	out := make([]Warning, 0, len(ws))
	for _, w := range ws {
		out = append(out, Warning{Source: path, Key: "hooks", Msg: fmt.Sprintf("%s in %s", w, path)})
	}
	return out
}

func cloneHooks(c hooks.Config) hooks.Config {
	if c == nil {
		return nil
	}
	out := make(hooks.Config, len(c))
	for ev, gs := range c {
		gs = slices.Clone(gs)
		for i := range gs {
			gs[i].Hooks = slices.Clone(gs[i].Hooks)
		}
		out[ev] = gs
	}
	return out
}

func equalHooks(a, b hooks.Config) bool {
	return maps.EqualFunc(a, b, func(x, y []hooks.Group) bool {
		return slices.EqualFunc(x, y, func(g, h hooks.Group) bool {
			return g.Matcher == h.Matcher && slices.Equal(g.Hooks, h.Hooks)
		})
	})
}

// hooksDisplay renders hooks for co config, as a settings file holds them.
func hooksDisplay(c hooks.Config) string {
	if c == nil {
		c = hooks.Config{}
	}
	b, _ := json.Marshal(c)
	return string(b)
}
