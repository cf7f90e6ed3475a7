package node

import (
	"testing"
	"time"

	"github.com/tandem-mco/tandem/pkg/constants"
)

func TestExpectationsOverlayUntilObserved(t *testing.T) {
	e := newExpectations(time.Minute)
	e.expect("a", constants.DesiredConfigAnnotation, newCfg, epoch)

	stale := map[string]string{constants.DesiredConfigAnnotation: oldCfg, constants.StateAnnotation: "Done"}
	got := e.overlay("a", stale, epoch.Add(time.Second))
	if got[constants.DesiredConfigAnnotation] != newCfg || got[constants.StateAnnotation] != "Done" {
		t.Fatalf("stale cache not overlaid: %v", got)
	}
	if stale[constants.DesiredConfigAnnotation] != oldCfg {
		t.Fatalf("overlay modified the cached map")
	}
	fresh := map[string]string{constants.DesiredConfigAnnotation: newCfg}
	e.overlay("a", fresh, epoch.Add(2*time.Second))
	if got := e.overlay("a", stale, epoch.Add(3*time.Second)); got[constants.DesiredConfigAnnotation] != oldCfg {
		t.Fatalf("observed expectation kept: %v", got)
	}

	e.expect("b", constants.StageConfigAnnotation, newCfg, epoch)
	if got := e.overlay("b", nil, epoch.Add(2*time.Minute)); got[constants.StageConfigAnnotation] != "" {
		t.Fatalf("expired expectation applied: %v", got)
	}
	e.expect("c", constants.StageConfigAnnotation, newCfg, epoch)
	e.forget("c")
	if got := e.overlay("c", nil, epoch); len(got) != 0 {
		t.Fatalf("forgotten expectation applied: %v", got)
	}
}
