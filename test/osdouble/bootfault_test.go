package osdouble

import (
	"context"
	"testing"

	"github.com/tandem-mco/tandem/test/osimage"
)

// TestBootFailingImageFallsBack: a finalized deployment of an image that
// carries LabelBootFails is not booted after the reboot; the old one is,
// and the failed one is left as the rollback (greenboot's fallback).
func TestBootFailingImageFallsBack(t *testing.T) {
	bad, err := osimage.SynthesizeImage(context.Background(), osimage.SynthOptions{
		Registry: reg, WorkDir: t.TempDir(), Layers: 2, SizeBytes: 512 << 10, Version: 5, Seed: 7,
		ExtraLabels: map[string]string{LabelBootFails: "true"},
	})
	if err != nil {
		t.Fatal(err)
	}
	n := newTestNode(t, InitialOS{ImageRef: img1.Ref})
	old := n.booted()
	n.mustRun("rebase", "--lock-finalization", refspec(bad))
	staged, _, err := n.Staged()
	if err != nil || staged == nil {
		t.Fatalf("staged %v, %v", staged, err)
	}
	n.mustRun("finalize-deployment", staged.ImageDigest) // the default profile finalizes a container deployment by digest
	if err := n.Reboot(); err != nil {
		t.Fatal(err)
	}
	s := n.status()
	b, err := s.GetBootedDeployment()
	if err != nil || b.Checksum != old.Checksum {
		t.Fatalf("booted %+v, want the old deployment %s", b, old.Checksum)
	}
	if len(s.Deployments) != 2 || s.Deployments[1].Checksum != staged.Checksum || s.Deployments[1].Booted {
		t.Fatalf("deployments %+v, want the failed %s as the rollback", s.Deployments, staged.Checksum)
	}
}
