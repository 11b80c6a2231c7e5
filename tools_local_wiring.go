package main

import "github.com/co-cli/co/tools"

// localTools are the workspace file, todo, notes and web tools of the
// session, and the families left out because they are not configured.
func (ss *session) localTools() ([]tools.Tool, []tools.Unconfigured, error) {
	return nil, nil, nil
}
