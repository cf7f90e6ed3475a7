package ostree

import (
	"context"
	"errors"
	"fmt"
	"strings"

	rpmostreeclient "github.com/coreos/rpmostree-client-go/pkg/client"
	"gopkg.in/yaml.v3"
	"k8s.io/klog/v2"
)

// Status runs `rpm-ostree status --json`. The staged deployment's
// FinalizationLocked is filled in from ostree's own record when rpm-ostree
// does not show it (see lock.go), so it is right on every release.
func (c *Client) Status(ctx context.Context) (*Status, error) {
	out, err := c.run(ctx, nil, "status", "--json")
	if err != nil {
		return nil, err
	}
	st, err := ParseStatus(out)
	if err != nil {
		return nil, err
	}
	if d := st.StagedDeployment(); d != nil && !d.FinalizationLocked {
		if d.FinalizationLocked, err = stagedFileLocked(c.opts.HostRun, d); err != nil {
			return nil, err
		}
	}
	return st, nil
}

// Version runs `rpm-ostree --version`.
func (c *Client) Version(ctx context.Context) (*rpmostreeclient.VersionData, error) {
	out, err := c.run(ctx, nil, "--version")
	if err != nil {
		return nil, err
	}
	var v struct {
		Root rpmostreeclient.VersionData `yaml:"rpm-ostree"`
	}
	if err := yaml.Unmarshal(out, &v); err != nil {
		return nil, fmt.Errorf("failed to parse `rpm-ostree --version` output: %w", err)
	}
	return &v.Root, nil
}

// Stage stages imageRef ("host/repo@sha256:...", no transport prefix) as a
// finalization-locked deployment and returns it. It is idempotent: when the
// same digest is already staged and locked it does nothing; any other staged
// deployment is removed first (`cleanup -p`). It runs
// `rpm-ostree rebase --lock-finalization ostree-unverified-registry:<ref>`,
// or, on rpm-ostree >= 2025.7, `rpm-ostree deploy --lock-finalization
// <digest>` when the booted deployment's origin already names that
// reference (a rebase would fail with "Old and new refs are equal"). When
// the booted deployment already carries the image, nothing runs: Stage
// returns the booted deployment and ErrAlreadyBooted.
func (c *Client) Stage(ctx context.Context, imageRef string) (*Deployment, error) {
	dgst, err := validateStageRef(imageRef)
	if err != nil {
		return nil, err
	}
	logger := klog.FromContext(ctx).WithValues("image", imageRef)
	st, err := c.Status(ctx)
	if err != nil {
		return nil, err
	}
	if b, err := st.Booted(); err == nil && b.ImageDigest() == dgst {
		// Nothing to pull; another staged deployment would boot instead.
		if st.StagedDeployment() != nil {
			logger.Info("The booted deployment carries the image: removing the staged deployment")
			if err := c.CleanupPending(ctx); err != nil {
				return nil, err
			}
		}
		return b, ErrAlreadyBooted
	}
	plan, err := planStage(st, imageRef, dgst)
	if err != nil {
		return nil, err
	}
	if plan.alreadyStaged != nil {
		logger.V(2).Info("Image already staged and locked", "checksum", plan.alreadyStaged.Checksum)
		return plan.alreadyStaged, nil
	}
	if plan.args[0] == "deploy" {
		rel, err := c.Release(ctx)
		if err != nil {
			return nil, err
		}
		if !rel.AtLeast(releaseContainerDigests.Year, releaseContainerDigests.Minor) {
			return nil, fmt.Errorf("stage %s: the booted deployment follows %s but carries %q; rpm-ostree %s cannot deploy another digest of it (needs %s)",
				imageRef, UnverifiedRegistryTransport+imageRef, plan.bootedDigest, rel, releaseContainerDigests)
		}
	}
	if plan.cleanup {
		logger.Info("Removing the staged deployment first")
		if err := c.CleanupPending(ctx); err != nil {
			return nil, err
		}
	}
	var pp progressParser
	onLine := func(line string) {
		if p, ok := pp.feed(line); ok && c.opts.OnProgress != nil {
			c.opts.OnProgress(p)
		}
	}
	if _, err := c.run(ctx, onLine, plan.args...); err != nil {
		return nil, err
	}

	st, err = c.Status(ctx)
	if err != nil {
		return nil, err
	}
	staged := st.StagedDeployment()
	if staged == nil {
		if b, err := st.Booted(); err == nil && b.ImageDigest() == dgst {
			return b, ErrAlreadyBooted
		}
		return nil, fmt.Errorf("stage %s: rpm-ostree succeeded but no deployment is staged", imageRef)
	}
	if got := staged.ImageDigest(); got != dgst {
		if got == "" {
			return nil, fmt.Errorf("stage %s: cannot tell which image the staged deployment %s carries: status has neither container-image-reference-digest nor ostree.manifest-digest", imageRef, staged.ID)
		}
		return nil, fmt.Errorf("stage %s: the staged deployment carries %q", imageRef, got)
	}
	if !staged.FinalizationLocked {
		return nil, fmt.Errorf("stage %s: the staged deployment is not finalization-locked", imageRef)
	}
	logger.Info("Staged", "checksum", staged.Checksum, "version", staged.Version)
	return staged, nil
}

// validateStageRef checks that imageRef has no transport and is pinned by
// digest, and returns the digest.
func validateStageRef(imageRef string) (string, error) {
	if strings.HasPrefix(imageRef, "ostree-") || strings.Contains(imageRef, "://") {
		return "", fmt.Errorf("stage %q: pass the image reference without a transport", imageRef)
	}
	dgst, err := ImageDigest(imageRef)
	if err != nil {
		return "", fmt.Errorf("stage: %w", err)
	}
	return dgst, nil
}

// stagePlan is what Stage does, decided from status alone.
type stagePlan struct {
	// alreadyStaged is set when the image is staged and locked: nothing to do.
	alreadyStaged *Deployment
	// cleanup removes another staged deployment first.
	cleanup bool
	// args stage the image.
	args []string
	// bootedDigest is what the booted deployment carries (for messages).
	bootedDigest string
}

// planStage decides how to stage imageRef (pinned to dgst). After a cleanup
// the booted deployment is what rpm-ostree takes the origin from; rebasing to
// the origin it already has fails ("Old and new refs are equal"), so that
// case deploys the digest instead.
func planStage(st *Status, imageRef, dgst string) (stagePlan, error) {
	booted, err := st.Booted()
	if err != nil {
		return stagePlan{}, err
	}
	plan := stagePlan{bootedDigest: booted.ImageDigest()}
	if staged := st.StagedDeployment(); staged != nil {
		if staged.ImageDigest() == dgst && staged.FinalizationLocked {
			return stagePlan{alreadyStaged: staged}, nil
		}
		plan.cleanup = true
	}
	refspec := UnverifiedRegistryTransport + imageRef
	if booted.ContainerImageReference == refspec {
		plan.args = []string{"deploy", "--lock-finalization", dgst}
	} else {
		plan.args = []string{"rebase", "--lock-finalization", refspec}
	}
	return plan, nil
}

// Finalize unlocks the staged deployment and has rpm-ostree reboot into it:
// `rpm-ostree finalize-deployment <expected>`. want names the deployment
// that must be staged: its base checksum, or the digest of the image it
// carries ("sha256:..."); a mismatch is an error naming both, and nothing
// changes. The argument rpm-ostree expects depends on its release: from
// 2025.7 on, a container deployment's image digest (when rpm-ostree can
// query the image, which status shows as container-image-reference-digest);
// before, and otherwise, the base checksum. A staged deployment already
// unlocked (an earlier Finalize whose reboot has not happened yet) is
// finalized again (--allow-unlocked).
func (c *Client) Finalize(ctx context.Context, want string) error {
	if !IsDigest(want) && !IsChecksum(want) {
		return fmt.Errorf("finalize: %q is neither an image digest nor a commit checksum", want)
	}
	st, err := c.Status(ctx)
	if err != nil {
		return err
	}
	staged := st.StagedDeployment()
	if staged == nil {
		return fmt.Errorf("finalize %s: %w", want, ErrNoStagedDeployment)
	}
	if IsDigest(want) {
		if got := staged.ImageDigest(); got != want {
			return fmt.Errorf("finalize %s: the staged deployment %s carries image %q, not %s: %w", want, staged.ID, got, want, ErrChecksumMismatch)
		}
	} else if got := staged.GetBaseChecksum(); got != want {
		return fmt.Errorf("finalize %s: the staged deployment's base checksum is %s, not %s: %w", want, got, want, ErrChecksumMismatch)
	}
	rel, err := c.Release(ctx)
	if err != nil {
		return err
	}
	expected := staged.GetBaseChecksum()
	if rel.AtLeast(releaseContainerDigests.Year, releaseContainerDigests.Minor) && staged.ContainerImageReferenceDigest != "" {
		expected = staged.ContainerImageReferenceDigest
	}
	args := []string{"finalize-deployment"}
	if !staged.FinalizationLocked {
		args = append(args, "--allow-unlocked")
	}
	args = append(args, expected)
	klog.FromContext(ctx).Info("Finalizing the staged deployment", "expected", expected, "checksum", staged.GetBaseChecksum(), "version", staged.Version, "rpmOstree", rel)
	_, err = c.run(ctx, nil, args...)
	return err
}

// CleanupPending removes the staged (pending) deployment: `rpm-ostree cleanup -p`.
func (c *Client) CleanupPending(ctx context.Context) error {
	_, err := c.run(ctx, nil, "cleanup", "-p")
	return err
}

// KernelArgs returns the kernel arguments of the deployment that boots next:
// the staged one if any, else the booted one (`rpm-ostree kargs`).
func (c *Client) KernelArgs(ctx context.Context) ([]string, error) {
	out, err := c.run(ctx, nil, "kargs")
	if err != nil {
		return nil, err
	}
	return strings.Fields(string(out)), nil
}

// SetKernelArgs edits the kernel arguments of the deployment that boots
// next (the staged one if any, else a new one made from the booted one),
// which stays finalization-locked: on rpm-ostree before 2024.6 a `kargs
// --lock-finalization` over a staged deployment loses the lock (see Layer),
// which is then restored. It runs the MCO's edit (release-4.21
// pkg/daemon/update.go updateKernelArguments): `--append` of each of add,
// repeated ones kept (`--append-if-missing` would skip an argument already
// there, the second hugepages=16 of two page sizes), and
// `--delete-if-present` of each of remove, which rpm-ostree carries out
// after the appends, each deleting the first exact match among the
// arguments the call started from (v2024.1 on). The appends make it not
// idempotent: a caller that may repeat it after a crash must check first
// (the daemon's record does).
func (c *Client) SetKernelArgs(ctx context.Context, add, remove []string) error {
	if len(add) == 0 && len(remove) == 0 {
		return nil
	}
	args := []string{"kargs", "--lock-finalization"}
	for _, a := range remove {
		args = append(args, "--delete-if-present="+a)
	}
	for _, a := range add {
		args = append(args, "--append="+a)
	}
	before, err := c.Status(ctx)
	if err != nil {
		return err
	}
	if _, err := c.run(ctx, nil, args...); err != nil {
		return err
	}
	st, err := c.Status(ctx)
	if err != nil {
		return err
	}
	staged, old := st.StagedDeployment(), before.StagedDeployment()
	if staged == nil || (old != nil && old.ID == staged.ID && !old.FinalizationLocked) {
		// Nothing staged ("No change."), or a deployment that was already
		// unlocked (finalize-deployment waiting for its reboot): not ours
		// to lock.
		return nil
	}
	return c.ensureLocked(ctx, staged, "setting kernel arguments")
}

// IsTransactionInProgress tells whether err says another rpm-ostree
// transaction is running (retry later).
func IsTransactionInProgress(err error) bool { return errors.Is(err, ErrTransactionInProgress) }
