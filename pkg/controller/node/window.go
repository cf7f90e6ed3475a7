package node

import (
	"fmt"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
)

// Window is one maintenance window: it opens at each time the cron
// schedule names and stays open for Duration.
type Window struct {
	Spec     string // as written, for messages
	Schedule cron.Schedule
	Duration time.Duration
}

// maxWindow bounds a window's length; a longer one is a typo.
const maxWindow = 7 * 24 * time.Hour

// windowParser reads standard 5-field cron specs (minute hour dom month
// dow), the @yearly/@monthly/@weekly/@daily/@hourly descriptors and a
// CRON_TZ= or TZ= prefix, as robfig/cron's standard parser does.
var windowParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// ParseWindows parses the maintenanceWindows annotation: entries
// "<cron spec> <duration>" separated by ";" or newlines. An empty value is
// an error: it would mean "never", which is what the hold annotation says.
func ParseWindows(s string) ([]Window, error) {
	var out []Window
	for _, entry := range strings.FieldsFunc(s, func(r rune) bool { return r == ';' || r == '\n' }) {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		fields := strings.Fields(entry)
		if len(fields) < 2 {
			return nil, fmt.Errorf("window %q: want \"<cron spec> <duration>\", e.g. \"0 22 * * 1-5 4h\"", entry)
		}
		spec := strings.Join(fields[:len(fields)-1], " ")
		if strings.Contains(spec, "@every") {
			return nil, fmt.Errorf("window %q: @every has no fixed start; use a cron spec", entry)
		}
		d, err := time.ParseDuration(fields[len(fields)-1])
		if err != nil || d <= 0 || d > maxWindow {
			return nil, fmt.Errorf("window %q: duration %q must be positive and at most %s", entry, fields[len(fields)-1], maxWindow)
		}
		sched, err := windowParser.Parse(spec)
		if err != nil {
			return nil, fmt.Errorf("window %q: %w", entry, err)
		}
		out = append(out, Window{Spec: entry, Schedule: sched, Duration: d})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no window in %q", s)
	}
	return out, nil
}

// Open reports whether now is inside the window: it opened at some t with
// now-Duration < t <= now.
func (w Window) Open(now time.Time) bool {
	t := w.Schedule.Next(now.Add(-w.Duration))
	return !t.After(now)
}

// windowGate holds disruption outside every window.
type windowGate struct {
	windows []Window
	err     error
	now     time.Time
}

func (windowGate) Name() string           { return "MaintenanceWindow" }
func (windowGate) HoldReason() HoldReason { return HoldMaintenanceWindow }

func (g windowGate) MayDisrupt(pool PoolView, _ NodeView) (bool, string) {
	if g.err != nil {
		// Fail closed: a typo must not open the pool to disruption at any time.
		return false, fmt.Sprintf("invalid maintenanceWindows annotation on pool %s: %v", pool.Name, g.err)
	}
	var next time.Time
	var specs []string
	for _, w := range g.windows {
		if w.Open(g.now) {
			return true, ""
		}
		if t := w.Schedule.Next(g.now); next.IsZero() || t.Before(next) {
			next = t
		}
		specs = append(specs, w.Spec)
	}
	return false, fmt.Sprintf("outside the maintenance windows (%s); the next opens at %s",
		strings.Join(specs, "; "), next.UTC().Format(time.RFC3339))
}
