package osdouble

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
)

// statusDeployment is one entry of `rpm-ostree status --json`, with the field
// names, types and presence rules of the profile's rpm-ostree
// (rpmostreed-deployment-utils.cxx rpmostreed_deployment_generate_variant
// and rust/src/daemon.rs deployment_populate_variant):
//   - finalization-locked only when true, and only from the legacy lock file
//     (daemon.rs checks /run/ostree/staged-deployment-locked alone, "XXX"
//     comment), so from 2024.6 on a locked deployment does not show it;
//   - origin only for non-container deployments; container-image-reference
//     for container ones, with container-image-reference-digest and version
//     only when the image can be queried (non-fatal since issue #4185);
//   - pending-base-* only for ostree-remote refspecs whose ref moved
//     (never on the double's deployments);
//   - the package lists always, the module lists only before 2024.7;
//   - for a layered deployment, base-checksum, base-timestamp, base-version
//     (when the base commit has one) and layered-commit-meta, with checksum
//     and timestamp those of the layered commit; packages are the layered
//     commit's active requests, base-removals its removed base packages as
//     [nevra, name, epoch, version, release, arch] (rpm-ostree's (sstsss)).
type statusDeployment struct {
	ID                             string         `json:"id"`
	OSName                         string         `json:"osname"`
	Serial                         int            `json:"serial"`
	Checksum                       string         `json:"checksum"`
	BaseChecksum                   string         `json:"base-checksum,omitempty"`
	BaseTimestamp                  int64          `json:"base-timestamp,omitempty"`
	BaseVersion                    string         `json:"base-version,omitempty"`
	LayeredCommitMeta              map[string]any `json:"layered-commit-meta,omitempty"`
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
	RegenerateInitramfs            bool           `json:"regenerate-initramfs"`
	RequestedPackages              []string       `json:"requested-packages"`
	RequestedLocalPackages         []string       `json:"requested-local-packages"`
	RequestedLocalFileoverridePkgs []string       `json:"requested-local-fileoverride-packages"`
	RequestedBaseRemovals          []string       `json:"requested-base-removals"`
	RequestedBaseLocalReplacements []string       `json:"requested-base-local-replacements"`
	RequestedModules               []string       `json:"requested-modules,omitempty"`
	RequestedModulesEnabled        []string       `json:"requested-modules-enabled,omitempty"`
	Packages                       []string       `json:"packages"`
	BaseRemovals                   []any          `json:"base-removals"`
	BaseLocalReplacements          []string       `json:"base-local-replacements"`
	BaseRemoteReplacements         map[string]any `json:"base-remote-replacements"`
	Modules                        []string       `json:"modules,omitempty"`
}

// MarshalJSON writes the module lists, empty, on the profiles that have them.
func (d statusDeployment) MarshalJSON() ([]byte, error) {
	type plain statusDeployment
	b, err := json.Marshal(plain(d))
	if err != nil || d.RequestedModules == nil {
		return b, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	for _, k := range []string{"requested-modules", "requested-modules-enabled", "modules"} {
		m[k] = []string{}
	}
	return json.Marshal(m)
}

type statusJSON struct {
	Deployments  []statusDeployment `json:"deployments"`
	Transaction  []string           `json:"transaction"`
	CachedUpdate any                `json:"cached-update"`
	UpdateDriver any                `json:"update-driver"`
}

// statusView is what status needs besides the node state.
type statusView struct {
	prof          Profile
	noImageDigest bool
}

func (v statusView) deployment(d *Deployment, booted, staged, legacyLocked bool) statusDeployment {
	empty := []string{}
	sd := statusDeployment{
		ID: d.ID(), OSName: d.OSName, Serial: d.Serial, Checksum: d.Checksum,
		Timestamp: d.Timestamp, Booted: booted, Staged: staged, FinalizationLocked: staged && legacyLocked,
		Pinned: d.Pinned, Unlocked: "none", BaseCommitMeta: d.CommitMeta,
		RequestedPackages: empty, RequestedLocalPackages: empty, RequestedLocalFileoverridePkgs: empty,
		RequestedBaseRemovals: empty, RequestedBaseLocalReplacements: empty,
		Packages: empty, BaseRemovals: []any{}, BaseLocalReplacements: empty,
		BaseRemoteReplacements: map[string]any{},
	}
	if len(d.RequestedPackages) > 0 {
		sd.RequestedPackages = d.RequestedPackages
	}
	if len(d.RequestedBaseRemovals) > 0 {
		sd.RequestedBaseRemovals = d.RequestedBaseRemovals
	}
	if d.IsLayered() {
		sd.BaseChecksum, sd.BaseTimestamp, sd.LayeredCommitMeta = d.BaseChecksum, d.BaseTimestamp, d.LayeredCommitMeta
		if v, ok := d.CommitMeta["version"].(string); ok {
			sd.BaseVersion = v
		}
		if len(d.LayeredPackages) > 0 {
			sd.Packages = d.LayeredPackages
		}
		for _, p := range d.RemovedBasePackages {
			sd.BaseRemovals = append(sd.BaseRemovals, p.statusTuple())
		}
	}
	if v.prof.ModuleFields {
		sd.RequestedModules, sd.RequestedModulesEnabled, sd.Modules = empty, empty, empty
	}
	if sd.BaseCommitMeta == nil {
		sd.BaseCommitMeta = map[string]any{}
	}
	if d.IsContainer() {
		sd.ContainerImageReference = d.Origin
		if !v.noImageDigest {
			sd.ContainerImageReferenceDigest = d.ImageDigest
			sd.Version = d.Version
		}
	} else {
		sd.Origin = d.Origin
		sd.Version = d.Version
	}
	return sd
}

// renderStatus builds status as rpm-ostree shows it: the staged deployment
// first, then the bootloader's deployments, booted first.
func (v statusView) render(st *nodeState, txn *transactionRecord, bootedOnly bool) statusJSON {
	out := statusJSON{Deployments: []statusDeployment{}}
	if st.staged != nil && !bootedOnly {
		out.Deployments = append(out.Deployments, v.deployment(st.staged, false, true, st.legacyLocked))
	}
	// Every deployment in the sysroot's order, "booted" on the one the node
	// booted (rust/src/daemon.rs and rpmostreed-sysroot.cxx list
	// ostree_sysroot_get_deployments; the booted one is found by the boot
	// record, not by its place in the list).
	bootedID := st.booted().ID()
	for i := range st.boot.Deployments {
		d := &st.boot.Deployments[i]
		if bootedOnly && d.ID() != bootedID {
			continue
		}
		out.Deployments = append(out.Deployments, v.deployment(d, d.ID() == bootedID, false, false))
	}
	if txn != nil {
		out.Transaction = []string{txn.Title, fmt.Sprintf("client(id:%s pid:%d)", txn.ClientID, txn.ClientPID),
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
			if d.BaseChecksum != "" {
				fmt.Fprintf(w, "%25s %s\n", "BaseCommit:", d.BaseChecksum)
			}
			fmt.Fprintf(w, "%25s %s\n", "Commit:", d.Checksum)
		}
		if len(d.BaseRemovals) > 0 {
			var names []string
			for _, r := range d.BaseRemovals {
				names = append(names, fmt.Sprint(r.([]any)[0]))
			}
			fmt.Fprintf(w, "%25s %s\n", "RemovedBasePackages:", strings.Join(names, " "))
		}
		if len(d.Packages) > 0 {
			fmt.Fprintf(w, "%25s %s\n", "LayeredPackages:", strings.Join(d.Packages, " "))
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
