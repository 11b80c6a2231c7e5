package main

import (
	"context"
	"errors"
)

// runTUI runs the full-screen chat for ss.
func runTUI(ctx context.Context, ss *session, s streams) error {
	return errors.New("the full-screen chat is not built yet; use co --plain")
}
