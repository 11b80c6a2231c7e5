package main

import "github.com/co-cli/co/tools"

// cloudTools are the Google and Slack tools of the session, and the
// families left out because they are not configured.
func (ss *session) cloudTools() ([]tools.Tool, []tools.Unconfigured, error) {
	return nil, nil, nil
}
