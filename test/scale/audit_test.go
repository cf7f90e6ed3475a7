package scale

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Three audit.k8s.io/v1 events as kube-apiserver v0.34 writes them at
// Metadata level (trimmed to the fields the counts read): a daemon's patch,
// its get, and a patch turned away with 429.
const auditLines = `{"auditID":"1","stage":"ResponseComplete","verb":"patch","userAgent":"d/1","user":{"username":"tandem-daemon"},"objectRef":{"resource":"nodes"},"responseStatus":{"code":200},"stageTimestamp":"2026-12-02T06:30:00.000000Z"}
{"auditID":"2","stage":"ResponseComplete","verb":"get","userAgent":"d/1","user":{"username":"tandem-daemon"},"objectRef":{"resource":"nodes"},"responseStatus":{"code":200},"stageTimestamp":"2026-12-02T06:30:01.000000Z"}
{"auditID":"3","stage":"ResponseComplete","verb":"patch","userAgent":"d/1","user":{"username":"tandem-daemon"},"objectRef":{"resource":"nodes"},"responseStatus":{"code":429},"stageTimestamp":"2026-12-02T06:30:02.000000Z"}
`

// TestCountAuditRefusesARotatedLog: the counts come from one file; a file
// the apiserver rotated away would make them partial, so counting fails.
func TestCountAuditRefusesARotatedLog(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "audit.log")
	if err := os.WriteFile(log, []byte(auditLines), 0o644); err != nil {
		t.Fatal(err)
	}
	from, to := time.Date(2026, 12, 2, 6, 0, 0, 0, time.UTC), time.Date(2026, 12, 2, 7, 0, 0, 0, time.UTC)
	who := func(string) string { return "daemon" }
	counts, err := countAudit(log, from, to, who)
	if err != nil {
		t.Fatal(err)
	}
	if c := counts["daemon"]; c == nil || c.TotalWrites != 2 || c.TotalReads != 1 || c.FailedWrites != 1 || c.FailedByCode[429] != 1 {
		t.Fatalf("counts = %+v, want two writes (one failed with 429) and one read", counts["daemon"])
	}
	// lumberjack's backup name: <name>-<timestamp><ext>.
	if err := os.WriteFile(filepath.Join(dir, "audit-2026-12-02T06-29-59.000.log"), []byte(auditLines), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := countAudit(log, from, to, who); err == nil || !strings.Contains(err.Error(), "rotated") {
		t.Fatalf("countAudit with a rotated file beside the log: %v, want an error naming the rotation", err)
	}
}
