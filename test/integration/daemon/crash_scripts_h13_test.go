//go:build integration

package daemon_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tandem-mco/tandem/pkg/daemon"
	"github.com/tandem-mco/tandem/pkg/daemon/files"
	"github.com/tandem-mco/tandem/test/framework"
)

// cfgPolicy is config A plus /etc/containers/policy.json, a file the MCO's
// default node disruption policies apply with a crio reload and no reboot.
const cfgPolicy = "rendered-worker-crash-policy"

// rebootlessCrashScripts are the crash scripts of the rebootless path and of
// the on-disk currentconfig.
func rebootlessCrashScripts() []crashScript {
	return []crashScript{
		{
			// A change the policies apply without a reboot: write, reload,
			// verify, complete. A power loss after the write only applies the
			// files early. SetWorking is its own step here: no drain request
			// carries it, as on the reboot path.
			name:   "rebootless",
			points: []string{string(daemon.ActSetWorking), "WriteFiles", string(daemon.ActPostConfigAction), string(daemon.ActVerify), string(daemon.ActSetDone)},
			drive: func(t *testing.T, r *crashRun) {
				r.w.ensurePolicyConfig()
				r.grant(cfgPolicy, r.w.imageA)
				n := waitDone(r, cfgPolicy)
				checkDone(t, r, n, cfgPolicy)
				if b, err := os.ReadFile(filepath.Join(filepath.Dir(r.sn.Root), "unit-actions.log")); err != nil || !strings.Contains(string(b), "reload crio.service") {
					t.Errorf("crio not reloaded for policy.json: %q %v", b, err)
				}
			},
		},
		{
			// A stock MCD wrote config F to disk and its currentconfig, and was
			// replaced before it moved currentConfig: the disk is checked and
			// adopted, the update completes without writing or rebooting.
			name:   "adopt-on-disk",
			points: []string{string(daemon.ActAdoptOnDiskConfig), string(daemon.ActRequestUncordon), string(daemon.ActSetDone)},
			drive: func(t *testing.T, r *crashRun) {
				r.w.writeLikeStockMCD(t, r, cfgFiles)
				r.grant(cfgFiles, r.w.imageA)
				n := waitDone(r, cfgFiles)
				checkDone(t, r, n, cfgFiles)
			},
		},
	}
}

func (w *world) ensurePolicyConfig() {
	if _, err := w.cp.MCO.MachineconfigurationV1().MachineConfigs().Get(context.Background(), cfgPolicy, metav1.GetOptions{}); err == nil {
		return
	} else if !apierrors.IsNotFound(err) {
		w.t.Fatal(err)
	}
	c := w.cfgs[cfgA]
	p := ignition([]fileSpec{{"/etc/containers/policy.json", `{"default":[{"type":"insecureAcceptAnything"}]}`, 0o644}}, nil)
	c.Storage.Files = append(append(c.Storage.Files[:0:0], c.Storage.Files...), p.Storage.Files...)
	w.createMC(cfgPolicy, w.imageA, c)
}

// writeLikeStockMCD lays cfg's files on the node (over config A's) and the
// MCO's on-disk currentconfig naming cfg.
func (w *world) writeLikeStockMCD(t *testing.T, r *crashRun, cfg string) {
	t.Helper()
	a, c := w.cfgs[cfgA], w.cfgs[cfg]
	nodes, err := files.Plan(r.sn.Root, &a, &c, files.PasswdOwners{Root: r.sn.Root})
	if err != nil {
		t.Fatal(err)
	}
	if err := (&files.Writer{Root: r.sn.Root}).Apply(nodes, nil); err != nil {
		t.Fatal(err)
	}
	mc, err := w.cp.MCO.MachineconfigurationV1().MachineConfigs().Get(context.Background(), cfg, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(mc)
	// Durably, as the MCD writes it (renameio: fsync, rename, directory fsync).
	if err := framework.WriteFileDurably(filepath.Join(r.sn.Root, daemon.OnDiskConfigPath), b, 0o644); err != nil {
		t.Fatal(err)
	}
}
