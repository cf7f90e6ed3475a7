package ostree

import (
	"os"
	"path/filepath"
	"testing"
)

// The payloads GLib wrote (test/fixtures/ostree/README.md).
func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "test", "fixtures", "ostree", name+".gvariant"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseGLibStagedDeployment(t *testing.T) {
	tests := []struct {
		name            string
		locked, present bool
	}{
		{"staged-deployment-locked", true, true},
		{"staged-deployment-unlocked", false, false},
		{"staged-deployment-finalized", false, true}, // GVariantDict order
	}
	for _, tt := range tests {
		d, err := parseVariantDict(fixture(t, tt.name))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		locked, present, err := d.lookupBool("locked")
		if err != nil || locked != tt.locked || present != tt.present {
			t.Errorf("%s: locked %v present %v %v", tt.name, locked, present, err)
		}
		target, err := d.lookupDict("target")
		if err != nil {
			t.Fatal(err)
		}
		name, err := target.lookupString("name")
		if err != nil || name != "6d2d8e2b6a4a5d1c0f7b3e9a8c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d.0" {
			t.Errorf("%s: target name %q %v", tt.name, name, err)
		}
		if _, err := d.lookupString("target"); err == nil {
			t.Errorf("%s: a dict read as a string", tt.name)
		}
	}
	if _, err := parseVariantDict([]byte{1, 2, 3, 200}); err == nil {
		t.Error("garbage parsed")
	}
}

func TestStagedFileLocked(t *testing.T) {
	d := &Deployment{}
	d.Checksum, d.Serial, d.ID = "6d2d8e2b6a4a5d1c0f7b3e9a8c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d", 0, "rhcos-x.0"
	for _, tt := range []struct {
		fixture string
		legacy  bool
		want    bool
	}{
		{"staged-deployment-locked", false, true},
		{"staged-deployment-unlocked", false, false},
		{"staged-deployment-unlocked", true, true}, // rpm-ostree < 2024.6
		{"staged-deployment-finalized", false, false},
	} {
		run := t.TempDir()
		if err := os.MkdirAll(filepath.Join(run, "ostree"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(run, "ostree", "staged-deployment"), fixture(t, tt.fixture), 0o644); err != nil {
			t.Fatal(err)
		}
		if tt.legacy {
			if err := os.WriteFile(filepath.Join(run, "ostree", "staged-deployment-locked"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if got, err := stagedFileLocked(run, d); err != nil || got != tt.want {
			t.Errorf("%s legacy=%v: locked %v %v, want %v", tt.fixture, tt.legacy, got, err, tt.want)
		}
	}
	other := *d
	other.Serial = 1
	run := t.TempDir()
	_ = os.MkdirAll(filepath.Join(run, "ostree"), 0o755)
	_ = os.WriteFile(filepath.Join(run, "ostree", "staged-deployment"), fixture(t, "staged-deployment-locked"), 0o644)
	if _, err := stagedFileLocked(run, &other); err == nil {
		t.Error("a staged file of another deployment was trusted")
	}
	if _, err := stagedFileLocked(t.TempDir(), d); err == nil {
		t.Error("no staged file: no error")
	}
}

func TestParseRelease(t *testing.T) {
	for _, tt := range []struct {
		in          string
		want        Release
		digestFinal bool
	}{
		{"2023.12", Release{2023, 12}, false},
		{"2024.6", Release{2024, 6}, false},
		{"2025.6", Release{2025, 6}, false},
		{"2025.7", Release{2025, 7}, true},
		{"2025.11-1.fc43", Release{2025, 11}, true},
		{"2026.1", Release{2026, 1}, true},
	} {
		r, err := ParseRelease(tt.in)
		if err != nil || r != tt.want || r.AtLeast(2025, 7) != tt.digestFinal {
			t.Errorf("%s: %v %v", tt.in, r, err)
		}
	}
	for _, bad := range []string{"", "v2025.7", "2025", "tandem"} {
		if _, err := ParseRelease(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}
