package render

import (
	"reflect"
	"strings"
	"testing"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/tandem-mco/tandem/pkg/constants"
)

func hashName(pool string, c byte) string {
	return "rendered-" + pool + "-" + strings.Repeat(string(c), 32)
}

func TestConfigsInUse(t *testing.T) {
	p := newPool("worker", roleSelector("worker"))
	p.Spec.Configuration.Name = hashName("worker", 'a')
	p.Status.Configuration.Name = hashName("worker", 'b')
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n", Annotations: map[string]string{
		constants.CurrentConfigAnnotation: hashName("worker", 'c'),
		constants.DesiredConfigAnnotation: hashName("worker", 'd'),
		constants.StageConfigAnnotation:   hashName("worker", 'e'),
		constants.StagedConfigAnnotation:  hashName("worker", 'f'),
		constants.DesiredDrainAnnotation:  "drain-" + hashName("worker", '0'),
	}}}
	got := sets.List(ConfigsInUse([]*mcfgv1.MachineConfigPool{p}, []*corev1.Node{n, {}}))
	var want []string
	for _, c := range "abcdef" {
		want = append(want, hashName("worker", byte(c)))
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("in use = %v, want %v", got, want)
	}
}

func TestGarbage(t *testing.T) {
	now := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	mk := func(name string, age time.Duration) *mcfgv1.MachineConfig {
		return &mcfgv1.MachineConfig{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(now.Add(-age))}}
	}
	deleting := mk(hashName("worker", '9'), time.Hour)
	deleting.DeletionTimestamp = &metav1.Time{Time: now}
	configs := []*mcfgv1.MachineConfig{
		mk(hashName("worker", 'a'), time.Hour),      // in use
		mk(hashName("worker", 'b'), time.Hour),      // garbage
		mk(hashName("worker", 'c'), 2*time.Minute),  // unused but young: 8m to go
		mk(hashName("worker", 'd'), 9*time.Minute),  // unused but young: 1m to go
		mk(hashName("worker-rt", 'e'), time.Hour),   // another pool's
		mk("00-worker", time.Hour),                  // not rendered
		mk("rendered-worker-handmade", time.Hour),   // not a hash name
		mk(hashName("worker", '0'), 10*time.Minute), // exactly at grace: garbage
		deleting, // already going
	}
	inUse := sets.New(hashName("worker", 'a'))
	got, recheck := Garbage("worker", configs, inUse, now, 10*time.Minute)
	want := []string{hashName("worker", '0'), hashName("worker", 'b')}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("garbage = %v, want %v", got, want)
	}
	if recheck != 8*time.Minute {
		t.Fatalf("recheck = %v, want 8m (the youngest unused config)", recheck)
	}
	if got, recheck := Garbage("worker", configs, inUse, now, 0); len(got) != 4 || recheck != 0 {
		t.Fatalf("without grace: garbage=%v recheck=%v, want 4 configs and no recheck", got, recheck)
	}
}
