//go:build integration

package daemon_test

import (
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	ign3types "github.com/coreos/ignition/v2/config/v3_5/types"
	corev1 "k8s.io/api/core/v1"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/pkg/daemon"
	"github.com/tandem-mco/tandem/test/framework"
)

// TestDaemonCrash runs the update A -> B once cleanly to learn the daemon's
// transitions (the steps it takes, in order), then once per transition and
// per crash kind: the daemon is held right before that step and either
// killed with SIGKILL (and restarted) or the node loses power (no
// finalization, /run wiped). After each, the node must converge to B,
// never boot B before the grant, not stay cordoned, and hold exactly B's
// files with no half-written one.
func TestDaemonCrash(t *testing.T) {
	w := newWorld(t)
	a, b := w.standardConfigs()

	clean := w.runScenario(t, "crash-clean", a, b, "", 0, nil)
	transitions := clean.steps
	if len(transitions) < 8 {
		t.Fatalf("clean run took only %d steps: %v", len(transitions), transitions)
	}
	t.Logf("transitions (%d): %v", len(transitions), transitions)

	type scenario struct {
		kind       string
		point      string
		occurrence int
	}
	var scenarios []scenario
	for _, kind := range []string{"kill", "power-loss"} {
		seen := map[string]int{}
		for _, p := range transitions {
			seen[p]++
			scenarios = append(scenarios, scenario{kind, p, seen[p]})
		}
	}
	passed := 0
	for i, sc := range scenarios {
		name := fmt.Sprintf("%s-%02d-%s", sc.kind, i%len(transitions), sc.point)
		ok := t.Run(name, func(t *testing.T) {
			crash := func(sn *framework.SimNode) error {
				if sc.kind == "kill" {
					return sn.KillDaemon()
				}
				return sn.PowerCycle()
			}
			w.runScenario(t, fmt.Sprintf("crash-%d", i), a, b, sc.point, sc.occurrence, crash)
		})
		if ok {
			passed++
		}
	}
	fmt.Printf("daemon-crash: transitions=%d scenarios=%d passed=%d\n", len(transitions), len(scenarios), passed)
	if passed != len(scenarios) {
		t.Fatalf("%d of %d crash scenarios failed", len(scenarios)-passed, len(scenarios))
	}
}

type scenarioResult struct {
	steps []string
}

// runScenario updates a fresh node from A to B with the stand-in
// controller granting once staged. With point set, it holds the daemon at
// that step's occurrence and crashes it there.
func (w *world) runScenario(t *testing.T, nodeName string, a, b ign3types.Config, point string, occurrence int, crash func(*framework.SimNode) error) scenarioResult {
	t.Helper()
	var (
		mu        sync.Mutex
		bootErrs  []string
		grantSeen bool
	)
	opts := framework.SimNodeOptions{Hooked: true}
	opts.OnBoot = func(ev framework.BootEvent) {
		img := daemon.NormalizeImage(ev.Booted.Origin)
		mu.Lock()
		defer mu.Unlock()
		granted := !w.drainer.eventsOf(nodeName).GrantedAt.IsZero()
		if img == w.imageB && !granted {
			bootErrs = append(bootErrs, fmt.Sprintf("%s boot into %s before the grant", ev.Cause, img))
		}
		if img != w.imageA && img != w.imageB {
			bootErrs = append(bootErrs, fmt.Sprintf("%s boot into unknown image %s", ev.Cause, img))
		}
		grantSeen = grantSeen || granted
	}
	sn := w.installNode(nodeName, cfgA, a, w.imageA, opts)
	defer func() { _ = sn.Stop() }()
	requireStagedAtCordon(w, sn)
	w.drainer.autoGrant(sn.Name, true)

	var held <-chan struct{}
	if point != "" {
		held = sn.HoldAt(point, occurrence)
	}
	w.annotate(sn.Name, map[string]string{constants.StageConfigAnnotation: cfgB})
	if held != nil {
		select {
		case <-held:
		case <-time.After(updateTimeout):
			t.Fatalf("daemon never reached %s #%d; steps: %v\n%s", point, occurrence, sn.Steps(), sn.DaemonLogTail())
		}
		if err := crash(sn); err != nil {
			t.Fatalf("crash at %s: %v", point, err)
		}
	}
	n := w.waitFor(sn, "Done on "+cfgB, updateTimeout, func(n *corev1.Node) bool {
		return n.Annotations[constants.CurrentConfigAnnotation] == cfgB &&
			n.Annotations[constants.StateAnnotation] == constants.MachineConfigDaemonStateDone &&
			n.Annotations[constants.LastAppliedDrainAnnotation] == constants.UncordonRequest(cfgB)
	})
	checkUpdated(t, w, sn, n, &a, &b)
	mu.Lock()
	defer mu.Unlock()
	for _, e := range bootErrs {
		t.Error(e)
	}
	if ev := w.drainer.eventsOf(sn.Name); len(ev.Cordons) == 0 || ev.Cordons[0].Before(ev.GrantedAt) {
		t.Errorf("cordoned before the grant or never: %+v", ev)
	}
	if t.Failed() || os.Getenv("TANDEM_TEST_DAEMON_LOG") != "" {
		t.Logf("daemon log of %s:\n%s", sn.Name, sn.DaemonLog())
	}
	return scenarioResult{steps: sn.Steps()}
}
