package drain

import (
	"testing"
	"time"
)

func TestRetryPolicy(t *testing.T) {
	p := RetryPolicy{Delay: time.Minute, SlowAfter: 10 * time.Minute, SlowDelay: 5 * time.Minute, Timeout: time.Hour}
	cases := []struct {
		failingFor    time.Duration
		delay         time.Duration
		slow, overdue bool
	}{
		{0, time.Minute, false, false},
		{10 * time.Minute, time.Minute, false, false},
		{10*time.Minute + time.Second, 5 * time.Minute, true, false},
		{time.Hour, 5 * time.Minute, true, false},
		{time.Hour + time.Second, 5 * time.Minute, true, true},
	}
	for _, tc := range cases {
		delay, slow, overdue := p.Next(tc.failingFor)
		if delay != tc.delay || slow != tc.slow || overdue != tc.overdue {
			t.Errorf("Next(%s) = %s,%v,%v; want %s,%v,%v", tc.failingFor, delay, slow, overdue, tc.delay, tc.slow, tc.overdue)
		}
	}
}

func TestOptionDefaultsAreTheMCOs(t *testing.T) {
	var o Options
	if err := o.setDefaults(); err != nil {
		t.Fatal(err)
	}
	want := RetryPolicy{Delay: time.Minute, SlowAfter: 10 * time.Minute, SlowDelay: 5 * time.Minute, Timeout: time.Hour}
	if o.Retry != want || o.AttemptTimeout != 90*time.Second || o.Metrics == nil {
		t.Fatalf("defaults = %+v", o)
	}
}
