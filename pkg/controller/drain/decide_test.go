package drain

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tandem-mco/tandem/pkg/constants"
)

const cfg = "rendered-worker-0123456789abcdef0123456789abcdef"

func node(unschedulable bool, desired, last, record string) *corev1.Node {
	ann := map[string]string{}
	if desired != "" {
		ann[constants.DesiredDrainAnnotation] = desired
	}
	if last != "" {
		ann[constants.LastAppliedDrainAnnotation] = last
	}
	if record != "" {
		ann[constants.CordonedByAdminAnnotation] = record
	}
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n", Annotations: ann}, Spec: corev1.NodeSpec{Unschedulable: unschedulable}}
}

func TestDecide(t *testing.T) {
	drainReq, uncordonReq := constants.DrainRequest(cfg), constants.UncordonRequest(cfg)
	oldDrain, oldUncordon := constants.DrainRequest("rendered-worker-old"), constants.UncordonRequest("rendered-worker-old")
	cases := []struct {
		name string
		node *corev1.Node
		want Decision // Why is not compared
	}{
		{"no request", node(false, "", "", ""), Decision{Action: ActionNone}},
		{"drain already applied", node(true, drainReq, drainReq, CordonedByTandem), Decision{Action: ActionNone, Request: drainReq}},
		{"uncordon already applied", node(false, uncordonReq, uncordonReq, ""), Decision{Action: ActionNone, Request: uncordonReq}},

		{"drain of a schedulable node: tandem cordons", node(false, drainReq, oldUncordon, ""),
			Decision{Action: ActionDrain, Request: drainReq, RecordCordon: CordonedByTandem}},
		{"drain of a node a person cordoned: recorded", node(true, drainReq, oldUncordon, ""),
			Decision{Action: ActionDrain, Request: drainReq, RecordCordon: CordonedBeforeDrain}},
		{"drain of a cordoned node that never saw a drain: recorded", node(true, drainReq, "", ""),
			Decision{Action: ActionDrain, Request: drainReq, RecordCordon: CordonedBeforeDrain}},
		{"retry of our drain: the cordon is ours, record kept", node(true, drainReq, oldUncordon, CordonedByTandem),
			Decision{Action: ActionDrain, Request: drainReq}},
		{"retry of a drain of a person's cordon: record kept", node(true, drainReq, oldUncordon, CordonedBeforeDrain),
			Decision{Action: ActionDrain, Request: drainReq}},
		{"new drain while our previous drain still holds the node", node(true, drainReq, oldDrain, CordonedByTandem),
			Decision{Action: ActionDrain, Request: drainReq}},
		{"new drain after an MCO's drain (no record): the cordon is the cycle's", node(true, drainReq, oldDrain, ""),
			Decision{Action: ActionDrain, Request: drainReq, RecordCordon: CordonedByTandem}},

		{"uncordon after our drain", node(true, uncordonReq, drainReq, CordonedByTandem),
			Decision{Action: ActionUncordon, Request: uncordonReq, MakeSchedulable: true, ClearRecord: true}},
		{"uncordon keeps a person's earlier cordon", node(true, uncordonReq, drainReq, CordonedBeforeDrain),
			Decision{Action: ActionUncordon, Request: uncordonReq, ClearRecord: true}},
		{"uncordon after an MCO's drain (no record): MCO behaviour", node(true, uncordonReq, drainReq, ""),
			Decision{Action: ActionUncordon, Request: uncordonReq, MakeSchedulable: true}},
		{"uncordon with no drain cycle leaves a person's cordon", node(true, uncordonReq, oldUncordon, ""),
			Decision{Action: ActionUncordon, Request: uncordonReq}},
		{"uncordon of a fresh node", node(false, uncordonReq, "", ""),
			Decision{Action: ActionUncordon, Request: uncordonReq}},

		{"garbage request", node(false, "reboot-now", "", ""), Decision{Action: ActionInvalid, Request: "reboot-now"}},
		{"verb without config", node(false, "drain", "", ""), Decision{Action: ActionInvalid, Request: "drain"}},
		{"empty config", node(false, "drain-", "", ""), Decision{Action: ActionInvalid, Request: "drain-"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Decide(tc.node)
			if got.Why == "" {
				t.Errorf("decision has no explanation")
			}
			got.Why = ""
			if got != tc.want {
				t.Fatalf("Decide = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestAdminCordonSurvivesACycle walks a person's cordon through a whole
// drain cycle, applying each decision the way the controller does.
func TestAdminCordonSurvivesACycle(t *testing.T) {
	for _, adminCordoned := range []bool{true, false} {
		n := node(adminCordoned, constants.DrainRequest(cfg), "", "")
		apply := func(d Decision) {
			ann := n.Annotations
			if d.RecordCordon != "" {
				ann[constants.CordonedByAdminAnnotation] = d.RecordCordon
			}
			switch d.Action {
			case ActionDrain:
				n.Spec.Unschedulable = true
			case ActionUncordon:
				if d.MakeSchedulable {
					n.Spec.Unschedulable = false
				}
				if d.ClearRecord {
					delete(ann, constants.CordonedByAdminAnnotation)
				}
			}
			if d.Action != ActionNone {
				ann[constants.LastAppliedDrainAnnotation] = d.Request
			}
		}
		apply(Decide(n))
		// A retry in the middle must not re-judge tandem's own cordon as a person's.
		n.Annotations[constants.LastAppliedDrainAnnotation] = ""
		apply(Decide(n))
		n.Annotations[constants.DesiredDrainAnnotation] = constants.UncordonRequest(cfg)
		apply(Decide(n))
		if n.Spec.Unschedulable != adminCordoned {
			t.Errorf("admin cordoned=%v: after the cycle unschedulable=%v", adminCordoned, n.Spec.Unschedulable)
		}
		if _, ok := n.Annotations[constants.CordonedByAdminAnnotation]; ok {
			t.Errorf("admin cordoned=%v: record left behind", adminCordoned)
		}
		if d := Decide(n); d.Action != ActionNone {
			t.Errorf("admin cordoned=%v: cycle not finished: %+v", adminCordoned, d)
		}
	}
}

func TestRelevantChange(t *testing.T) {
	base := node(false, constants.DrainRequest(cfg), "", "")
	heartbeat := base.DeepCopy()
	heartbeat.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}
	heartbeat.Annotations["other"] = "x"
	cordoned := base.DeepCopy()
	cordoned.Spec.Unschedulable = true
	acked := base.DeepCopy()
	acked.Annotations[constants.LastAppliedDrainAnnotation] = constants.DrainRequest(cfg)
	recordGone := node(true, "", "", CordonedByTandem)
	recordGone2 := recordGone.DeepCopy()
	delete(recordGone2.Annotations, constants.CordonedByAdminAnnotation)
	cases := []struct {
		name string
		o, n *corev1.Node
		want bool
	}{
		{"heartbeat and unrelated annotation", base, heartbeat, false},
		{"cordon", base, cordoned, true},
		{"acknowledged", base, acked, true},
		{"record removed", recordGone, recordGone2, true},
	}
	for _, tc := range cases {
		if got := relevantChange(tc.o, tc.n); got != tc.want {
			t.Errorf("%s: relevantChange = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestAnnotationPath(t *testing.T) {
	if got, want := annotationPath("machineconfiguration.openshift.io/desiredDrain"), "/metadata/annotations/machineconfiguration.openshift.io~1desiredDrain"; got != want {
		t.Fatalf("path = %q, want %q", got, want)
	}
	if got, want := annotationPath("a~b/c"), "/metadata/annotations/a~0b~1c"; got != want {
		t.Fatalf("path = %q, want %q", got, want)
	}
}
