package originmon

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

func webPod(name, node string, ready bool) *corev1.Pod {
	st := corev1.ConditionFalse
	if ready {
		st = corev1.ConditionTrue
	}
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "w", Labels: map[string]string{"app": "web"}},
		Spec:   corev1.PodSpec{NodeName: node},
		Status: corev1.PodStatus{Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: st}}}}
}

// TestBudgetEpisodes counts the episodes below a PodDisruptionBudget's
// minAvailable as the Kubernetes disruption controller counts healthy
// pods (Ready ones), except that a pod on a node a fault took down counts
// as available: the budget guards evictions, not power losses.
func TestBudgetEpisodes(t *testing.T) {
	m := &Watcher{budget: Budget{Namespace: "w", MinAvailable: 2}, pods: labels.SelectorFromSet(labels.Set{"app": "web"}),
		webReady: map[string]bool{}, podNode: map[string]string{}, excused: map[string]bool{}, everExcused: map[string]bool{}}
	// The first list arrives one pod at a time: not an episode.
	m.podSeen(webPod("a", "n1", true), false)
	m.podSeen(webPod("b", "n2", true), false)
	m.podSeen(webPod("c", "n3", true), false)
	m.podSeen(webPod("other", "n3", false), false)
	m.synced = true
	m.judgeBudget()
	if m.budgetBroken != 0 {
		t.Fatalf("the pods of the first list are no episode, got %d", m.budgetBroken)
	}
	m.podSeen(webPod("c", "n3", false), false)
	m.podSeen(webPod("b", "n2", false), false) // one Ready: below 2
	m.podSeen(webPod("b", "n2", true), false)
	m.podSeen(webPod("c", "n3", true), false)
	if m.budgetBroken != 1 {
		t.Fatalf("one Ready pod of minAvailable 2 is one episode, got %d", m.budgetBroken)
	}
	m.podSeen(webPod("a", "n1", false), false) // 2 ready: at the budget
	if m.budgetBroken != 1 {
		t.Fatalf("at minAvailable is no new episode, got %d", m.budgetBroken)
	}
	m.Excuse("n2", true)
	m.podSeen(webPod("b", "n2", false), false) // n2 lost power: still counted
	if m.budgetBroken != 1 {
		t.Fatalf("a pod on an excused node counts as available, got %d episodes", m.budgetBroken)
	}
	m.Excuse("n2", false) // n2 back, b still not Ready: below
	if m.budgetBroken != 2 {
		t.Fatalf("below minAvailable once the excuse ends is a new episode, got %d", m.budgetBroken)
	}
	m.podSeen(webPod("b", "n2", true), false)
	m.podSeen(webPod("c", "n3", true), true) // deleted: only b Ready
	if m.budgetBroken != 3 {
		t.Fatalf("a deleted pod leaves 1 Ready of minAvailable 2: a third episode, got %d", m.budgetBroken)
	}
	t0 := time.Unix(1_700_000_000, 0)
	for i, n := range []string{"n1", "n2", "n2", "n3"} {
		m.transitions = append(m.transitions, ReadyTransition{Node: n, Ready: false, At: t0.Add(time.Duration(2*i) * time.Second)},
			ReadyTransition{Node: n, Ready: true, At: t0.Add(time.Duration(2*i+1) * time.Second)})
	}
	v := m.Verdict([]string{"n1", "n2", "n3"})
	if len(v.Excused) != 1 || v.Excused[0] != "n2" || v.Unready.Total != 2 || !v.Unready.OK() {
		t.Fatalf("verdict excused %v judged %d failures %v, want [n2], 2 and none (n2's second episode is its fault's)", v.Excused, v.Unready.Total, v.Unready.Failures)
	}
	m.transitions = append(m.transitions, ReadyTransition{Node: "n3", Ready: false, At: t0.Add(time.Minute)})
	if v := m.Verdict([]string{"n1", "n2", "n3"}); v.Unready.OK() {
		t.Fatal("n3 unready a second time, not excused, must fail")
	}
}
