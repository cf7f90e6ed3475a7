package ostree

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	rpmostreeclient "github.com/coreos/rpmostree-client-go/pkg/client"
)

const fixtures = "../../test/fixtures/rpm-ostree"

func TestParseRealStatusFixtures(t *testing.T) {
	tests := []struct {
		file           string
		deployments    int
		bootedChecksum string
		bootedBase     string // GetBaseChecksum of the booted deployment
		bootedDigest   string
		stagedChecksum string // "" when nothing is staged
		stagedBase     string // what finalize-deployment must be given; default stagedChecksum
		stagedLocked   bool
		stagedDigest   string
		transaction    bool
		driver         string
	}{
		{file: "rpmostree-client-go-fcos-container-status.json", deployments: 2,
			bootedChecksum: "a465c49fef185f8339d3cd5857e28386cfdc6516f68206912917c9dc3192d809",
			bootedBase:     "a465c49fef185f8339d3cd5857e28386cfdc6516f68206912917c9dc3192d809",
			stagedChecksum: "7239c56aa4fe6208008fa2800e16e2ccc68179f776674c3a90b1d4c71f2b80ca",
			stagedDigest:   "sha256:25d3a07d53835c6c738fb4dcba149dc0b64a9bc4ec9c3431750cabd3596ab233",
			driver:         "Zincati"},
		{file: "zincati-rpm-ostree-staged.json", deployments: 2,
			bootedChecksum: "01f074cc6cd88d8d2b43f821da692f2367c101eb4377802cb35092bde0ef02f7",
			bootedBase:     "01f074cc6cd88d8d2b43f821da692f2367c101eb4377802cb35092bde0ef02f7",
			stagedChecksum: "967b7b8d624e6d10ff51c2e81ef198fae966c567ac2e9b479771c693d0987949",
			stagedLocked:   true},
		{file: "zincati-rpm-ostree-status.json", deployments: 1,
			bootedChecksum: "ce718b90ce19c2cac07fa45efdce91aad208a508c98e9f7f572f5aaba76f569a",
			bootedBase:     "41af286dc0b172ed2f1ca934fd2278de4a1192302ffa07087cea2682e7d372e3"},
		{file: "zincati-fcos43-rpm-ostree-2025.11-status.json", deployments: 1,
			bootedChecksum: "36ff46d732a070a1bf10f7157f764e316f99a836dcdbf56702798e5042411fe9",
			bootedBase:     "36ff46d732a070a1bf10f7157f764e316f99a836dcdbf56702798e5042411fe9",
			bootedDigest:   "sha256:ca99893c80a7b84dd84d4143bd27538207c2f38ab6647a58d9c8caa251f9a087",
			driver:         "Zincati"},
		{file: "insights-core-rhcos-status.json", deployments: 1,
			bootedChecksum: "40948b845a13349cb0d57400eebdcfdf72bb8521636a1f067fb22d92b0b73b41",
			bootedBase:     "40948b845a13349cb0d57400eebdcfdf72bb8521636a1f067fb22d92b0b73b41",
			bootedDigest:   "sha256:90780b08939d913d9cfc5565eecdd12055dd57301b2109985e149830a92ed6b1"},
		{file: "rpmostree-client-go-fcos-with-overrides-status.json", deployments: 2,
			bootedChecksum: "23bfcb638fcee121d5d257349c1c964b111f7df4e9895f602e671faa9ec7a607",
			bootedBase:     "23bfcb638fcee121d5d257349c1c964b111f7df4e9895f602e671faa9ec7a607",
			stagedChecksum: "683faf6b42711761e9af070a0f23f9b068ec2b81cc618debcc760b025621e27b",
			stagedBase:     "23bfcb638fcee121d5d257349c1c964b111f7df4e9895f602e671faa9ec7a607"},
		{file: "rpmostree-client-go-workstation-status.json", deployments: 2,
			bootedChecksum: "63335a77f9853618ba1a5f139c5805e82176a2a040ef5e34d7402e12263af5bb",
			bootedBase:     "229387d3c0bb8ad698228ca5702eca72aed8b298a7c800be1dc72bab160a9f7f"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(fixtures, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			s, err := ParseStatus(b)
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Deployments) != tt.deployments {
				t.Fatalf("%d deployments, want %d", len(s.Deployments), tt.deployments)
			}
			booted, err := s.Booted()
			if err != nil {
				t.Fatal(err)
			}
			if booted.Checksum == "" || booted.ID == "" || booted.OSName == "" {
				t.Errorf("booted deployment lacks basic fields: %+v", booted.Deployment)
			}
			if tt.bootedChecksum != "" && booted.Checksum != tt.bootedChecksum {
				t.Errorf("booted checksum %s, want %s", booted.Checksum, tt.bootedChecksum)
			}
			if tt.bootedBase != "" && booted.GetBaseChecksum() != tt.bootedBase {
				t.Errorf("booted base %s, want %s", booted.GetBaseChecksum(), tt.bootedBase)
			}
			if booted.ImageDigest() != tt.bootedDigest {
				t.Errorf("booted image digest %q, want %q", booted.ImageDigest(), tt.bootedDigest)
			}
			staged := s.StagedDeployment()
			switch {
			case tt.stagedChecksum == "" && staged != nil:
				t.Errorf("unexpected staged deployment %s", staged.ID)
			case tt.stagedChecksum != "":
				if staged == nil {
					t.Fatal("no staged deployment")
				}
				if staged.Checksum != tt.stagedChecksum || staged.FinalizationLocked != tt.stagedLocked || staged.ImageDigest() != tt.stagedDigest {
					t.Errorf("staged %s locked %v digest %q, want %s %v %q", staged.Checksum, staged.FinalizationLocked,
						staged.ImageDigest(), tt.stagedChecksum, tt.stagedLocked, tt.stagedDigest)
				}
				wantBase := tt.stagedBase
				if wantBase == "" {
					wantBase = tt.stagedChecksum
				}
				if staged.GetBaseChecksum() != wantBase {
					t.Errorf("staged base %s, want %s", staged.GetBaseChecksum(), wantBase)
				}
				if booted.FinalizationLocked {
					t.Error("booted deployment reported finalization-locked")
				}
			}
			if (s.Transaction != nil) != tt.transaction {
				t.Errorf("transaction %v", s.Transaction)
			}
			if tt.driver != "" && (s.UpdateDriver == nil || s.UpdateDriver.DriverName != tt.driver) {
				t.Errorf("update driver %+v, want %s", s.UpdateDriver, tt.driver)
			}
			// The client library parses the same file the same way.
			var lib rpmostreeclient.Status
			if err := json.Unmarshal(b, &lib); err != nil {
				t.Fatal(err)
			}
			libBooted, err := lib.GetBootedDeployment()
			if err != nil || libBooted.Checksum != booted.Checksum || libBooted.GetBaseChecksum() != booted.GetBaseChecksum() {
				t.Errorf("client library disagrees: %+v %v", libBooted, err)
			}
		})
	}
}

func TestDeploymentImageDigest(t *testing.T) {
	const d = "sha256:90780b08939d913d9cfc5565eecdd12055dd57301b2109985e149830a92ed6b1"
	const other = "sha256:1111111111111111111111111111111111111111111111111111111111111111"
	tests := []struct {
		name       string
		ref, field string
		meta       map[string]any
		want       string
		image      string
	}{
		{"digest field wins", "ostree-unverified-registry:q.io/os:latest", d, nil, d, "q.io/os@" + d},
		{"field over a stale reference", "ostree-unverified-registry:q.io/os@" + other, d, nil, d, "q.io/os@" + d},
		// Issue #4185: the field can be missing; the reference may be stale
		// (deploy <digest> keeps it), so only the commit's record counts.
		{"stale reference, no field", "ostree-unverified-registry:q.io/os@" + other, "", nil, "", ""},
		{"commit metadata", "ostree-unverified-registry:q.io/os@" + other, "", map[string]any{"ostree.manifest-digest": d}, d, "q.io/os@" + d},
		{"docker transport", "ostree-unverified-image:docker://127.0.0.1:5000/os@" + other, d, nil, d, "127.0.0.1:5000/os@" + d},
		// What the MCO rebases to for images in local storage (pkg/daemon/rpm-ostree.go).
		{"containers-storage", "ostree-unverified-image:containers-storage:registry.test/openshift/os@" + d, d, nil, d, "registry.test/openshift/os@" + d},
		{"signed, tagged", "ostree-image-signed:docker://registry.test/fedora/fedora-coreos:stable", d, nil, d, "registry.test/fedora/fedora-coreos@" + d},
		{"registry port and tag", "ostree-unverified-registry:127.0.0.1:5000/os:4.20", d, nil, d, "127.0.0.1:5000/os@" + d},
		{"tag only", "ostree-unverified-registry:q.io/os:4.20", "", nil, "", ""},
		{"no reference", "", d, nil, "", ""},
		{"garbage without colon", "garbage", d, nil, d, ""},
		{"bad metadata digest", "ostree-unverified-registry:q.io/os@" + other, "", map[string]any{"ostree.manifest-digest": "sha256:abc"}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var dep Deployment
			dep.ContainerImageReference = tt.ref
			dep.ContainerImageReferenceDigest = tt.field
			dep.BaseCommitMeta = tt.meta
			if got := dep.ImageDigest(); got != tt.want {
				t.Errorf("ImageDigest() = %q, want %q", got, tt.want)
			}
			if got := dep.Image(); got != tt.image {
				t.Errorf("Image() = %q, want %q", got, tt.image)
			}
			if tt.want != "" && !dep.CarriesImage("127.0.0.1:1/other@"+tt.want) {
				t.Error("CarriesImage false for the same digest")
			}
			if dep.CarriesImage("q.io/os@" + other) {
				t.Error("CarriesImage true for the stale reference's digest")
			}
		})
	}
}

func TestImageDigest(t *testing.T) {
	const d = "sha256:90780b08939d913d9cfc5565eecdd12055dd57301b2109985e149830a92ed6b1"
	tests := []struct {
		ref, want, err string
	}{
		{"127.0.0.1:5000/os@" + d, d, ""},
		{"ostree-unverified-registry:127.0.0.1:5000/os@" + d, d, ""},
		{"127.0.0.1:5000/os:v1", "", "not pinned by digest"},
		{"127.0.0.1:5000/os@sha256:ABC", "", "invalid digest"},
	}
	for _, tt := range tests {
		got, err := ImageDigest(tt.ref)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ImageDigest(%q) err %v, want %q", tt.ref, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ImageDigest(%q) = %q %v", tt.ref, got, err)
		}
	}
}

func TestDeploymentRoundTrip(t *testing.T) {
	in := `{"id":"rhcos-x.0","osname":"rhcos","checksum":"c","base-checksum":"b","booted":false,"staged":true,` +
		`"finalization-locked":true,"pinned":true,"container-image-reference-digest":"sha256:x"}`
	var d Deployment
	if err := json.Unmarshal([]byte(in), &d); err != nil {
		t.Fatal(err)
	}
	if !d.FinalizationLocked || !d.Pinned || !d.Staged || d.BaseChecksum != "b" || d.GetBaseChecksum() != "b" ||
		d.Deployment.BaseChecksum == nil || *d.Deployment.BaseChecksum != "b" {
		t.Fatalf("decoded %+v", d)
	}
	out, err := json.Marshal(&d)
	if err != nil {
		t.Fatal(err)
	}
	var back Deployment
	if err := json.Unmarshal(out, &back); err != nil {
		t.Fatal(err)
	}
	if back.BaseChecksum != "b" || !back.FinalizationLocked || back.ContainerImageReferenceDigest != "sha256:x" {
		t.Errorf("round trip lost fields: %s", out)
	}
}

func TestProgressParser(t *testing.T) {
	lines := []string{
		"Pulling manifest: ostree-unverified-registry:127.0.0.1:5000/os@sha256:00",
		"Importing: ostree-unverified-registry:127.0.0.1:5000/os@sha256:00 (digest: sha256:00)",
		"ostree chunk layers needed: 3 (1.5 MB)",
		"custom layers needed: 1 (500.0 kB)",
		"[0/4] Fetching ostree chunk sha256:0123456789ab (1.0 MB)...done",
		"[1/4] Fetching ostree chunk sha256:0123456789ac (500.0 kB)...",
		"[1/4] Fetching ostree chunk sha256:0123456789ac (500.0 kB)...done",
		"[3/4] Fetching layer sha256:0123456789ad (12 bytes)...done",
		"Staging deployment...done",
	}
	var pp progressParser
	var updates []StageProgress
	for _, l := range lines {
		if p, ok := pp.feed(l); ok {
			updates = append(updates, p)
		}
	}
	if len(updates) != 5 {
		t.Fatalf("%d updates, want 5: %+v", len(updates), updates)
	}
	last := updates[len(updates)-1]
	want := StageProgress{Line: lines[7], LayersTotal: 4, LayersDone: 3, BytesTotal: 2_000_000, BytesDone: 1_500_012}
	if last != want {
		t.Errorf("last update %+v, want %+v", last, want)
	}
}

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"1 byte", 1, true}, {"12 bytes", 12, true}, {"1.5 kB", 1500, true}, {"2.0 MB", 2_000_000, true},
		{"1.2 GB", 1_200_000_000, true}, {"1.0 MiB", 1 << 20, true}, {"1.0\u00a0GB", 1_000_000_000, true},
		{"lots", 0, false}, {"3 parsecs", 0, false},
	}
	for _, tt := range tests {
		got, ok := parseSize(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("parseSize(%q) = %d %v, want %d %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestPlanStage(t *testing.T) {
	const (
		d1 = "sha256:1111111111111111111111111111111111111111111111111111111111111111"
		d2 = "sha256:2222222222222222222222222222222222222222222222222222222222222222"
	)
	ref := func(d string) string { return "127.0.0.1:5000/os@" + d }
	dep := func(d string, booted, staged, locked bool) Deployment {
		var x Deployment
		x.ContainerImageReference = UnverifiedRegistryTransport + ref(d)
		x.ContainerImageReferenceDigest = d
		x.Booted, x.Staged, x.FinalizationLocked = booted, staged, locked
		return x
	}
	rebase2 := "rebase --lock-finalization " + UnverifiedRegistryTransport + ref(d2)
	tests := []struct {
		name        string
		deployments []Deployment
		want        string // "noop", or the command, prefixed by "cleanup; " when one is needed
		err         bool
	}{
		{"nothing staged", []Deployment{dep(d1, true, false, false)}, rebase2, false},
		{"same digest staged and locked", []Deployment{dep(d2, false, true, true), dep(d1, true, false, false)}, "noop", false},
		{"same digest staged but unlocked", []Deployment{dep(d2, false, true, false), dep(d1, true, false, false)}, "cleanup; " + rebase2, false},
		{"another image staged", []Deployment{dep(d1, false, true, true), dep(d1, true, false, false)}, "cleanup; " + rebase2, false},
		{"booted origin unchanged", []Deployment{dep(d2, true, false, false)}, "deploy --lock-finalization " + d2, false},
		{"no booted deployment", []Deployment{dep(d1, false, true, true)}, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan, err := planStage(&Status{Deployments: tt.deployments}, ref(d2), d2)
			if tt.err {
				if err == nil {
					t.Fatal("no error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Join(plan.args, " ")
			if plan.alreadyStaged != nil {
				got = "noop"
			}
			if plan.cleanup {
				got = "cleanup; " + got
			}
			if got != tt.want {
				t.Errorf("plan %q, want %q", got, tt.want)
			}
		})
	}
}

func TestValidateStageRef(t *testing.T) {
	const d = "sha256:90780b08939d913d9cfc5565eecdd12055dd57301b2109985e149830a92ed6b1"
	for ref, ok := range map[string]bool{
		"127.0.0.1:5000/os@" + d:                               true,
		"127.0.0.1:5000/os:latest":                             false,
		UnverifiedRegistryTransport + "127.0.0.1:5000/os@" + d: false,
		"docker://127.0.0.1:5000/os@" + d:                      false,
	} {
		got, err := validateStageRef(ref)
		if (err == nil) != ok || (ok && got != d) {
			t.Errorf("validateStageRef(%q) = %q, %v", ref, got, err)
		}
	}
}
