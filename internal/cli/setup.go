package cli

import (
	"strings"

	"github.com/co-cli/co/config"
	"github.com/co-cli/co/internal/app"
	"github.com/co-cli/co/ui/setup"
)

// setupEnv is what the chat's first-run provider setup (ui/setup) needs:
// the settings co started with, config's own check of each value, and
// saving with config.EditFile, as `co config set` does.
func (c *chat) setupEnv() *setup.Env {
	l := c.Config
	return &setup.Env{
		Settings: app.ProviderSettings(l),
		UserFile: l.Paths.UserFile,
		Check:    config.CheckValue,
		Save: func(pairs [][2]string) (string, error) {
			changes := make([]config.Change, len(pairs))
			for i, kv := range pairs {
				changes[i] = config.Change{Key: kv[0], Value: kv[1]}
			}
			if err := config.EditFile(l.Paths.UserFile, changes...); err != nil {
				return "", err
			}
			// This run's reports (/status, a second /setup) show what
			// was saved, as the next run's do.
			if err := l.Saved(changes...); err != nil {
				return "", err
			}
			// The spans of the rest of this run are redacted of the new key
			// too, as those of the next run are (it is a configured secret
			// then). The memory store keeps the secrets it opened with; it
			// refuses key shapes (AIza…, sk-…) all the same.
			for _, kv := range pairs {
				if strings.HasSuffix(kv[0], "_api_key") {
					c.Telemetry.Tracing.AddSecrets(kv[1])
				}
			}
			return overriddenNote(pairs), nil
		},
		Configure: c.Agent.Configure,
	}
}

// overriddenNote says which of the keys just saved to the user file an
// environment variable or the project file will still override when co
// next starts (this run uses what was saved), or "".
func overriddenNote(pairs [][2]string) string {
	l, err := config.Load(config.LoadOptions{})
	if err != nil {
		return ""
	}
	var over []string
	for _, kv := range pairs {
		if src := l.Sources[kv[0]]; src.Layer > config.LayerUser {
			over = append(over, kv[0]+" ("+src.String()+")")
		}
	}
	if len(over) == 0 {
		return ""
	}
	return "at the next start these come from elsewhere, which wins over your user file: " +
		strings.Join(over, ", ") + "; unset or change them there."
}
