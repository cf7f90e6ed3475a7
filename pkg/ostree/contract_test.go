package ostree

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tandem-mco/tandem/test/osdouble"
)

// TestStageAndFinalizeOnEveryProfile: Stage reports a locked deployment and
// Finalize finds the argument each rpm-ostree release wants, on every
// profile of the double.
func TestStageAndFinalizeOnEveryProfile(t *testing.T) {
	for _, p := range osdouble.Profiles() {
		t.Run(p, func(t *testing.T) {
			n := newProfileNode(t, Options{}, p)
			ctx := context.Background()
			staged, err := n.client.Stage(ctx, img2.Ref)
			if err != nil {
				t.Fatal(err)
			}
			if !staged.FinalizationLocked {
				t.Fatalf("staged %s not seen locked", staged.ID)
			}
			// Locked for real: a reboot leaves it.
			n.reboot()
			if !n.booted().CarriesImage(img1.Ref) {
				t.Fatal("the locked deployment booted")
			}
			if staged, err = n.client.Stage(ctx, img2.Ref); err != nil {
				t.Fatal(err)
			}
			// The daemon's record holds the base checksum.
			if err := n.client.Finalize(ctx, staged.GetBaseChecksum()); err != nil {
				t.Fatal(err)
			}
			n.reboot()
			if !n.booted().CarriesImage(img2.Ref) {
				t.Fatalf("booted %+v after finalize, want img2", n.booted())
			}
		})
	}
}

// gatedRebase returns the arguments of a rebase held at its first layer;
// n trusts the gate and has credentials for it.
func gatedRebase(t *testing.T, n *node) (*osdouble.Gate, string) {
	t.Helper()
	gate, err := osdouble.NewGate(reg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = gate.Close() })
	n.trust(reg.Host(), gate.Host())
	return gate, gate.Ref(img2.Ref)
}

// waitNoTransaction waits (bounded) until rpm-ostreed runs no transaction.
func waitNoTransaction(t *testing.T, n *node, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		s := n.status()
		if s.Transaction == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("transaction %v still running after %s", *s.Transaction, within)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestSIGTERMLeavesTheTransactionRunning: upstream's client does not catch
// SIGTERM; its transaction carries on in rpm-ostreed and completes.
func TestSIGTERMLeavesTheTransactionRunning(t *testing.T) {
	n := newNode(t, Options{})
	gate, ref := gatedRebase(t, n)
	n.adminAuth()
	cmd := exec.Command(rpmOstreeBin, "rebase", "--lock-finalization", UnverifiedRegistryTransport+ref)
	cmd.Env = append(os.Environ(), n.Env()...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	<-gate.Waiting()
	_ = cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err == nil {
		t.Fatal("the client survived SIGTERM")
	}
	if s := n.status(); s.Transaction == nil {
		t.Fatal("SIGTERM of the client ended the transaction")
	}
	gate.Open()
	waitNoTransaction(t, n, 2*time.Minute)
	if st := n.status().StagedDeployment(); st == nil || !st.FinalizationLocked {
		t.Fatalf("the transaction did not complete after its client died: %+v", st)
	}
}

// TestCancelledStageEndsItsTransaction: cancelling Stage's context cancels
// the transaction (SIGINT) and returns only once it has ended.
func TestCancelledStageEndsItsTransaction(t *testing.T) {
	n := newNode(t, Options{})
	gate, ref := gatedRebase(t, n)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-gate.Waiting()
		cancel()
	}()
	_, err := n.client.Stage(ctx, ref)
	var cmdErr *CommandError
	if !errors.Is(err, context.Canceled) || !errors.As(err, &cmdErr) || !strings.Contains(cmdErr.Stderr, "Operation was cancelled") {
		t.Fatalf("Stage: %v", err)
	}
	s := n.status()
	if s.Transaction != nil {
		t.Fatalf("transaction %v still running after Stage returned", *s.Transaction)
	}
	if s.StagedDeployment() != nil {
		t.Fatal("a cancelled Stage staged something")
	}
	gate.Open()
	time.Sleep(100 * time.Millisecond) // nothing may resume once the gate opens
	if n.status().StagedDeployment() != nil {
		t.Fatal("the cancelled transaction went on")
	}
}

// TestCancelWhenTheClientDoesNotEndIt: a client that does not cancel on
// SIGINT (here a wrapper that ignores it) is killed after CancelGrace; the
// transaction it leaves is cancelled with `rpm-ostree cancel` before Stage
// returns.
func TestCancelWhenTheClientDoesNotEndIt(t *testing.T) {
	wrapper := filepath.Join(t.TempDir(), "rpm-ostree-deaf")
	script := "#!/bin/sh\ntrap '' INT\n\"" + rpmOstreeBin + "\" \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	n := newNode(t, Options{Binary: wrapper, CancelGrace: 2 * time.Second})
	gate, ref := gatedRebase(t, n)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-gate.Waiting()
		cancel()
	}()
	if _, err := n.client.Stage(ctx, ref); !errors.Is(err, context.Canceled) {
		t.Fatalf("Stage: %v", err)
	}
	if s := n.status(); s.Transaction != nil || s.StagedDeployment() != nil {
		t.Fatalf("after Stage returned: transaction %v staged %+v", s.Transaction, s.StagedDeployment())
	}
	recs, _ := n.Commands()
	if len(recs) != 1 || recs[0].Exit != 1 {
		t.Errorf("transactions %+v, want the rebase, cancelled", recs)
	}
}

// TestStaleReferenceDigest: after `deploy <digest>` the reference keeps its
// old digest; without container-image-reference-digest (issue #4185) the
// image is still told by the commit's ostree.manifest-digest, never by the
// stale reference.
func TestStaleReferenceDigest(t *testing.T) {
	n := newNode(t, Options{})
	ctx := context.Background()
	n.adminAuth()
	deploy := exec.Command(rpmOstreeBin, "deploy", "--lock-finalization", img2.Digest)
	deploy.Env = append(os.Environ(), n.Env()...)
	if out, err := deploy.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if err := n.client.Finalize(ctx, img2.Digest); err != nil {
		t.Fatal(err)
	}
	n.reboot()
	if err := n.SetNoImageDigest(true); err != nil {
		t.Fatal(err)
	}
	b := n.booted()
	if !strings.HasSuffix(b.ContainerImageReference, img1.Digest) || b.ContainerImageReferenceDigest != "" {
		t.Fatalf("set-up: booted %+v", b)
	}
	if b.CarriesImage(img1.Ref) || !b.CarriesImage(img2.Ref) {
		t.Errorf("booted carries %q; its reference names %s", b.ImageDigest(), img1.Digest)
	}
	if want := strings.Split(img1.Ref, "@")[0] + "@" + img2.Digest; b.Image() != want {
		t.Errorf("Image() = %q, want %q", b.Image(), want)
	}
	// So Stage of img1 stages it instead of calling it booted.
	staged, err := n.client.Stage(ctx, img1.Ref)
	if err != nil || !staged.CarriesImage(img1.Ref) {
		t.Fatalf("Stage(img1): %+v %v", staged, err)
	}
}

// TestFinalizeBlockedByAnInhibitor: a shutdown inhibitor in block mode is
// ErrRebootBlocked, and the deployment stays locked.
func TestFinalizeBlockedByAnInhibitor(t *testing.T) {
	n := newNode(t, Options{})
	ctx := context.Background()
	staged, err := n.client.Stage(ctx, img2.Ref)
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Inhibit(osdouble.Inhibitor{What: "shutdown", Who: "backup", Why: "copying", Mode: "block"}); err != nil {
		t.Fatal(err)
	}
	err = n.client.Finalize(ctx, staged.GetBaseChecksum())
	if !errors.Is(err, ErrRebootBlocked) || !strings.Contains(err.Error(), "Held by: backup") {
		t.Fatalf("Finalize: %v", err)
	}
	if st := n.status().StagedDeployment(); st == nil || !st.FinalizationLocked {
		t.Errorf("after a blocked finalize: %+v", st)
	}
	if req, _ := n.RebootRequested(); req {
		t.Error("a blocked finalize asked for a reboot")
	}
}
