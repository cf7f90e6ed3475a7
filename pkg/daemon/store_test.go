package daemon

import (
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/tandem-mco/tandem/pkg/daemon/files"
)

func TestStoreRoundTrip(t *testing.T) {
	s := NewStore(t.TempDir())
	if r, err := s.Load(); err != nil || r != nil {
		t.Fatalf("empty store: %v %v", r, err)
	}
	want := &Record{Kind: RecordUpdate, Config: "b", FromConfig: "a", OSChange: true, TargetChecksum: "cs", BootID: "x",
		Phase: PhaseFilesWritten, Files: []files.Backup{{Path: "/etc/a", Name: "00000"}, {Path: "/etc/b"}},
		CordonedAt: time.Unix(100, 0).UTC()}
	if err := s.Save(want); err != nil {
		t.Fatal(err)
	}
	got, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	got.UpdatedAt = want.UpdatedAt
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("loaded %+v, want %+v", got, want)
	}
	ents, _ := os.ReadDir(s.Dir)
	for _, e := range ents {
		if files.IsTemp(e.Name()) {
			t.Errorf("temp file %s left", e.Name())
		}
	}
	if err := s.Clear(); err != nil {
		t.Fatal(err)
	}
	if r, err := s.Load(); err != nil || r != nil {
		t.Fatalf("after clear: %v %v", r, err)
	}
	if err := s.Clear(); err != nil {
		t.Fatalf("clearing twice: %v", err)
	}
}

func TestPhaseOrder(t *testing.T) {
	if !PhaseRebooting.AtLeast(PhaseKubeletStopped) || PhaseFilesWritten.AtLeast(PhaseKernelArgs) || !PhaseVerified.AtLeast(PhaseVerified) {
		t.Fatal("phase order broken")
	}
}
