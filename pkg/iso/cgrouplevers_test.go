package iso

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The weight and throttle files per hierarchy, as the kernel names them
// (Documentation/admin-guide/cgroup-v1/blkio-controller.rst and
// cgroup-v2.rst): a host whose disks have no bfq has no v1 weight file.
func TestCgroupLeverFiles(t *testing.T) {
	for _, tc := range []struct {
		name         string
		v2           bool
		files        []string
		weight, thr  bool
		wantWeightIn string
	}{
		{"v1 with bfq", false, []string{"blkio.bfq.weight", "blkio.throttle.write_bps_device"}, true, true, ""},
		{"v1 legacy cfq", false, []string{"blkio.weight", "blkio.throttle.write_bps_device"}, true, true, ""},
		{"v1 without bfq", false, []string{"blkio.throttle.write_bps_device", "blkio.throttle.read_bps_device"}, false, true, "no blkio.weight or blkio.bfq.weight"},
		{"v1 without throttling", false, []string{"blkio.bfq.weight"}, true, false, ""},
		{"v2 with io.cost", true, []string{"io.weight", "io.max"}, true, true, ""},
		{"v2 with bfq", true, []string{"io.bfq.weight", "io.max"}, true, true, ""},
		{"v2 io.max only", true, []string{"io.max", "io.stat"}, false, true, "no io.bfq.weight or io.weight"},
		{"v2 without io controller", true, []string{"cgroup.procs"}, false, false, "no io.bfq.weight or io.weight"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range tc.files {
				if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if got := cgroupHas(dir, weightFiles(tc.v2)...) != ""; got != tc.weight {
				t.Errorf("weight file found %v, want %v", got, tc.weight)
			}
			if got := cgroupHas(dir, throttleFile(tc.v2)) != ""; got != tc.thr {
				t.Errorf("throttle file found %v, want %v", got, tc.thr)
			}
			if !tc.weight {
				if why := missingWeightReason(tc.v2, nil); !strings.Contains(why, tc.wantWeightIn) {
					t.Errorf("reason %q does not say %q", why, tc.wantWeightIn)
				}
			}
		})
	}
}

// checkWeightAsHostAllows: the cgroup carries the weight where this host
// has a weight file, and otherwise the session says it went without one,
// naming the files it looked for. Judged from the hierarchy itself.
func checkWeightAsHostAllows(t *testing.T, s *Session, want int) {
	t.Helper()
	cg := s.Cgroup()
	file := ""
	for _, f := range []string{"blkio.weight", "blkio.bfq.weight", "io.bfq.weight", "io.weight"} {
		if _, err := os.Stat(filepath.Join(cg.Path(), f)); err == nil {
			file = f
			break
		}
	}
	desc := s.Describe()
	if file == "" {
		if cg.WeightMissing() == "" || !strings.Contains(desc, "without weight (no ") {
			t.Fatalf("host has no weight file but the session says %q (weight missing %q)", desc, cg.WeightMissing())
		}
		t.Logf("no weight file on this host: %s", desc)
		return
	}
	b, err := os.ReadFile(filepath.Join(cg.Path(), file))
	if err != nil {
		t.Fatal(err)
	}
	// io.weight reads "default N"; the others a bare N (v2 converts the
	// v1 weight with cgroups.ConvertBlkIOToIOWeightValue).
	if f := strings.Fields(string(b)); file != "io.weight" && (len(f) == 0 || f[len(f)-1] != strconv.Itoa(want)) {
		t.Fatalf("%s reads %q, want %d", file, b, want)
	}
	if strings.Contains(desc, "without weight") {
		t.Fatalf("weight set but the session says %q", desc)
	}
}
