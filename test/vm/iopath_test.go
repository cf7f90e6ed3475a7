//go:build vm

package vm_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tandem-mco/tandem/pkg/daemon"
	"github.com/tandem-mco/tandem/pkg/iso"
)

const (
	unitCgroup   = "/sys/fs/cgroup/system.slice/rpm-ostreed.service"
	daemonCgroup = "/sys/fs/cgroup/system.slice/machine-config-daemon.service"
	dropInPath   = "/run/systemd/system/rpm-ostreed.service.d/10-tandem-staging-io.conf"
	samplesFile  = "/run/tandem-io-samples.log"
)

// checkDropIns: the daemon laid its drop-in in systemd's runtime unit
// directory and restarted rpm-ostreed with it, so the running process has
// the drop-in's priority (Nice=10, best-effort level 7).
func (s *suite) checkDropIns(ctx context.Context) error {
	// The daemon lays them as it starts, which may still be under way.
	deadline := time.Now().Add(5 * time.Minute)
	props := map[string]string{}
	for {
		out, err := s.w.node.Run(ctx, time.Minute, "/bin/systemctl", "show", "rpm-ostreed.service", "-p", "DropInPaths", "-p", "Nice", "-p", "IOSchedulingClass", "-p", "IOSchedulingPriority", "-p", "MainPID", "-p", "ActiveState")
		if err != nil {
			return err
		}
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			k, v, _ := strings.Cut(l, "=")
			props[k] = v
		}
		ni := ""
		if strings.Contains(props["DropInPaths"], dropInPath) && props["ActiveState"] == "active" {
			// The running process, not only the unit, has the drop-in's
			// priority: the daemon restarted the unit with it.
			out, _ := s.w.node.Run(ctx, time.Minute, "/bin/ps", "-o", "ni=", "-p", props["MainPID"])
			ni = strings.TrimSpace(out)
		}
		if ni == "10" && props["Nice"] == "10" && props["IOSchedulingPriority"] == "7" {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("5m after the daemon started, rpm-ostreed.service shows %v and its process nice %q; want drop-in %s laid by the daemon (Nice=10, IOSchedulingPriority=7) and the unit restarted with it", props, ni, dropInPath)
		}
		time.Sleep(3 * time.Second)
	}
	return nil
}

// ioSampler records rpm-ostreed's and the daemon's cgroup I/O files in the
// guest every 0.2s (a transient unit), so a short stage is seen whole.
type ioSampler struct{ s *suite }

func (s *suite) startIOSampler(ctx context.Context) (*ioSampler, error) {
	script := fmt.Sprintf(`while :; do echo "T $(date +%%s.%%N)"; sed 's/^/max /' %[1]s/io.max; sed 's/^/weight /' %[1]s/io.weight; sed 's/^/stat /' %[1]s/io.stat; sed 's/^/mcd /' %[2]s/io.stat; sleep 0.2; done 2>/dev/null > %[3]s`, unitCgroup, daemonCgroup, samplesFile)
	_, err := s.w.node.Run(ctx, time.Minute, "/bin/systemd-run", "--unit=tandem-io-sampler", "--collect", "/bin/sh", "-c", script)
	if err != nil {
		return nil, err
	}
	return &ioSampler{s: s}, nil
}

// ioSample is one reading.
type ioSample struct {
	limit        uint64 // wbps on the disk; 0: none
	weight       string
	unitWrites   uint64
	daemonWrites uint64
}

func (p *ioSampler) stop(ctx context.Context) ([]ioSample, error) {
	n := p.s.w.node
	if _, err := n.Run(ctx, time.Minute, "/bin/systemctl", "stop", "tandem-io-sampler.service"); err != nil {
		return nil, err
	}
	out, err := n.ReadFile(ctx, samplesFile)
	if err != nil {
		return nil, err
	}
	var samples []ioSample
	var cur *ioSample
	for _, l := range strings.Split(out, "\n") {
		kind, rest, _ := strings.Cut(l, " ")
		if kind == "T" {
			samples = append(samples, ioSample{})
			cur = &samples[len(samples)-1]
			continue
		}
		if cur == nil {
			continue
		}
		switch kind {
		case "max":
			for _, f := range strings.Fields(rest) {
				if v, ok := strings.CutPrefix(f, "wbps="); ok && v != "max" {
					cur.limit, _ = strconv.ParseUint(v, 10, 64)
				}
			}
		case "weight":
			cur.weight = strings.TrimSpace(rest)
		case "stat":
			cur.unitWrites += wbytes(rest)
		case "mcd":
			cur.daemonWrites += wbytes(rest)
		}
	}
	return samples, nil
}

func wbytes(statLine string) uint64 {
	for _, f := range strings.Fields(statLine) {
		if v, ok := strings.CutPrefix(f, "wbytes="); ok {
			n, _ := strconv.ParseUint(v, 10, 64)
			return n
		}
	}
	return 0
}

// checkIOPath judges a stage's samples: the daemon put a write limit and
// the policy's weight on rpm-ostreed.service (the unit's own io.max and
// io.weight, set by systemd from the daemon's D-Bus call), at least
// minBytes of writes were charged to that unit and few to the daemon's,
// and once staged the limit is lifted. governed: the limit came down from
// where it started.
func (s *suite) checkIOPath(ctx context.Context, t *testing.T, samples []ioSample, minBytes uint64, governed bool) error {
	var limited []ioSample
	// Counters only grow while the unit runs; a reading taken before its
	// cgroup had the file reads 0, so max-min is the stage's share.
	minU, maxU, minD, maxD := uint64(math.MaxUint64), uint64(0), uint64(math.MaxUint64), uint64(0)
	for _, x := range samples {
		minU, maxU = min(minU, x.unitWrites), max(maxU, x.unitWrites)
		minD, maxD = min(minD, x.daemonWrites), max(maxD, x.daemonWrites)
		if x.limit > 0 {
			limited = append(limited, x)
		}
	}
	if len(samples) == 0 {
		return fmt.Errorf("no I/O samples taken during the stage")
	}
	firstUnit, lastUnit, firstDaemon, lastDaemon := minU, maxU, minD, maxD
	var limits []uint64
	for _, x := range limited {
		if len(limits) == 0 || limits[len(limits)-1] != x.limit {
			limits = append(limits, x.limit)
		}
	}
	s.w.logf("io path: %d samples, %d with a write limit, limits %v, unit wrote %d bytes, daemon %d", len(samples), len(limited), limits, lastUnit-firstUnit, lastDaemon-firstDaemon)
	if len(limited) == 0 {
		return fmt.Errorf("no write limit ever on %s/io.max during the stage (%d samples)", unitCgroup, len(samples))
	}
	wantWeight := fmt.Sprintf("default %d", iso.DefaultWeight)
	if limited[0].weight != wantWeight {
		return fmt.Errorf("%s/io.weight during the stage is %q, want %q", unitCgroup, limited[0].weight, wantWeight)
	}
	if got := lastUnit - firstUnit; got < minBytes*9/10 {
		return fmt.Errorf("rpm-ostreed.service's io.stat shows %d bytes written during the stage, want at least %d: the stage's writes are not charged to it", got, minBytes*9/10)
	}
	if got := lastDaemon - firstDaemon; got > minBytes/4 {
		return fmt.Errorf("machine-config-daemon.service's io.stat shows %d bytes written during the stage: the stage writes in the daemon's cgroup", got)
	}
	if governed {
		lowest := limits[0]
		for _, l := range limits {
			lowest = min(lowest, l)
		}
		if lowest >= limits[0] {
			return fmt.Errorf("the governor never lowered the write limit from %d (limits seen %v)", limits[0], limits)
		}
	}
	lim, err := s.unitWriteLimit(ctx)
	if err != nil {
		return err
	}
	if lim != "" {
		return fmt.Errorf("write limit left on rpm-ostreed.service after the stage: %s", lim)
	}
	return nil
}

// unitWriteLimit is the unit's IOWriteBandwidthMax as systemd reports it
// ("" when none).
func (s *suite) unitWriteLimit(ctx context.Context) (string, error) {
	out, err := s.w.node.Run(ctx, time.Minute, "/bin/systemctl", "show", "-p", "IOWriteBandwidthMax", "--value", "rpm-ostreed.service")
	return strings.TrimSpace(out), err
}

// requireStagedImage waits, up to stageBound, for rpm-ostree to show c's
// image staged.
func (s *suite) requireStagedImage(ctx context.Context, c *config) error {
	deadline := time.Now().Add(stageBound)
	last := ""
	for {
		out, err := s.w.node.Sh(ctx, time.Minute, "set -a; . /etc/tandem/osdouble.env; exec /opt/tandem/bin/rpm-ostree status --json")
		if err == nil {
			var st struct {
				Deployments []struct {
					Staged bool   `json:"staged"`
					Ref    string `json:"container-image-reference"`
				} `json:"deployments"`
			}
			if err := json.Unmarshal([]byte(out), &st); err == nil {
				last = "nothing staged"
				for _, d := range st.Deployments {
					if d.Staged {
						last = "staged " + d.Ref
						if daemon.NormalizeImage(d.Ref) == c.image {
							return nil
						}
					}
				}
			} else {
				last = err.Error()
			}
		} else {
			last = err.Error()
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s's image not staged within %s (last: %s)", c.name, stageBound, last)
		}
		time.Sleep(3 * time.Second)
	}
}
