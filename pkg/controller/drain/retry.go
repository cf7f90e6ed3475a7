package drain

import "time"

// RetryPolicy says when a failed drain is tried again. The MCO retries a
// failing drain every minute, and every five minutes once it has failed for
// ten; after an hour it raises mcc_drain_err but keeps trying.
type RetryPolicy struct {
	// Delay between attempts (MCO: 1m).
	Delay time.Duration
	// SlowAfter: once a drain has failed for this long, wait SlowDelay
	// instead (MCO: 10m and 5m).
	SlowAfter time.Duration
	SlowDelay time.Duration
	// Timeout: a drain failing for longer is reported as failed (event
	// DrainFailed, mcc_drain_err=1) and still retried (MCO: 1h).
	Timeout time.Duration
}

// Next returns the delay before the next attempt of a drain failing for
// failingFor, whether it is now in the slow lane, and whether it is overdue.
func (p RetryPolicy) Next(failingFor time.Duration) (delay time.Duration, slow, overdue bool) {
	delay = p.Delay
	if failingFor > p.SlowAfter {
		delay, slow = p.SlowDelay, true
	}
	return delay, slow, failingFor > p.Timeout
}
