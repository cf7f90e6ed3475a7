//go:build mco

package mco

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tandem-mco/tandem/test/osimage"
)

// fiveNodes are the worlds' nodes: three masters (an etcd member each
// where the world has etcd) and two workers.
func fiveNodes() (masters, workers, all []string) {
	masters, workers = []string{"master-0", "master-1", "master-2"}, []string{"worker-0", "worker-1"}
	return masters, workers, append(slices.Clone(masters), workers...)
}

// startRegistry starts the private registry the release's OS images live
// in (token auth, its own CA), stopped with the test.
func startRegistry(ctx context.Context, t *testing.T, dir string) *osimage.Registry {
	t.Helper()
	reg, err := osimage.StartRegistry(ctx, filepath.Join(dir, "registry"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = reg.Close() })
	return reg
}
