// Package daemon is tandem's machine-config-daemon: a crash-safe, staged
// node update.
//
// # Shape
//
// The loop (Daemon.Run) observes durable state only — the Node's protocol
// annotations (pkg/constants), `rpm-ostree status`, the on-disk Record under
// <root>/var/lib/tandem/daemon and the current boot id — then asks the pure
// function Next for one Action, performs it through thin adapters (kube,
// files, host, osupdate) and observes again. No decision is kept in memory,
// so after a kill -9 or a reboot at any point the same function picks the
// right step. next_test.go is the table of every state.
//
// # Flow
//
// stageConfig (or desiredConfig) names a rendered MachineConfig: the daemon
// validates it (Ignition, the MCO's reconcilability rules, what it can write)
// and stages its OS image finalization-locked under the node's I/O policy
// (Stage), then reports stagedConfig (ReportStaged). Only desiredConfig
// (the controller's grant) disrupts: state=Working (SetWorking), the drain
// handshake desiredDrain=drain-<config> until lastAppliedDrain matches
// (RequestDrain), the files and units with backups (WriteFiles), kernel
// arguments on the staged deployment (ApplyKernelArgs), the kernel type and
// extensions layered onto it (LayerPackages, layering.go), kubelet stopped
// (StopKubelet), `rpm-ostree finalize-deployment <checksum>` (Finalize),
// which reboots. After the boot: the booted image and the files are checked
// (Verify), uncordon handshake (RequestUncordon), currentConfig and
// state=Done (SetDone), and the record is dropped (ClearRecord). A config
// without an OS change takes the same path without staging and reboots
// through the Host. A config that cannot be applied gets Unreconcilable (or
// Degraded for a failed step, e.g. an image that cannot be pulled) with a
// reason in the `reason` annotation and the MachineConfigNode; nothing is
// written and nothing stays staged.
//
// # The stock order (a baseline)
//
// With --update-order=stock (Options.Order = OrderStock) the daemon keeps a
// stock MCO daemon's order instead: it ignores stageConfig and, on the
// grant, sets Working and drains first, then stages, writes the files and
// finalizes, so the pull sits inside the disruption window. It exists so
// that `make bench-disruption` can measure both orders with the same code;
// everything after the stage (record, rollback, finalize) is shared.
//
// # Beside the loop: the certificate writer
//
// pkg/daemon/certs keeps the ControllerConfig's CA bundles, the internal
// registry's pull secret and a rotated server CA on the node, as the MCO's
// certificate writer does, from a watch of the ControllerConfig and in a
// goroutine of its own (cmd start wires it): it holds no update state and
// Next never waits on it. Its only signal to the loop is a node annotation
// write (lastSyncedControllerConfigResourceVersion), which wakes it.
//
// # Crash safety: the record and the rollback choice
//
// WriteFiles first copies every path it will replace or remove into a backup
// directory and saves the Record (phase Writing) listing them; only then are
// the files replaced, each by an atomic rename of a fsynced temporary file.
// Each later step moves the record's phase forward, saved atomically before
// the step changes the machine (Finalize records Rebooting before it runs).
//
// The files written belong to the new config, and the staged OS lives in
// /run: a power loss before finalize-deployment boots the old OS again with
// the new files on disk. tandem chooses to restore, not to re-apply: any
// boot that the daemon did not ask for (a record phase before Rebooting in
// an earlier boot), or a finalize that did not take (the booted checksum is
// not the one finalized), leads to RollbackFiles — the backups go back, the
// record is deleted — and the update starts again from the observed state:
// the grant still stands, so the OS is staged again, the files written
// again and the node finalized. The node therefore never runs a mix of the
// old OS and new files for longer than the restore, and never boots a
// deployment that was not granted: finalize is only ever called for the
// deployment recorded for desiredConfig, and a staged deployment is never
// unlocked otherwise. A record interrupted mid-write (phase Writing) is
// rolled back the same way. A grant withdrawn before the reboot rolls back
// too, and the drain is undone.
//
// test/integration/daemon's TestDaemonCrash kills the daemon (SIGKILL) and
// separately cuts the power before every step of a real update and checks
// the node converges each time.
package daemon
