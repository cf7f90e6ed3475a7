package originmon

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestUnreadyOnce(t *testing.T) {
	t0 := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	at := func(min int) time.Time { return t0.Add(time.Duration(min) * time.Minute) }
	nr := func(n string, min int) ReadyTransition { return ReadyTransition{Node: n, Ready: false, At: at(min)} }
	r := func(n string, min int) ReadyTransition { return ReadyTransition{Node: n, Ready: true, At: at(min)} }

	tests := []struct {
		name  string
		ts    []ReadyTransition
		nodes []string
		once  int
		// want holds one substring per expected failure, in order.
		want []string
	}{
		{
			name:  "each node unready once then ready",
			ts:    []ReadyTransition{nr("a", 1), nr("b", 2), r("a", 3), r("b", 4)},
			nodes: []string{"a", "b"},
			once:  2,
		},
		{
			name:  "unready twice",
			ts:    []ReadyTransition{nr("a", 1), r("a", 2), nr("a", 3), r("a", 4)},
			nodes: []string{"a"},
			want: []string{
				"Node a went unready multiple times: 2025-03-01T10:01:00Z, 2025-03-01T10:03:00Z",
				"Node a went ready multiple times: 2025-03-01T10:02:00Z, 2025-03-01T10:04:00Z",
			},
		},
		{
			name:  "never ready again",
			ts:    []ReadyTransition{nr("a", 1), nr("b", 1), r("b", 5)},
			nodes: []string{"a", "b"},
			once:  1,
			want:  []string{"Node a went unready at 2025-03-01T10:01:00Z, never became ready again"},
		},
		{
			name:  "ready before any unready is disregarded (slow install)",
			ts:    []ReadyTransition{r("a", 0), nr("a", 1), r("a", 2)},
			nodes: []string{"a"},
			once:  1,
		},
		{
			name:  "unready while already unready is ignored",
			ts:    []ReadyTransition{nr("a", 1), nr("a", 2), r("a", 3)},
			nodes: []string{"a"},
			once:  1,
		},
		{
			name:  "ready twice in a row",
			ts:    []ReadyTransition{nr("a", 1), r("a", 2), r("a", 3)},
			nodes: []string{"a"},
			once:  1,
			want:  []string{"Node a was reported ready twice in a row (at 2025-03-01T10:03:00Z)"},
		},
		{
			name:  "ready and unready at the same instant is not ready again",
			ts:    []ReadyTransition{nr("a", 1), r("a", 1)},
			nodes: []string{"a"},
			want:  []string{"Node a went unready at 2025-03-01T10:01:00Z, never became ready again"},
		},
		{
			name:  "no transition: did not reboot (ours)",
			ts:    []ReadyTransition{nr("a", 1), r("a", 2)},
			nodes: []string{"a", "b"},
			once:  1,
			want:  []string{"Node b went unready 0 times: it did not reboot"},
		},
		{
			name:  "only a disregarded ready: may not have upgraded",
			ts:    []ReadyTransition{r("a", 4)},
			nodes: []string{"a"},
			want:  []string{"Node a went ready at 2025-03-01T10:04:00Z but had no record of going unready, may not have upgraded"},
		},
		{
			name:  "nodes outside the list are judged but not counted",
			ts:    []ReadyTransition{nr("a", 1), r("a", 2), nr("x", 3)},
			nodes: []string{"a"},
			once:  1,
			want:  []string{"Node x went unready at 2025-03-01T10:03:00Z, never became ready again"},
		},
		{
			name:  "a node outside the list with no unready is not judged",
			ts:    []ReadyTransition{nr("a", 1), r("a", 2), r("x", 3)},
			nodes: []string{"a"},
			once:  1,
		},
		{
			name: "no nodes",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := UnreadyOnce(tt.ts, tt.nodes)
			if v.Once != tt.once || v.Total != len(tt.nodes) {
				t.Errorf("Once/Total = %d/%d, want %d/%d", v.Once, v.Total, tt.once, len(tt.nodes))
			}
			if len(v.Failures) != len(tt.want) {
				t.Fatalf("failures = %q, want %d like %q", v.Failures, len(tt.want), tt.want)
			}
			for i, w := range tt.want {
				if !strings.Contains(v.Failures[i], w) {
					t.Errorf("failure %d = %q, want it to contain %q", i, v.Failures[i], w)
				}
			}
			if v.OK() != (len(tt.want) == 0) {
				t.Errorf("OK() = %t with failures %q", v.OK(), v.Failures)
			}
		})
	}
}

func TestUnreadyOnceDoesNotMutateNodes(t *testing.T) {
	nodes := []string{"b", "a"}
	UnreadyOnce([]ReadyTransition{{Node: "c", At: time.Now()}}, nodes)
	if !slices.Equal(nodes, []string{"b", "a"}) {
		t.Fatalf("nodes changed to %q", nodes)
	}
}
