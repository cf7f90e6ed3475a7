package originmon

import (
	"strings"
	"testing"
	"time"
)

func TestJudgeLeaderChanges(t *testing.T) {
	tests := []struct {
		changes, revisions, allowed int
		ok                          bool
	}{
		{changes: 0, revisions: 0, allowed: 0, ok: true},
		{changes: 1, revisions: 0, allowed: 0, ok: false}, // no floor
		{changes: 3, revisions: 1, allowed: 3, ok: true},  // equal passes
		{changes: 4, revisions: 1, allowed: 3, ok: false},
		{changes: 6, revisions: 2, allowed: 6, ok: true},
		{changes: 7, revisions: 2, allowed: 6, ok: false},
		{changes: 0, revisions: -1, allowed: 0, ok: true},
	}
	for _, tt := range tests {
		if got := LeaderChangesAllowed(tt.revisions); got != tt.allowed {
			t.Errorf("LeaderChangesAllowed(%d) = %d, want %d", tt.revisions, got, tt.allowed)
		}
		ok, msg := JudgeLeaderChanges(tt.changes, tt.revisions)
		if ok != tt.ok {
			t.Errorf("JudgeLeaderChanges(%d, %d) = %t (%s), want %t", tt.changes, tt.revisions, ok, msg, tt.ok)
		}
		if !ok && !strings.Contains(msg, "review etcd performance metrics") {
			t.Errorf("failure message %q lacks origin's advice", msg)
		}
	}
}

func TestEtcdRevisionsSince(t *testing.T) {
	since := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	after, before := since.Add(time.Minute), since.Add(-time.Minute)
	tests := []struct {
		name    string
		cms     []RevisionStatus
		want    int
		wantErr bool
	}{
		{name: "none"},
		{
			name: "only those created after since count",
			cms: []RevisionStatus{
				{Name: "revision-status-3", Created: before},
				{Name: "revision-status-4", Created: after},
				{Name: "revision-status-5", Created: after},
				{Name: "revision-status-6", Created: since}, // not strictly after
				{Name: "etcd-pod", Created: after},
			},
			want: 2,
		},
		{name: "too many dashes", cms: []RevisionStatus{{Name: "etcd-revision-status-4", Created: after}}, wantErr: true},
		{name: "not a number", cms: []RevisionStatus{{Name: "revision-status-x", Created: after}}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := EtcdRevisionsSince(tt.cms, since)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Fatalf("EtcdRevisionsSince = %d, %v; want %d, error %t", got, err, tt.want, tt.wantErr)
			}
		})
	}
}
