// Package osdouble is a test double of rpm-ostree: the state of one simulated
// node as a library, and the `rpm-ostree` CLI built from it
// (test/osdouble/cmd/rpm-ostree), which tests put first on PATH.
//
// It keeps the contract of the real tool that tandem relies on, per
// rpm-ostree release (Profile; README.md cites the upstream source of each
// difference; DefaultProfile is the newest):
//   - `status --json` with rpm-ostree's field names and shapes (`booted`,
//     `staged`, `finalization-locked` only from the legacy lock file, `checksum`,
//     `version`, `pinned`, `container-image-reference`,
//     `container-image-reference-digest`, `base-commit-meta`, ...);
//   - `rebase [--lock-finalization] REFSPEC [REVISION]` and
//     `deploy [--lock-finalization] REVISION` for container images
//     (ostree-unverified-registry:...), with "Old and new refs are equal";
//   - `finalize-deployment [--allow-missing-checksum] [--allow-unlocked] [CHECKSUM]`
//     with rpm-ostree's checksum rule (it must equal the staged deployment's
//     base checksum), which unlocks and then asks for a reboot;
//   - `cleanup -p/-r/-b/-m`, `kargs`, `--version`; unknown commands and
//     options fail with a message on stderr and exit 1, as GLib's parser does;
//   - package layering: `install`, `uninstall`, `override remove|replace|reset`
//     with --install/--uninstall, from the rpm-md repositories of the node's
//     /etc/yum.repos.d (EnvRoot), giving layered deployments with their own
//     commit (layering.go, pkgcli.go, README.md);
//   - one transaction at a time, run by the transaction daemon (`rpm-ostree
//     start-daemon`, see daemon.go), not by the CLI: a second client with the
//     same command line attaches to the running one, any other fails with
//     "Transaction in progress"; a client killed by SIGTERM leaves its
//     transaction running, SIGINT or `rpm-ostree cancel` cancels it.
//
// # Node state
//
// A node has a persistent sysroot and a volatile run dir (its /run):
//
//	<sysroot>/ostree/repo/config          ostree repo config ([core] per-object-fsync, fsync)
//	<sysroot>/ostree/repo/objects/XX/...  content objects (.file) and commits (.commit), by sha256
//	<sysroot>/ostree/repo/refs/images/    image manifest digest -> commit
//	<sysroot>/ostree/repo/tmp/            objects being written
//	<sysroot>/ostree/boot.json            the bootloader's deployments; the first one boots
//	<sysroot>/ostree/lock                 transaction lock (flock)
//	<run>/ostree/staged-deployment        the staged deployment: ostree's GVariant, with
//	                                      the "locked" key from rpm-ostree 2024.6 (staged.go)
//	<run>/ostree/staged-deployment-locked the legacy finalization lock (rpm-ostree < 2024.6)
//	<run>/rpm-ostree/rpm-ostreed.pid      the transaction daemon's pid
//	<run>/rpm-ostree/transaction.json     the running transaction
//	<run>/rpm-ostree/progress.json        progress of the last pull (see Progress)
//	<run>/rpm-ostree/commands.log         one JSON line per transaction (see CommandRecord)
//
// A reboot (Reboot) turns an unlocked staged deployment into the booted one,
// discards a locked one, and wipes the run dir; a power loss (PowerLoss)
// discards any staged deployment, as ostree only finalizes on an orderly
// shutdown. Every state change is a write to a temporary file and a rename, so
// kill -9 at any point leaves the old or the new state, never a mix.
//
// # Writes
//
// Pulling an image reads it with github.com/containers/image/v5 from the
// registry (HTTPS verified against the node's certs.d unless its
// registries.conf marks the registry insecure; credentials only from the
// auth file ostree-ext would find, /run/ostree/auth.json, /etc/ostree/auth.json
// and, from 2024.6, /usr/lib/ostree/auth.json, else anonymous; signature
// policy insecureAcceptAnything as for ostree-unverified-registry), verifies manifest, config and layer digests and
// each layer's diffID, and writes every file of every layer as a
// content-addressed object. With `core.per-object-fsync=true` in the repo
// config each object is fsynced before its rename; otherwise one syncfs at the
// end of the pull makes them durable (ostree's two behaviours). With
// `core.fsync=false` nothing is synced. There are no sleeps: the disk sets the
// pace. Objects already present are not written again.
//
// The CLI finds its node through the environment: EnvSysroot, EnvRun and
// EnvRebootFile.
//
// # In a harness
//
//	bin, _ := osdouble.BuildCLI(ctx, dir)          // once, in TestMain; put dir first on PATH
//	reg, _ := osimage.StartRegistry(ctx, regDir)   // a private registry on loopback
//	ref, _ := osimage.Synthesize(ctx, osimage.SynthOptions{Registry: reg, Version: 1})
//	n := osdouble.NewNode(nodeDir)
//	// the node trusts the registry's CA (reg.TrustFiles under n.Root) and
//	// has credentials in one of the auth files (reg.AuthJSON)
//	_ = n.Init(ctx, osdouble.InitialOS{ImageRef: ref, Profile: "2024.6", AuthFile: authFile})
//	d, _ := n.StartDaemonProcess(ctx, bin, logPath) // rpm-ostreed
//	// run the daemon with n.Env() in its environment (pkg/ostree: Options.Env)
//	// when n.RebootRequested(): stop the node's processes (d.Kill()),
//	// n.Reboot(), start them again
package osdouble
