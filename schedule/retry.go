package schedule

import "time"

// A scheduled run whose model could not be reached (the provider down or
// still starting, no network yet after a wake or a boot: a systemd timer's
// Persistent=true and launchd run a missed run just then) tries again, a
// bounded number of times, waiting longer each time; never so late that
// the schedule's next run would find it still going: that run is the next
// try.
const (
	// RetryAttempts is how many attempts a run makes at most.
	RetryAttempts = 5
	// RetryFirstWait is the wait after the first attempt; each later wait
	// doubles it (30 s, 1 min, 2 min, 4 min: 7 min 30 s in all).
	RetryFirstWait = 30 * time.Second
	// RetryMargin is how long before the schedule's next run the last
	// attempt must start.
	RetryMargin = time.Minute
)

// RetryWait is how long a run waits before trying again after its attempt
// (counted from 1) could not reach the model at now, and false when it
// does not try again: it made RetryAttempts, or the next attempt would
// start less than RetryMargin before next, the schedule's next run (zero
// when there is none, as for a once SPEC that has run).
func RetryWait(attempt int, now, next time.Time) (time.Duration, bool) {
	if attempt < 1 || attempt >= RetryAttempts {
		return 0, false
	}
	wait := RetryFirstWait << (attempt - 1)
	if !next.IsZero() && now.Add(wait).After(next.Add(-RetryMargin)) {
		return 0, false
	}
	return wait, true
}
