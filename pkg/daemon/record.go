package daemon

import (
	"time"

	opv1 "github.com/openshift/api/operator/v1"

	"github.com/tandem-mco/tandem/pkg/daemon/files"
)

// RecordKind tells what the record is about.
type RecordKind string

const (
	// RecordUpdate: applying a rendered MachineConfig (files, units, OS).
	RecordUpdate RecordKind = "Update"
	// RecordReboot: serving a rebootRequest (HostMaintenance Reboot).
	RecordReboot RecordKind = "Reboot"
)

// Phase is how far an update got on disk. Phases only move forward within
// one boot; the record is the daemon's only memory across a crash or a
// reboot.
type Phase string

const (
	// PhaseWriting: backups are taken and files are being replaced. A record
	// found in this phase was interrupted mid-write and is rolled back.
	PhaseWriting Phase = "Writing"
	// PhaseFilesWritten: every file and unit of the config is in place.
	PhaseFilesWritten Phase = "FilesWritten"
	// PhaseKernelArgs: kernel arguments were set on the pending deployment.
	PhaseKernelArgs Phase = "KernelArgsApplied"
	// PhaseKubeletStopped: kubelet was stopped ahead of the reboot.
	PhaseKubeletStopped Phase = "KubeletStopped"
	// PhaseRebooting: finalize-deployment (or a reboot) was requested.
	PhaseRebooting Phase = "Rebooting"
	// PhaseVerified: after the reboot, the booted OS and the files were
	// checked against the config.
	PhaseVerified Phase = "Verified"
)

// phaseOrder ranks phases so "at least" comparisons read naturally.
var phaseOrder = map[Phase]int{
	PhaseWriting:        1,
	PhaseFilesWritten:   2,
	PhaseKernelArgs:     3,
	PhaseKubeletStopped: 4,
	PhaseRebooting:      5,
	PhaseVerified:       6,
}

// AtLeast tells whether p is phase q or a later one.
func (p Phase) AtLeast(q Phase) bool { return phaseOrder[p] >= phaseOrder[q] }

// Record is the on-disk record of what the daemon wrote for the update in
// progress. It is written atomically before each step that changes the
// machine, so the step after a crash or a reboot is derivable from it, the
// booted deployment and the node's annotations alone.
type Record struct {
	Kind RecordKind `json:"kind"`
	// Config is the rendered MachineConfig being applied; FromConfig the one
	// the node ran before (empty for a reboot request).
	Config     string `json:"config,omitempty"`
	FromConfig string `json:"fromConfig,omitempty"`
	// OSChange is true when the update boots a new OS image: TargetImage,
	// staged as deployment TargetChecksum.
	OSChange       bool   `json:"osChange,omitempty"`
	TargetImage    string `json:"targetImage,omitempty"`
	TargetChecksum string `json:"targetChecksum,omitempty"`
	// BootID is the boot in which the record reached Phase (before the reboot).
	BootID string `json:"bootID"`
	Phase  Phase  `json:"phase"`
	// Files lists every path the update replaced or removed with its backup,
	// so an interrupted update can be rolled back.
	Files []files.Backup `json:"files,omitempty"`
	// BootKernelArgs is the kernel command line of the boot the update
	// started in, so that after the reboot a lost kernel-argument deletion
	// can be told apart from an argument the base OS also carries.
	BootKernelArgs []string `json:"bootKernelArgs,omitempty"`
	// KernelArgsBefore are the pending deployment's kernel arguments just
	// before the update's `rpm-ostree kargs`, saved before it runs
	// (KernelArgsStarted): the edit appends, so after a crash it is run
	// again only if they are still the same.
	KernelArgsStarted bool     `json:"kernelArgsStarted,omitempty"`
	KernelArgsBefore  []string `json:"kernelArgsBefore,omitempty"`
	// RebootToken is the rebootRequest served by this record's reboot.
	RebootToken string `json:"rebootToken,omitempty"`
	// Rebootless updates need no reboot: after the files are written the
	// daemon carries out PostActions in order; ActionsDone of them are done.
	Rebootless  bool                                    `json:"rebootless,omitempty"`
	PostActions []opv1.NodeDisruptionPolicyStatusAction `json:"postActions,omitempty"`
	ActionsDone int                                     `json:"actionsDone,omitempty"`
	// Times are for metrics only; no decision reads them.
	CordonedAt time.Time `json:"cordonedAt,omitzero"`
	UpdatedAt  time.Time `json:"updatedAt,omitzero"`
}
