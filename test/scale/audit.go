package scale

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// The apiserver counts the requests: its audit log (audit.k8s.io/v1,
// Metadata level) records every request with its user, user agent, verb,
// resource and response code, which is what a per-component count needs.
// apiserver_request_total has no user label, so it only cross-checks totals.

// auditPolicy logs every request at Metadata level except the bench's own
// admin user's, which is also kwok's (the kubelets' heartbeats are not
// tandem's load) and the bench driver's. A watch is logged when it starts
// (ResponseStarted) and when it ends; other requests when they complete.
// With level Request the log also holds each write's body (to see what a
// write carried; the counts are the same).
func auditPolicy(level string) string {
	return `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: None
  users: ["` + adminUser + `"]
- level: ` + level + `
  verbs: ["create", "update", "patch", "delete", "deletecollection"]
- level: Metadata
`
}

// adminUser is test/framework's admin user (StartControlPlane).
const adminUser = "tandem-admin"

// auditFlags are the kube-apiserver flags that write the audit log.
func auditFlags(policyPath, logPath string) map[string]string {
	return map[string]string{
		"audit-policy-file": policyPath,
		"audit-log-path":    logPath,
		"audit-log-format":  "json",
		// One file must hold the run: 0 is not "no rotation" but
		// lumberjack's default of 100 MB (k8s.io/apiserver v0.34
		// pkg/server/options/audit.go getWriter; lumberjack.v2 Logger.max),
		// and a rotated log made a run count a tenth of its writes.
		"audit-log-maxsize":   "1000000",
		"audit-log-mode":      "blocking",
		"audit-log-maxbackup": "0",
	}
}

// auditEvent is the part of an audit.k8s.io/v1 Event the counts use
// (k8s.io/apiserver/pkg/apis/audit/v1 types.go, v0.34).
type auditEvent struct {
	AuditID   string `json:"auditID"`
	Stage     string `json:"stage"`
	Verb      string `json:"verb"`
	UserAgent string `json:"userAgent"`
	User      struct {
		Username string `json:"username"`
	} `json:"user"`
	ObjectRef *struct {
		Resource    string `json:"resource"`
		Subresource string `json:"subresource"`
		APIGroup    string `json:"apiGroup"`
	} `json:"objectRef"`
	ResponseStatus *struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
	StageTimestamp time.Time `json:"stageTimestamp"`
}

// writeVerbs change state; everything else reads.
var writeVerbs = map[string]bool{"create": true, "update": true, "patch": true, "delete": true, "deletecollection": true}

// RequestCounts counts one component's requests in a time window.
type RequestCounts struct {
	// Writes and Reads by "verb resource[/subresource]".
	Writes map[string]int `json:"writes"`
	Reads  map[string]int `json:"reads"`
	// TotalWrites and TotalReads sum them; Watches counts watch requests
	// started; FailedWrites are writes answered with a code >= 400
	// (Conflicts: 409 among them).
	TotalWrites  int `json:"total_writes"`
	TotalReads   int `json:"total_reads"`
	Watches      int `json:"watches"`
	FailedWrites int `json:"failed_writes"`
	Conflicts    int `json:"conflicts"`
	// FailedByCode counts the failed writes by response code (429: the
	// apiserver's priority and fairness turned it away).
	FailedByCode map[int]int `json:"failed_by_code,omitempty"`
	// Agents is the number of distinct user agents (daemons: nodes).
	Agents int `json:"agents"`
	agents map[string]bool
}

func newRequestCounts() *RequestCounts {
	return &RequestCounts{Writes: map[string]int{}, Reads: map[string]int{}, FailedByCode: map[int]int{}, agents: map[string]bool{}}
}

// countAudit reads an audit log and counts, per component (componentOf
// the user name), the requests that completed (watches: started) in
// [from, to].
func countAudit(path string, from, to time.Time, componentOf func(user string) string) (map[string]*RequestCounts, error) {
	// lumberjack names a rotated file <name>-<time><ext> beside it; the
	// counts would miss what it holds.
	ext := filepath.Ext(path)
	if rotated, _ := filepath.Glob(strings.TrimSuffix(path, ext) + "-*" + ext); len(rotated) > 0 {
		return nil, fmt.Errorf("audit log %s was rotated (%s): its counts would be partial", path, strings.Join(rotated, ", "))
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("opening audit log: %w", err)
	}
	defer f.Close()
	out := map[string]*RequestCounts{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var ev auditEvent
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			return nil, fmt.Errorf("audit log %s: %w", path, err)
		}
		watch := ev.Verb == "watch"
		if (watch && ev.Stage != "ResponseStarted") || (!watch && ev.Stage != "ResponseComplete" && ev.Stage != "Panic") {
			continue
		}
		if ev.StageTimestamp.Before(from) || ev.StageTimestamp.After(to) {
			continue
		}
		comp := componentOf(ev.User.Username)
		c := out[comp]
		if c == nil {
			c = newRequestCounts()
			out[comp] = c
		}
		key := ev.Verb + " " + resourceOf(ev)
		c.agents[ev.UserAgent] = true
		if writeVerbs[ev.Verb] {
			c.Writes[key]++
			c.TotalWrites++
			if ev.ResponseStatus != nil && ev.ResponseStatus.Code >= 400 {
				c.FailedWrites++
				c.FailedByCode[int(ev.ResponseStatus.Code)]++
				if ev.ResponseStatus.Code == 409 {
					c.Conflicts++
				}
			}
			continue
		}
		c.Reads[key]++
		c.TotalReads++
		if watch {
			c.Watches++
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading audit log %s: %w", path, err)
	}
	for _, c := range out {
		c.Agents = len(c.agents)
	}
	return out, nil
}

func resourceOf(ev auditEvent) string {
	r := ev.ObjectRef
	if r == nil {
		return "(non-resource)"
	}
	s := r.Resource
	if r.Subresource != "" {
		s += "/" + r.Subresource
	}
	return s
}

// topKeys lists a count map's keys, largest count first.
func topKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	return keys
}

// formatCounts renders "n verb resource, ..." per node.
func formatCounts(m map[string]int, perNode float64) string {
	var parts []string
	for _, k := range topKeys(m) {
		parts = append(parts, fmt.Sprintf("%s=%.2f", strings.ReplaceAll(k, " ", ":"), float64(m[k])/perNode))
	}
	return strings.Join(parts, " ")
}
