package osdouble

import (
	"context"
	"os"
	"strconv"
	"testing"

	"github.com/tandem-mco/tandem/test/osimage"
)

// BenchmarkRebase pulls and stages one synthesized image per iteration, with
// real fsyncs, in both of ostree's fsync modes. The image size is
// TANDEM_OSDOUBLE_BENCH_BYTES (default 64 MiB); uncompressed layers, so the
// disk rather than gzip sets the pace.
//
//	go test -run '^$' -bench Rebase ./test/osdouble/
func BenchmarkRebase(b *testing.B) {
	size := int64(64 << 20)
	if v := os.Getenv("TANDEM_OSDOUBLE_BENCH_BYTES"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			b.Fatal(err)
		}
		size = n
	}
	ctx := context.Background()
	img, err := osimage.SynthesizeImage(ctx, osimage.SynthOptions{Registry: reg, Version: 100,
		SizeBytes: size, Layers: 8, Uncompressed: true, WorkDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	for _, perObject := range []bool{false, true} {
		b.Run("per-object-fsync="+strconv.FormatBool(perObject), func(b *testing.B) {
			n := NewNode(b.TempDir())
			for p, c := range reg.TrustFiles() {
				writeNodeFile(b, n.Root, p, c)
			}
			writeNodeFile(b, n.Root, "/etc/ostree/auth.json", string(reg.AuthJSON()))
			if err := n.Init(ctx, InitialOS{}); err != nil {
				b.Fatal(err)
			}
			if err := SetPerObjectFsync(n.Sysroot, perObject); err != nil {
				b.Fatal(err)
			}
			tn := testNode{Node: n}
			b.SetBytes(img.ContentBytes)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if r := tn.rpmOstree("rebase", "--lock-finalization", refspec(img)); r.code != 0 {
					b.Fatalf("rebase: %s", r.stderr)
				}
				b.StopTimer()
				if r := tn.rpmOstree("cleanup", "-p"); r.code != 0 { // prunes: the next pull writes anew
					b.Fatalf("cleanup: %s", r.stderr)
				}
				b.StartTimer()
			}
		})
	}
}
