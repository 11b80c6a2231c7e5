package main

import "context"

// runTUI runs the full-screen chat for ss. Until it is built, the
// line-based chat stands in.
func runTUI(ctx context.Context, ss *session, s streams) error {
	return runPlain(ctx, ss, s)
}
