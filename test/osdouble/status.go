package osdouble

import (
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// statusDeployment is one entry of `rpm-ostree status --json`, with the field
// names, types and presence rules of rpm-ostree (see
// rpmostreed-deployment-utils and deployment_utils.rs): finalization-locked
// only appears when true; origin only for non-container deployments;
// container-image-reference(-digest) only for container deployments; the
// package lists are always present, empty.
type statusDeployment struct {
	ID                             string         `json:"id"`
	OSName                         string         `json:"osname"`
	Serial                         int            `json:"serial"`
	Checksum                       string         `json:"checksum"`
	Version                        string         `json:"version,omitempty"`
	Timestamp                      int64          `json:"timestamp"`
	Booted                         bool           `json:"booted"`
	Staged                         bool           `json:"staged"`
	FinalizationLocked             bool           `json:"finalization-locked,omitempty"`
	Pinned                         bool           `json:"pinned"`
	Unlocked                       string         `json:"unlocked"`
	Origin                         string         `json:"origin,omitempty"`
	ContainerImageReference        string         `json:"container-image-reference,omitempty"`
	ContainerImageReferenceDigest  string         `json:"container-image-reference-digest,omitempty"`
	BaseCommitMeta                 map[string]any `json:"base-commit-meta"`
	PendingBaseChecksum            string         `json:"pending-base-checksum,omitempty"`
	PendingBaseVersion             string         `json:"pending-base-version,omitempty"`
	PendingBaseTimestamp           int64          `json:"pending-base-timestamp,omitempty"`
	RegenerateInitramfs            bool           `json:"regenerate-initramfs"`
	RequestedPackages              []string       `json:"requested-packages"`
	RequestedLocalPackages         []string       `json:"requested-local-packages"`
	RequestedLocalFileoverridePkgs []string       `json:"requested-local-fileoverride-packages"`
	RequestedBaseRemovals          []string       `json:"requested-base-removals"`
	RequestedBaseLocalReplacements []string       `json:"requested-base-local-replacements"`
	RequestedModules               []string       `json:"requested-modules"`
	RequestedModulesEnabled        []string       `json:"requested-modules-enabled"`
	Packages                       []string       `json:"packages"`
	BaseRemovals                   []string       `json:"base-removals"`
	BaseLocalReplacements          []string       `json:"base-local-replacements"`
	BaseRemoteReplacements         map[string]any `json:"base-remote-replacements"`
	Modules                        []string       `json:"modules"`
}

type statusJSON struct {
	Deployments  []statusDeployment `json:"deployments"`
	Transaction  []string           `json:"transaction"`
	CachedUpdate any                `json:"cached-update"`
	UpdateDriver any                `json:"update-driver"`
}

func toStatusDeployment(d *Deployment, booted, staged, locked bool) statusDeployment {
	empty := []string{}
	sd := statusDeployment{
		ID: d.ID(), OSName: d.OSName, Serial: d.Serial, Checksum: d.Checksum, Version: d.Version,
		Timestamp: d.Timestamp, Booted: booted, Staged: staged, FinalizationLocked: staged && locked,
		Pinned: d.Pinned, Unlocked: "none", BaseCommitMeta: d.CommitMeta,
		RequestedPackages: empty, RequestedLocalPackages: empty, RequestedLocalFileoverridePkgs: empty,
		RequestedBaseRemovals: empty, RequestedBaseLocalReplacements: empty, RequestedModules: empty,
		RequestedModulesEnabled: empty, Packages: empty, BaseRemovals: empty, BaseLocalReplacements: empty,
		BaseRemoteReplacements: map[string]any{}, Modules: empty,
	}
	if sd.BaseCommitMeta == nil {
		sd.BaseCommitMeta = map[string]any{}
	}
	if d.IsContainer() {
		sd.ContainerImageReference = d.Origin
		sd.ContainerImageReferenceDigest = d.ImageDigest
	} else {
		sd.Origin = d.Origin
	}
	return sd
}

// renderStatus builds status as rpm-ostree shows it: the staged deployment
// first, then the bootloader's deployments, booted first.
func renderStatus(st *nodeState, txn *transactionRecord, bootedOnly bool) statusJSON {
	out := statusJSON{Deployments: []statusDeployment{}}
	if st.staged != nil && !bootedOnly {
		out.Deployments = append(out.Deployments, toStatusDeployment(st.staged, false, true, st.locked))
	}
	for i := range st.boot.Deployments {
		if bootedOnly && i > 0 {
			break
		}
		sd := toStatusDeployment(&st.boot.Deployments[i], i == 0, false, false)
		if i == 0 && st.staged != nil {
			sd.PendingBaseChecksum = st.staged.Checksum
			sd.PendingBaseVersion = st.staged.Version
			sd.PendingBaseTimestamp = st.staged.Timestamp
		}
		out.Deployments = append(out.Deployments, sd)
	}
	if txn != nil {
		out.Transaction = []string{txn.Title, fmt.Sprintf("client(id:%s pid:%d)", txn.ClientID, txn.PID),
			"/org/projectatomic/rpmostree1/" + st.booted().OSName}
	}
	return out
}

func writeStatusJSON(w io.Writer, s statusJSON) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// writeStatusText prints the human form of status, close to rpm-ostree's.
func writeStatusText(w io.Writer, s statusJSON, verbose bool) {
	if s.Transaction != nil {
		fmt.Fprintf(w, "State: busy\nTransaction: %s\n", s.Transaction[0])
	} else {
		fmt.Fprintln(w, "State: idle")
	}
	fmt.Fprintln(w, "Deployments:")
	for _, d := range s.Deployments {
		mark := " "
		if d.Booted {
			mark = "●"
		}
		origin := d.Origin
		if d.ContainerImageReference != "" {
			origin = d.ContainerImageReference
		}
		fmt.Fprintf(w, "%s %s\n", mark, origin)
		if d.ContainerImageReferenceDigest != "" {
			fmt.Fprintf(w, "%25s %s\n", "Digest:", d.ContainerImageReferenceDigest)
		}
		ts := time.Unix(d.Timestamp, 0).UTC().Format(time.RFC3339)
		fmt.Fprintf(w, "%25s %s (%s)\n", "Version:", d.Version, ts)
		if verbose || d.ContainerImageReference == "" {
			fmt.Fprintf(w, "%25s %s\n", "Commit:", d.Checksum)
		}
		if d.Staged {
			lock := ""
			if d.FinalizationLocked {
				lock = " (finalization locked)"
			}
			fmt.Fprintf(w, "%25s yes%s\n", "Staged:", lock)
		}
		if d.Pinned {
			fmt.Fprintf(w, "%25s yes\n", "Pinned:")
		}
		fmt.Fprintln(w)
	}
}
