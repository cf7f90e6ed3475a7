package osdouble

import (
	"fmt"
	"io"
	"os"
	"strings"
)

// Progress is the content of <run>/rpm-ostree/progress.json, rewritten
// (temporary file + rename, so readers never see half of it) when a pull
// starts, after every layer, every progressEvery bytes written, and when the
// transaction ends. Fields:
//
//	transaction     "rebase", "deploy" or "init"
//	image           the image reference being pulled (without transport)
//	manifestDigest  its manifest digest
//	phase           "pulling", "committing", "staging", "done" or "failed"
//	layersTotal     layers to fetch (0 when the image was already in the repo)
//	layersDone      layers fetched and written
//	bytesTotal      compressed bytes to fetch (sum of the layer sizes)
//	bytesFetched    compressed bytes fetched so far
//	bytesWritten    bytes of objects written to disk so far
//	objectsWritten  objects written
//	objectsSkipped  objects already present (not written)
//	perObjectFsync  whether each object was fsynced
//	error           the error, when phase is "failed"
//	pid             the rpm-ostree process
type Progress struct {
	Transaction    string `json:"transaction"`
	Image          string `json:"image,omitempty"`
	ManifestDigest string `json:"manifestDigest,omitempty"`
	Phase          string `json:"phase"`
	LayersTotal    int    `json:"layersTotal"`
	LayersDone     int    `json:"layersDone"`
	BytesTotal     int64  `json:"bytesTotal"`
	BytesFetched   int64  `json:"bytesFetched"`
	BytesWritten   int64  `json:"bytesWritten"`
	ObjectsWritten int64  `json:"objectsWritten"`
	ObjectsSkipped int64  `json:"objectsSkipped"`
	PerObjectFsync bool   `json:"perObjectFsync"`
	Error          string `json:"error,omitempty"`
	PID            int    `json:"pid"`
}

// Progress phases.
const (
	PhasePulling    = "pulling"
	PhaseCommitting = "committing"
	PhaseStaging    = "staging"
	PhaseDone       = "done"
	PhaseFailed     = "failed"
)

// progressEvery is how many written bytes pass between two progress file updates.
const progressEvery = 16 << 20

// ReadProgress reads a node's progress file; nil if there is none.
func ReadProgress(run string) (*Progress, error) {
	var p Progress
	found, err := readJSON(ProgressFile(run), &p)
	if err != nil || !found {
		return nil, err
	}
	return &p, nil
}

// reporter prints rpm-ostree's progress lines and keeps the progress file.
type reporter struct {
	out         io.Writer
	path        string // "" for no progress file
	p           Progress
	lastWritten int64
	taskOpen    bool
}

func newReporter(out io.Writer, path, transaction string) *reporter {
	return &reporter{out: out, path: path, p: Progress{Transaction: transaction, PID: os.Getpid()}}
}

// message prints a line, as rpm-ostree's output_message does.
func (r *reporter) message(format string, args ...any) {
	r.endTask("")
	fmt.Fprintf(r.out, format+"\n", args...)
}

// beginTask prints "msg..." and leaves the line open until endTask, as
// rpm-ostree's progress tasks do when stdout is not a terminal.
func (r *reporter) beginTask(format string, args ...any) {
	r.endTask("")
	fmt.Fprintf(r.out, format+"...", args...)
	r.taskOpen = true
}

func (r *reporter) endTask(result string) {
	if !r.taskOpen {
		return
	}
	r.taskOpen = false
	fmt.Fprintln(r.out, result)
}

// save rewrites the progress file; errors are ignored because progress is
// advisory and must never fail a transaction.
func (r *reporter) save() {
	if r.path == "" {
		return
	}
	_ = writeJSONAtomic(r.path, r.p, false)
}

// written is called after each object; it saves every progressEvery bytes.
func (r *reporter) written(stats writeStats) {
	r.p.BytesWritten = stats.BytesWritten
	r.p.ObjectsWritten = stats.ObjectsWritten
	r.p.ObjectsSkipped = stats.ObjectsSkipped
	if r.p.BytesWritten-r.lastWritten >= progressEvery {
		r.lastWritten = r.p.BytesWritten
		r.save()
	}
}

func (r *reporter) finish(err error) {
	if err != nil {
		r.endTask("failed")
		r.p.Phase = PhaseFailed
		r.p.Error = err.Error()
	} else {
		r.endTask("done")
		r.p.Phase = PhaseDone
	}
	r.save()
}

// formatSize formats a byte count like GLib's g_format_size (SI units), which
// rpm-ostree uses in its messages.
func formatSize(n int64) string {
	const unit = 1000
	if n < unit {
		if n == 1 {
			return "1 byte"
		}
		return fmt.Sprintf("%d bytes", n)
	}
	units := []string{"kB", "MB", "GB", "TB", "PB"}
	v := float64(n) / unit
	i := 0
	for v >= unit && i < len(units)-1 {
		v /= unit
		i++
	}
	return strings.TrimSpace(fmt.Sprintf("%.1f %s", v, units[i]))
}
