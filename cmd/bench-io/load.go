package main

import (
	"os"
	"strconv"
	"strings"
)

// hostLoad is how busy the machine was: the 1-minute load average and the
// share of the last 10 s in which some task waited for I/O (PSI), so that a
// figure recorded on a shared machine says so.
type hostLoad struct {
	LoadAvg1  float64 `json:"loadAvg1"`
	IOSomeP10 float64 `json:"ioPressureSomeAvg10,omitempty"`
}

func readHostLoad() hostLoad {
	var l hostLoad
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(b)); len(f) > 0 {
			l.LoadAvg1, _ = strconv.ParseFloat(f[0], 64)
		}
	}
	// "some avg10=1.23 avg60=... total=..." (Documentation/accounting/psi.rst)
	if b, err := os.ReadFile("/proc/pressure/io"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			f := strings.Fields(line)
			if len(f) < 2 || f[0] != "some" {
				continue
			}
			if v, ok := strings.CutPrefix(f[1], "avg10="); ok {
				l.IOSomeP10, _ = strconv.ParseFloat(v, 64)
			}
		}
	}
	return l
}
