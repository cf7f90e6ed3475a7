package governor

import (
	"context"
	"fmt"
	"time"

	"k8s.io/klog/v2"
)

// Sampler measures the latency the governor protects, once per interval.
type Sampler interface {
	Sample(ctx context.Context) (Sample, error)
}

// Lever is what the governor moves: any host knob whose larger values give
// staging more throughput (a write limit in bytes/s, a dirty limit in
// bytes, a wbt target in microseconds, a request size in KiB). The law's
// Limit, Min and Max are in the lever's unit.
type Lever interface {
	Set(ctx context.Context, value uint64) error
}

// Governor runs the control law against a sampler and a lever.
type Governor struct {
	Law      Law
	Start    float64 // first value, in the lever's unit
	Interval time.Duration
	Sampler  Sampler
	Lever    Lever
	// OnStep, when set, sees every sample and the state it led to (the
	// benchmark records the trajectory with it).
	OnStep func(Sample, State)
}

// Run applies the starting value, then samples every interval and applies
// each new value until ctx ends. It returns nil when ctx ends.
func (g Governor) Run(ctx context.Context) error {
	if err := g.Law.Validate(); err != nil {
		return err
	}
	if g.Interval <= 0 {
		return fmt.Errorf("governor: interval must be > 0, got %v", g.Interval)
	}
	logger := klog.FromContext(ctx).WithName("io-governor")
	s := g.Law.Initial(g.Start)
	if err := g.Lever.Set(ctx, uint64(s.Limit)); err != nil {
		return fmt.Errorf("governor: set the initial value: %w", err)
	}
	// Prime the sampler so the first real sample covers one full interval.
	if _, err := g.Sampler.Sample(ctx); err != nil {
		logger.Error(err, "Priming latency sampler failed; will retry")
	}
	t := time.NewTicker(g.Interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		x, err := g.Sampler.Sample(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			logger.Error(err, "Latency sample failed; holding the limit")
			continue
		}
		next := g.Law.Step(s, x)
		if g.OnStep != nil {
			g.OnStep(x, next)
		}
		if uint64(next.Limit) != uint64(s.Limit) {
			if err := g.Lever.Set(ctx, uint64(next.Limit)); err != nil {
				if ctx.Err() != nil {
					return nil
				}
				logger.Error(err, "Moving the lever failed", "value", uint64(next.Limit))
				continue
			}
			logger.V(2).Info("Lever moved", "p99", x.P99, "from", uint64(s.Limit), "to", uint64(next.Limit))
		}
		s = next
	}
}
