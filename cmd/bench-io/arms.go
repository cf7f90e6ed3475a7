package main

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tandem-mco/tandem/pkg/iso"
)

// targetSpec is one target of the frontier: a multiple of the idle p99
// measured before the trials ("2x") or a latency ("3ms").
type targetSpec struct {
	Text     string        `json:"text"`
	Multiple float64       `json:"multiple,omitempty"`
	Latency  time.Duration `json:"latency,omitempty"`
}

func parseTargets(s string) ([]targetSpec, error) {
	var out []targetSpec
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		spec, err := iso.ParseTargetSpec(f)
		if err != nil {
			return nil, fmt.Errorf("--targets: %w", err)
		}
		t := targetSpec{Text: f, Multiple: spec.Multiple, Latency: spec.Latency}
		if slices.ContainsFunc(out, func(o targetSpec) bool { return o.Text == t.Text }) {
			return nil, fmt.Errorf("--targets: %s listed twice", f)
		}
		out = append(out, t)
	}
	return out, nil
}

// resolve turns the spec into a latency, given the idle p99 (ms). Like the
// governor's own rule, an idle p99 inside etcd's first bucket counts as
// that bucket's bound (1 ms).
func (t targetSpec) resolve(idleMs float64) time.Duration {
	if t.Latency > 0 {
		return t.Latency
	}
	return time.Duration(t.Multiple * max(idleMs, 1) * float64(time.Millisecond))
}

// arm is one thing each round stages under: a policy with its own
// settings (none, writeback, the default policy with its default target),
// or the governed policy at one target of the frontier.
type arm struct {
	Name   string      `json:"name"`
	Policy string      `json:"policy"`
	Target *targetSpec `json:"target,omitempty"`
	// TargetMs is the target resolved before the trials (frontier arms).
	TargetMs float64 `json:"targetMs,omitempty"`
}

// arms lists the policies, then the governed policy at each target.
func (c config) arms() []arm {
	var out []arm
	for _, p := range c.policies {
		out = append(out, arm{Name: p, Policy: p})
	}
	for i := range c.targets {
		t := c.targets[i]
		out = append(out, arm{Name: c.governed + "@" + t.Text, Policy: c.governed, Target: &t})
	}
	return out
}

// resolveTargets fixes each frontier arm's target from the idle p99
// measured before the trials.
func resolveTargets(arms []arm, idleMs float64) {
	for i := range arms {
		if t := arms[i].Target; t != nil {
			arms[i].TargetMs = ms(t.resolve(idleMs))
		}
	}
}

// isDefault tells whether an arm is the daemon's default: the default
// policy with its default target.
func (a arm) isDefault() bool { return a.Target == nil && a.Policy == iso.DefaultPolicyName() }
