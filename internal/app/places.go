package app

import (
	"os"

	"github.com/co-cli/co/config"
	"github.com/co-cli/co/lib/protect"
)

// Places are where, on this machine, the protected paths tied to a place
// are (lib/protect): the home folders — the user's ($HOME) and root's — and
// co's own config and data folders. The sandbox, the file tools and the MCP
// calls all place them in the workspace the same way.
func Places(l *config.Loaded) protect.Places {
	p := protect.Places{ConfigDir: l.Paths.ConfigDir, DataDir: l.Paths.DataDir}
	if h, err := os.UserHomeDir(); err == nil && h != "" {
		p.Homes = append(p.Homes, h)
	}
	p.Homes = append(p.Homes, "/root")
	return p
}

// HomeWorkspace says where the home folder is in the workspace, when it is
// in it: "" when the workspace is the home folder, "home/alice" when it is
// /. ok is false when the workspace does not hold the home folder: a
// project folder, as it should be.
func (a *App) HomeWorkspace() (rel string, ok bool) {
	h, err := os.UserHomeDir()
	if err != nil {
		return "", false
	}
	return protect.HomeIn(a.Workspace, h)
}
