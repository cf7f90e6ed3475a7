//go:build integration

package daemon_test

import (
	"testing"

	"github.com/tandem-mco/tandem/pkg/daemon"
)

// layeringCrashScripts crash the daemon around the layering of a kernel
// type and an extension (no OS change): before the layering, after it
// (a power loss there loses the layered deployment, which was only
// staged), after the reboot was recorded (a power loss there boots the old
// deployment: the update rolls back and layers again) and after the boot.
func layeringCrashScripts() []crashScript {
	return []crashScript{{
		name: "layering",
		points: []string{string(daemon.ActLayerPackages), string(daemon.ActStopKubelet), "Finalize.advanced",
			string(daemon.ActVerify)},
		drive: func(t *testing.T, r *crashRun) {
			r.w.layeredConfigs()
			trustRegistry(t, r.sn, r.w.registry.Host())
			r.grant(cfgRT, r.w.imageA)
			n := waitDone(r, cfgRT)
			checkDone(t, r, n, cfgRT)
			checkLayering(t, r.sn, 1, true)
		},
	}}
}
