package iso

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tandem-mco/tandem/templates"
)

// TestUnitDropInsFollowThePolicy: the staging unit gets the priority
// drop-in under every policy and the idle one only under the idle
// policies; switching policy adds or removes it, an unchanged set writes
// nothing, and files that are not tandem's stay.
func TestUnitDropInsFollowThePolicy(t *testing.T) {
	dir := UnitDropInDir(t.TempDir(), RPMOstreedUnit)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	admin := filepath.Join(dir, "90-admin.conf")
	if err := os.WriteFile(admin, []byte("[Service]\nNice=5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		policy      string
		wantChange  bool
		wantDropIns []string
	}{
		{PolicyAdaptive, true, []string{templates.StagingIODropIn}},
		{PolicyAdaptive, false, []string{templates.StagingIODropIn}},
		{PolicyIdle, true, []string{templates.StagingIODropIn, templates.IdleDropIn}},
		{PolicyIdleBFQ, false, []string{templates.StagingIODropIn, templates.IdleDropIn}},
		{PolicyNone, true, []string{templates.StagingIODropIn}},
	}
	for i, s := range steps {
		p, err := ParsePolicy(s.policy, Options{Sysroot: "/sysroot", Unit: RPMOstreedUnit})
		if err != nil {
			t.Fatal(err)
		}
		want, err := UnitDropIns(p)
		if err != nil {
			t.Fatal(err)
		}
		changed, err := syncDropIns(dir, want)
		if err != nil {
			t.Fatal(err)
		}
		if changed != s.wantChange {
			t.Errorf("step %d (%s): changed=%v, want %v", i, s.policy, changed, s.wantChange)
		}
		for _, n := range []string{templates.StagingIODropIn, templates.IdleDropIn} {
			got, err := os.ReadFile(filepath.Join(dir, n))
			wanted := false
			for _, w := range s.wantDropIns {
				wanted = wanted || w == n
			}
			tmpl, _ := templates.FS.ReadFile("rpm-ostreed.service.d/" + n)
			switch {
			case wanted && (err != nil || string(got) != string(tmpl)):
				t.Errorf("step %d (%s): %s = %q, %v; want the template", i, s.policy, n, got, err)
			case !wanted && err == nil:
				t.Errorf("step %d (%s): %s laid, want none", i, s.policy, n)
			}
		}
	}
	if _, err := os.Stat(admin); err != nil {
		t.Errorf("an admin's drop-in was touched: %v", err)
	}
}
