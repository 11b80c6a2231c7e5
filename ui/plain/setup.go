package plain

import (
	"context"
	"errors"
	"os"

	"github.com/co-cli/co/agent/provider"
	"github.com/co-cli/co/ui/setup"
)

// The first-run provider setup (ui/setup) as lines: each question printed,
// answered on the input. A key is read with the terminal's echo off, and a
// scripted key line is not printed back. Ctrl+C skips.

// offerSetup runs the setup when co has no provider and a person is at a
// terminal; for a script it only says how (its lines are not answers).
func (s *session) offerSetup(ctx context.Context) (quit bool) {
	if s.o.Setup == nil || s.o.Agent == nil {
		return false
	}
	if _, _, err := s.o.Agent.WaitProvider(ctx); !errors.Is(err, provider.ErrNoProvider) {
		return false
	}
	if !s.o.isTTYEcho() {
		s.println("No LLM provider is set up: type /setup to choose one here, or see co config set.")
		return false
	}
	return s.runSetup(ctx)
}

// runSetup asks the setup's questions until it is done, skipped (Ctrl+C),
// or the input ends (quit).
func (s *session) runSetup(ctx context.Context) (quit bool) {
	if s.o.Setup == nil {
		s.println("error: no setup here: set a provider with co config set (see co config).")
		return false
	}
	flow := setup.New(*s.o.Setup)
	flow.Start(ctx)
	s.println("Setting up a provider (Ctrl+C skips).")
	for !flow.Done() {
		p := flow.Prompt()
		s.println(p.Text)
		s.print("setup> ")
		restore := func() {}
		if p.Secret {
			restore = s.noEcho()
		}
		var line string
		var ok bool
		select {
		case <-ctx.Done():
			restore()
			return true
		case <-s.o.Interrupts:
			restore()
			s.newline()
			s.println(flow.Skip().Said)
			return false
		case line, ok = <-s.lines:
		}
		restore()
		if !ok {
			s.println("\n(input ended: nothing saved)")
			return true
		}
		switch {
		case p.Secret && line != "":
			s.println("(key not shown)") // the terminal did not echo it, nor does a script's transcript
		case p.Secret:
			s.println("")
		case !s.o.isTTYEcho():
			s.println(line)
		}
		if r := flow.Answer(ctx, line); r.Said != "" {
			if r.Err {
				s.println("error: " + r.Said)
			} else {
				s.println(r.Said)
			}
		}
	}
	return false
}

// noEcho turns the terminal's echo off while a key is typed, when the
// input is a terminal; it returns what turns it back on.
func (s *session) noEcho() (restore func()) {
	f, ok := s.o.In.(*os.File)
	if !ok || !s.o.isTTYEcho() {
		return func() {}
	}
	return echoOff(int(f.Fd()))
}
