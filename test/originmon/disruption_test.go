package originmon

import (
	"testing"
	"time"
)

func TestDisruptedSeconds(t *testing.T) {
	t0 := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	ok := func(s float64) Sample { return Sample{At: at(s)} }
	bad := func(s float64, err string) Sample { return Sample{At: at(s), Err: err} }
	const refused = "dial tcp 10.0.0.1:6443: connect: connection refused"
	const dns = "dial tcp: lookup api.example on 10.0.0.53:53: read udp: i/o timeout"

	tests := []struct {
		name    string
		samples []Sample
		seconds float64
		want    []Interval
	}{
		{name: "no samples"},
		{name: "no failures", samples: []Sample{ok(0), ok(1), ok(2)}},
		{
			name:    "one failure",
			samples: []Sample{ok(0), bad(1, refused), ok(2)},
			seconds: 1,
			want:    []Interval{{From: at(1), To: at(2), Err: refused}},
		},
		{
			name:    "consecutive failures merge into one interval",
			samples: []Sample{ok(0), bad(1, refused), bad(2, refused), bad(3, refused), ok(4)},
			seconds: 3,
			want:    []Interval{{From: at(1), To: at(4), Err: refused}},
		},
		{
			name:    "two separate outages",
			samples: []Sample{bad(1, refused), ok(2), ok(3), bad(4, "500"), bad(5, "500"), ok(6)},
			seconds: 3,
			want:    []Interval{{From: at(1), To: at(2), Err: refused}, {From: at(4), To: at(6), Err: "500"}},
		},
		{
			name:    "trailing failure ends one period after the last sample",
			samples: []Sample{ok(0), bad(1, refused), bad(2, refused)},
			seconds: 2,
			want:    []Interval{{From: at(1), To: at(3), Err: refused}},
		},
		{
			name:    "a new error text starts a new interval",
			samples: []Sample{ok(0), bad(1, refused), bad(2, "500"), ok(3)},
			seconds: 2,
			want:    []Interval{{From: at(1), To: at(2), Err: refused}, {From: at(2), To: at(3), Err: "500"}},
		},
		{
			name:    "shorter than a period counts a period",
			samples: []Sample{ok(0), bad(1, refused), ok(1.3)},
			seconds: 1,
			want:    []Interval{{From: at(1), To: at(1.3), Err: refused}},
		},
		{
			name:    "total rounds to the nearest second",
			samples: []Sample{bad(0, refused), ok(2.4), bad(3, "500"), ok(4.2)},
			seconds: 4, // 2.4 + 1.2 = 3.6
			want:    []Interval{{From: at(0), To: at(2.4), Err: refused}, {From: at(3), To: at(4.2), Err: "500"}},
		},
		{
			name:    "DNS lookup timeouts are not disruption",
			samples: []Sample{ok(0), bad(1, dns), bad(2, refused), ok(3)},
			seconds: 1,
			want:    []Interval{{From: at(2), To: at(3), Err: refused}},
		},
		{
			name:    "samples are ordered by start, not by arrival",
			samples: []Sample{ok(3), bad(2, refused), ok(0), bad(1, refused)},
			seconds: 2,
			want:    []Interval{{From: at(1), To: at(3), Err: refused}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ivs := DisruptedSeconds(tt.samples)
			if got != tt.seconds {
				t.Errorf("seconds = %v, want %v", got, tt.seconds)
			}
			if len(ivs) != len(tt.want) {
				t.Fatalf("intervals = %+v, want %+v", ivs, tt.want)
			}
			for i := range ivs {
				if !ivs[i].From.Equal(tt.want[i].From) || !ivs[i].To.Equal(tt.want[i].To) || ivs[i].Err != tt.want[i].Err {
					t.Errorf("interval %d = %+v, want %+v", i, ivs[i], tt.want[i])
				}
			}
		})
	}
}

func TestDisruptedSecondsEveryShortPeriod(t *testing.T) {
	t0 := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	samples := []Sample{{At: ms(0)}, {At: ms(100), Err: "x"}, {At: ms(200), Err: "x"}, {At: ms(300)}, {At: ms(400), Err: "y"}}
	got, ivs := DisruptedSecondsEvery(samples, 100*time.Millisecond)
	// [100,300) and the trailing [400,500): 0.3 s.
	if got < 0.299 || got > 0.301 || len(ivs) != 2 {
		t.Fatalf("got %v s over %+v, want 0.3 s over 2 intervals", got, ivs)
	}
}
