package main

import (
	"math"
	"strings"
	"time"

	"github.com/tandem-mco/tandem/pkg/iso"
)

// estimateRate is an unthrottled stage's pace on the machine the bench was
// written on (none and writeback staged 1 GiB in 6-10 s, about 110-160
// MiB/s), taken low so the estimate is an upper bound.
const estimateRate = 100 << 20

// defaultEstimate is the configuration of a run with every default.
func defaultEstimate() config {
	targets, _ := parseTargets("1.5x,2x,3x,5x,10x")
	return config{
		sizeBytes: 1 << 30, trials: 3, idle: 30 * time.Second, settle: 10 * time.Second,
		policies: strings.Split(iso.PolicyNone+","+iso.PolicyWriteback+","+iso.DefaultPolicyName(), ","),
		targets:  targets, governed: iso.DefaultPolicyName(),
		writeLimit: iso.DefaultWriteLimit, minWriteLimit: iso.DefaultMinWriteLimit, dirtyLimit: iso.DefaultDirtyLimit,
	}
}

// estimateMinutes bounds a run's duration: the image's synthesis, both idle
// phases, and per round every arm's settle, node setup and stage, a
// write-limit governor's stage taken at its floor (the slowest it can go).
func estimateMinutes(c config) int {
	size := float64(c.sizeBytes)
	fast := size / estimateRate
	perRound := 0.0
	for _, a := range c.arms() {
		stage := fast
		if p, err := iso.ParsePolicy(a.Policy, c.policyOptions("/", nil)); err == nil && p.Knobs().Governed {
			if p.Knobs().Steer == iso.LeverWriteLimit {
				stage = size / float64(max(c.minWriteLimit, 1))
			}
			if a.Target == nil && c.targetP99 == 0 {
				stage += float64(iso.DefaultBaselineSamples+1) * iso.DefaultSampleInterval.Seconds()
			}
		}
		perRound += c.settle.Seconds() + 5 + stage
	}
	total := 2*fast + 30 + 2*(c.idle+c.settle).Seconds() + float64(c.trials)*perRound
	return int(math.Ceil(total / 60))
}
