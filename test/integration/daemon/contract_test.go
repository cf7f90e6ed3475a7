//go:build integration

package daemon_test

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/test/framework"
	"github.com/tandem-mco/tandem/test/osdouble"
)

// TestRPMOstreeContract runs the daemon's staged update on a node of every
// rpm-ostree profile of the double (test/osdouble/README.md: each pinned to
// an upstream release): stage, locked, granted, finalize, reboot, verified
// Done. The oracle is the double's own state, which follows ostree's rules:
// whether an orderly shutdown would finalize the staged deployment, and
// what boots after the reboot the daemon asked for.
func TestRPMOstreeContract(t *testing.T) {
	w := newWorld(t)
	a, b := w.standardConfigs()
	profiles := osdouble.Profiles()
	passed := 0
	for _, p := range profiles {
		ok := t.Run(p, func(t *testing.T) {
			w.t = t
			sn := w.installNode("contract-"+p, cfgA, a, w.imageA, framework.SimNodeOptions{RPMOstreeProfile: p})
			requireStagedAtCordon(w, sn)
			w.annotate(sn.Name, map[string]string{constants.StageConfigAnnotation: cfgB})
			w.waitFor(sn, "stagedConfig="+cfgB, updateTimeout, func(n *corev1.Node) bool {
				return n.Annotations[constants.StagedConfigAnnotation] == cfgB
			})
			st, locked, err := sn.Staged()
			if err != nil || st == nil || !locked {
				t.Fatalf("after stagedConfig: staged=%v locked=%v err=%v", st, locked, err)
			}
			if got := bootedImage(t, sn); got != w.imageA {
				t.Fatalf("booted %s before the grant", got)
			}
			w.annotate(sn.Name, map[string]string{constants.DesiredConfigAnnotation: cfgB})
			n := w.waitFor(sn, "Done on "+cfgB, updateTimeout, func(n *corev1.Node) bool {
				return n.Annotations[constants.CurrentConfigAnnotation] == cfgB &&
					n.Annotations[constants.StateAnnotation] == constants.MachineConfigDaemonStateDone
			})
			checkUpdated(t, w, sn, n, &a, &b)
			if boots := sn.Boots(); len(boots) != 2 || boots[1].Cause != "reboot" {
				t.Errorf("boots: %+v, want the initial one and one reboot", boots)
			}
		})
		if ok {
			passed++
		}
	}
	fmt.Printf("rpmostree-contract: profiles=%d passed=%d\n", len(profiles), passed)
}
