package cli

import (
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
		Save: func(pairs [][2]string) error {
			changes := make([]config.Change, len(pairs))
			for i, kv := range pairs {
				changes[i] = config.Change{Key: kv[0], Value: kv[1]}
			}
			return config.EditFile(l.Paths.UserFile, changes...)
		},
		Configure: c.Agent.Configure,
	}
}
