package google

import (
	"context"
	"time"
)

// ProbeResult is the outcome of one service's check.
type ProbeResult struct {
	Service string // Drive, Gmail, Calendar
	OK      bool
	// Detail is what the check found (the account) or, on failure, the
	// message that says what to do.
	Detail string
}

// Probe makes one cheap read-only call per service, each within timeout,
// for co google check.
func (a *Account) Probe(ctx context.Context, timeout time.Duration) []ProbeResult {
	checks := []struct {
		svc service
		run func(context.Context) (string, error)
	}{
		{svcDrive, func(ctx context.Context) (string, error) {
			srv, err := a.Drive(ctx)
			if err != nil {
				return "", err
			}
			about, err := srv.About.Get().Fields("user(displayName,emailAddress)").Context(ctx).Do()
			if err != nil {
				return "", err
			}
			if about.User == nil {
				return "signed in", nil
			}
			return "signed in as " + ownerName(about.User), nil
		}},
		{svcGmail, func(ctx context.Context) (string, error) {
			srv, err := a.Gmail(ctx)
			if err != nil {
				return "", err
			}
			p, err := srv.Users.GetProfile("me").Context(ctx).Do()
			if err != nil {
				return "", err
			}
			return "mailbox " + p.EmailAddress, nil
		}},
		{svcCalendar, func(ctx context.Context) (string, error) {
			srv, err := a.Calendar(ctx)
			if err != nil {
				return "", err
			}
			c, err := srv.CalendarList.Get("primary").Fields("id,timeZone").Context(ctx).Do()
			if err != nil {
				return "", err
			}
			return "primary calendar " + c.Id + " (" + c.TimeZone + ")", nil
		}},
	}
	var out []ProbeResult
	for _, c := range checks {
		cctx, cancel := context.WithTimeout(ctx, timeout)
		detail, err := c.run(cctx)
		timedOut := cctx.Err() == context.DeadlineExceeded && ctx.Err() == nil
		cancel()
		if err != nil {
			if timedOut {
				out = append(out, ProbeResult{Service: c.svc.String(), Detail: "no answer within " + timeout.String() + ": check the network"})
				continue
			}
			out = append(out, ProbeResult{Service: c.svc.String(), Detail: a.explain(c.svc, "the check", err).Error()})
			continue
		}
		out = append(out, ProbeResult{Service: c.svc.String(), OK: true, Detail: detail})
	}
	return out
}
