//go:build mco

package mco

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tandem-mco/tandem/test/mcoworld"
)

// TestMCOBootstrap is the installer's bootstrap path for the MCO, once:
// the operator's bootstrap render from the install's manifests, the
// bootstrap pod's init container (tandem's `machine-config-controller
// bootstrap`) rendering both pools' first configs, and its
// machine-config-server in bootstrap mode serving a master its Ignition.
// The bootstrap server refuses workers (pkg/server/bootstrap_server.go,
// release-4.21: they join through the cluster's servers).
func TestMCOBootstrap(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	fork, err := mcoworld.LocateFork()
	if err != nil {
		t.Fatal(err)
	}
	r := mcoworld.NewRelease("4.21.0-tandem.1", "registry.tandem.test", "", "")
	b, err := mcoworld.RunInstallerBootstrap(ctx, t.TempDir(), fork, r)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Stop() })

	var pools []string
	for _, pool := range []string{"master", "worker"} {
		name, err := b.Rendered(pool)
		if err != nil || !strings.HasPrefix(name, "rendered-"+pool+"-") {
			t.Fatalf("the bootstrap render of pool %s: %q, %v", pool, name, err)
		}
		pools = append(pools, pool)
	}
	master := "ok"
	fctx, fcancel := context.WithTimeout(ctx, 2*time.Minute)
	served, err := b.Fetch(fctx, "master")
	fcancel()
	if err == nil {
		err = servedRendered(b, "master", served)
	}
	if err != nil {
		master = "broken"
		t.Errorf("a master's first boot from the bootstrap server: %v", err)
	}
	worker := "refused"
	wctx, wcancel := context.WithTimeout(ctx, 10*time.Second)
	_, err = b.Fetch(wctx, "worker")
	wcancel()
	if err == nil {
		worker = "served"
		t.Error("the bootstrap server served a worker; it serves masters only")
	}
	bootstrap := "ok"
	if t.Failed() {
		bootstrap = "broken"
	}
	fmt.Printf("mco-bootstrap: pools=%s master=%s worker=%s bootstrap=%s\n", strings.Join(pools, ","), master, worker, bootstrap)
}

// servedRendered judges what the bootstrap server served a pool's machine
// against the config the bootstrap render made for the pool.
func servedRendered(b *mcoworld.InstallerBootstrap, pool string, served []byte) error {
	name, err := mcoworld.ServedConfigName(served)
	if err != nil {
		return err
	}
	want, err := b.Rendered(pool)
	if err != nil {
		return err
	}
	if name != want {
		return fmt.Errorf("served %s, the pool's bootstrap config is %s", name, want)
	}
	rendered, err := b.RenderedConfig(name)
	if err != nil {
		return err
	}
	return mcoworld.ServedFrom(served, name, rendered)
}
