package governor

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/procfs/blockdevice"
)

// Two /proc/diskstats readings of a kernel with flush fields (20 columns).
const diskstatsA = `   7       0 loop0 12 0 24 1 0 0 0 0 0 4 1 0 0 0 0 0 0
 254       0 vda 1000 10 80000 500 2000 300 160000 4000 0 3000 4600 0 0 0 0 100 100
 254       1 vda1 900 10 70000 450 1900 300 150000 3900 0 2900 4400 0 0 0 0 0 0
`
const diskstatsB = `   7       0 loop0 12 0 24 1 0 0 0 0 0 4 1 0 0 0 0 0 0
 254       0 vda 1010 10 80800 505 2090 300 170000 4450 2 3300 5000 0 0 0 0 110 150
 254       1 vda1 905 10 70400 452 1980 300 159000 4300 0 3100 4700 0 0 0 0 0 0
`

func fakeProc(t *testing.T, content string) blockdevice.FS {
	t.Helper()
	dir := t.TempDir()
	proc, sys := filepath.Join(dir, "proc"), filepath.Join(dir, "sys")
	for _, d := range []string{proc, sys} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(proc, "diskstats"), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	fs, err := blockdevice.NewFS(proc, sys)
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

func TestDiskstatsParsingAndLatency(t *testing.T) {
	a, err := FindDiskstats(fakeProc(t, diskstatsA), 254, 0)
	if err != nil {
		t.Fatal(err)
	}
	if a.WriteIOs != 2000 || a.WriteTicks != 4000 || a.FlushRequestsCompleted != 100 || a.TimeSpentFlushing != 100 {
		t.Fatalf("parsed vda %+v", a)
	}
	b, err := FindDiskstats(fakeProc(t, diskstatsB), 254, 0)
	if err != nil {
		t.Fatal(err)
	}
	// 90 writes took 450 ms, 10 flushes took 50 ms: 500 ms / 100 = 5 ms.
	lat, ok := DiskLatency(a, b)
	if !ok || lat != 5*time.Millisecond {
		t.Fatalf("latency %v ok=%v, want 5ms", lat, ok)
	}
	if _, ok := DiskLatency(b, b); ok {
		t.Fatal("no completed I/O must yield no sample")
	}
	if _, err := FindDiskstats(fakeProc(t, diskstatsA), 8, 0); err == nil {
		t.Fatal("want an error for a device that is not listed")
	}
}

func TestDiskSamplerOnThisHost(t *testing.T) {
	// The real /proc/diskstats parses, and a sampler on its first device works.
	fs, err := blockdevice.NewDefaultFS()
	if err != nil {
		t.Fatal(err)
	}
	all, err := fs.ProcDiskstats()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) == 0 {
		t.Fatal("no devices in /proc/diskstats")
	}
	s := &DiskSampler{FS: fs, Major: all[0].MajorNumber, Minor: all[0].MinorNumber}
	if x, err := s.Sample(context.Background()); err != nil || x.Valid {
		t.Fatalf("first sample primes: %+v %v", x, err)
	}
	if _, err := s.Sample(context.Background()); err != nil {
		t.Fatal(err)
	}
}
