//go:build integration

package daemon_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/tandem-mco/tandem/pkg/constants"
	"github.com/tandem-mco/tandem/test/framework"
	"github.com/tandem-mco/tandem/test/osdouble"
)

// TestNodeDuties checks a node's duties that no stock-MCO-compatible
// update would show missing, each against the upstream it follows, on one
// control plane: first towards rpm-ostree (nodeDutiesOS), then the
// certificate writer (nodeDutiesCertificates, node_duties_certs_test.go).
// It prints "node-duties: pull_auth=ok repeated_kargs=ok certificates=K/K"
// when all hold, K the certificate destinations checked.
func TestNodeDuties(t *testing.T) {
	w := newWorld(t)
	var pullAuth, repeatedKargs bool
	// In order: the certificate writer's ControllerConfig gives every node
	// the internal registry's pull secret, which rpm-ostree's auth file
	// would then point at.
	t.Run("os", func(t *testing.T) { pullAuth, repeatedKargs = nodeDutiesOS(t, w.in(t)) })
	var certsOK, certsChecked int
	t.Run("certificates", func(t *testing.T) { certsOK, certsChecked = nodeDutiesCertificates(t, w.in(t)) })
	if t.Failed() || !pullAuth || !repeatedKargs || certsChecked == 0 || certsOK != certsChecked {
		return
	}
	fmt.Printf("node-duties: pull_auth=ok repeated_kargs=ok certificates=%d/%d\n", certsOK, certsChecked)
}

// nodeDutiesOS: two duties of a node towards rpm-ostree, on the strict
// double (test/osdouble/README.md) and a registry that requires
// authentication, as every OpenShift release registry does.
//
//   - pull_auth: rpm-ostree reads its credentials only from its own auth
//     files; the daemon must hand it the cluster's pull secret
//     (/var/lib/kubelet/config.json, in every rendered config) before every
//     pull, as the MCO links /run/ostree/auth.json to it. /run is emptied at
//     each boot, so the second update, staged after the first one's reboot,
//     pulls only if the daemon links again.
//   - repeated_kargs: hugepagesz=1G hugepages=16 hugepagesz=2M hugepages=16
//     reserves huge pages of two sizes; each hugepages= belongs to the
//     hugepagesz= before it. Both updates must boot exactly the install's
//     kernel arguments followed by the config's, in order and as often (the
//     MCO's edit: delete the old config's, append the new config's).
//
// It returns whether each held.
func nodeDutiesOS(t *testing.T, w *world) (pullAuth, repeatedKargs bool) {
	a, _ := w.standardConfigs()
	h1 := ignition([]fileSpec{{"/etc/tandem-test/app.conf", "version=h1\n", 0o644}}, nil)
	h2 := ignition([]fileSpec{{"/etc/tandem-test/app.conf", "version=h2\n", 0o644}}, nil)
	const cfgH1, cfgH2 = "rendered-worker-hugepages-1", "rendered-worker-hugepages-2"
	// One argument per entry, as a MachineConfig may list them (the
	// MCO's render keeps both hugepages=16).
	h1Kargs := []string{"hugepagesz=1G", "hugepages=16", "hugepagesz=2M", "hugepages=16"}
	w.createMC(cfgH1, w.imageB, h1, h1Kargs...)
	// The 1G count changes; the 2M one stays: an edit by presence or by
	// multiset would keep a hugepages=16 that now belongs to the wrong size.
	w.createMC(cfgH2, w.imageA, h2, "hugepagesz=1G hugepages=8", "hugepagesz=2M hugepages=16")
	sn := w.installNode("node-duties-os", cfgA, a, w.imageA, framework.SimNodeOptions{})
	w.drainer.autoGrant(sn.Name, true)

	pullAuth, repeatedKargs = true, true
	update := func(cfg, image string, kargs []string, boots int) {
		t.Helper()
		w.annotate(sn.Name, map[string]string{constants.StageConfigAnnotation: cfg})
		n := w.waitFor(sn, "Done on "+cfg, updateTimeout, func(n *corev1.Node) bool {
			return n.Annotations[constants.CurrentConfigAnnotation] == cfg &&
				n.Annotations[constants.StateAnnotation] == constants.MachineConfigDaemonStateDone
		})
		waitSettled(w, sn)
		if got := bootedImage(t, sn); got != image {
			pullAuth = false
			t.Errorf("%s: booted %s, want %s (%s)", cfg, got, image, describe(n))
		}
		if got := len(sn.Boots()); got != boots {
			t.Errorf("%s: %d boots, want %d", cfg, got, boots)
		}
		// The oracle: the link rpm-ostree's auth file must be (the MCO's
		// linkAuthFile), in this boot's /run.
		if got, err := os.Readlink(filepath.Join(sn.Run, "ostree", "auth.json")); err != nil || got != "/var/lib/kubelet/config.json" {
			pullAuth = false
			t.Errorf("%s: /run/ostree/auth.json -> %q (%v), want a link to the pull secret", cfg, got, err)
		}
		d, err := sn.Booted()
		if err != nil {
			t.Fatal(err)
		}
		want := osdouble.DefaultKargs()
		for _, e := range kargs {
			want = append(want, strings.Fields(e)...)
		}
		if !slices.Equal(d.Kargs, want) {
			repeatedKargs = false
			t.Errorf("%s: booted with kernel arguments %q, want %q", cfg, d.Kargs, want)
		}
		checkNoRecord(t, sn)
	}
	update(cfgH1, w.imageB, h1Kargs, 2)
	update(cfgH2, w.imageA, []string{"hugepagesz=1G hugepages=8", "hugepagesz=2M hugepages=16"}, 3)
	return pullAuth && !t.Failed(), repeatedKargs && !t.Failed()
}
