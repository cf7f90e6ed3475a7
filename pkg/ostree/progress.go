package ostree

import (
	"strconv"
	"strings"
)

// StageProgress is how far a pull has come, as read from rpm-ostree's output
// lines ("ostree chunk layers needed: 4 (1.2 GB)", "[0/4] Fetching ostree
// chunk sha256:... (300 MB)...done"). Sizes are as precise as rpm-ostree
// prints them (three significant digits).
type StageProgress struct {
	// Line is the output line this update comes from.
	Line        string
	LayersTotal int
	LayersDone  int
	BytesTotal  int64
	BytesDone   int64
}

// progressParser accumulates StageProgress over output lines.
type progressParser struct {
	p StageProgress
}

// feed reads one line; ok is false when the line says nothing about progress.
func (pp *progressParser) feed(line string) (StageProgress, bool) {
	line = strings.TrimSpace(line)
	for _, prefix := range []string{"ostree chunk layers needed:", "custom layers needed:"} {
		if rest, ok := strings.CutPrefix(line, prefix); ok {
			n, size, ok := countAndSize(rest)
			if !ok {
				return pp.p, false
			}
			pp.p.LayersTotal += n
			pp.p.BytesTotal += size
			pp.p.Line = line
			return pp.p, true
		}
	}
	if strings.HasPrefix(line, "[") && (strings.Contains(line, "Fetching ostree chunk ") || strings.Contains(line, "Fetching layer ")) {
		if !strings.HasSuffix(line, "done") {
			return pp.p, false
		}
		if size, ok := parseSize(parenthesized(line)); ok {
			pp.p.BytesDone += size
		}
		pp.p.LayersDone++
		pp.p.Line = line
		return pp.p, true
	}
	return pp.p, false
}

// countAndSize parses " 4 (1.2 GB)".
func countAndSize(s string) (int, int64, bool) {
	s = strings.TrimSpace(s)
	num, rest, _ := strings.Cut(s, " ")
	n, err := strconv.Atoi(num)
	if err != nil {
		return 0, 0, false
	}
	size, ok := parseSize(parenthesized(rest))
	return n, size, ok
}

// parenthesized returns the text inside the last "(...)" of s.
func parenthesized(s string) string {
	end := strings.LastIndex(s, ")")
	if end < 0 {
		return ""
	}
	start := strings.LastIndex(s[:end], "(")
	if start < 0 {
		return ""
	}
	return s[start+1 : end]
}

// parseSize parses sizes as GLib's g_format_size prints them ("1 byte",
// "12 bytes", "1.2 kB", "3.4 MB", "1.0 GB") and their IEC forms ("1.0 MiB").
func parseSize(s string) (int64, bool) {
	s = strings.ReplaceAll(strings.TrimSpace(s), "\u00a0", " ")
	num, unit, _ := strings.Cut(s, " ")
	v, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, false
	}
	mult := map[string]float64{
		"byte": 1, "bytes": 1, "B": 1,
		"kB": 1e3, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12,
		"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40,
	}[unit]
	if mult == 0 {
		return 0, false
	}
	return int64(v * mult), true
}
