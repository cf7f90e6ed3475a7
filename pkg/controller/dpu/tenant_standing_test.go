package dpu

import (
	"strings"
	"testing"
	"time"

	dpuv1 "github.com/tandem-mco/tandem/pkg/apis/dpu/v1alpha1"
)

func TestTenantGateVerdict(t *testing.T) {
	pool := TenantPool{Name: "worker", Target: cfgB, TargetSince: t0.Add(-time.Minute)}
	pair := request("p", "w0", dpuv1.ActionPair, time.Hour, fromDPU("dpu-0"))
	tests := []struct {
		name   string
		in     TenantGateInput
		ok     bool
		reason string
	}{
		{"no request: grant", TenantGateInput{Node: doneNode("w0").View, Pool: pool}, true, ""},
		{"an open Drain: left to the maintenance", TenantGateInput{Node: doneNode("w0").View, Pool: pool,
			Requests: []*dpuv1.HostMaintenance{request("d", "w0", dpuv1.ActionDrain, time.Minute)}}, false, "HostMaintenance d (Drain, Pending)"},
		{"an open NodeMaintenance: left to it", TenantGateInput{Node: doneNode("w0").View, Pool: pool,
			Requests: []*dpuv1.HostMaintenance{request(nodeMaintenanceKind+"/dpu-tenant-w0", "w0", dpuv1.ActionDrain, time.Minute)}},
			false, "NodeMaintenance dpu-tenant-w0"},
		{"a completed Reboot: no longer holds", TenantGateInput{Node: doneNode("w0").View, Pool: pool,
			Requests: []*dpuv1.HostMaintenance{request("r", "w0", dpuv1.ActionReboot, time.Minute, inPhase(dpuv1.PhaseCompleted, true))}}, true, ""},
		{"paired, within the wait: held for the DPU", TenantGateInput{Node: doneNode("w0").View, Pool: pool,
			Requests: []*dpuv1.HostMaintenance{pair}, AnnounceWait: 2 * time.Minute, Now: t0}, false, "waits until 2026-03-01T10:01:00Z"},
		{"paired, the wait is over: grant", TenantGateInput{Node: doneNode("w0").View, Pool: pool,
			Requests: []*dpuv1.HostMaintenance{pair}, AnnounceWait: 2 * time.Minute, Now: t0.Add(time.Minute)}, true, ""},
		{"paired, no wait configured: grant", TenantGateInput{Node: doneNode("w0").View, Pool: pool,
			Requests: []*dpuv1.HostMaintenance{pair}, Now: t0}, true, ""},
		{"paired, target's creation not read yet: held", TenantGateInput{Node: doneNode("w0").View, Pool: TenantPool{Target: cfgB},
			Requests: []*dpuv1.HostMaintenance{pair}, AnnounceWait: 2 * time.Minute, Now: t0}, false, "is not read yet"},
		{"requests not read yet (the caches syncing after a restart): held", TenantGateInput{Node: doneNode("w0").View, Pool: pool,
			RequestsUnknown: true}, false, "not read yet"},
		{"a Taint does not hold the update", TenantGateInput{Node: doneNode("w0").View, Pool: pool,
			Requests: []*dpuv1.HostMaintenance{request("t", "w0", dpuv1.ActionTaint, time.Minute)}}, true, ""},
	}
	for _, tt := range tests {
		ok, reason := TenantGateVerdict(tt.in)
		if ok != tt.ok || !strings.Contains(reason, tt.reason) {
			t.Errorf("%s: got %v %q, want %v %q", tt.name, ok, reason, tt.ok, tt.reason)
		}
	}
}
