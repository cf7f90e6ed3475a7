package iso

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/opencontainers/cgroups"
)

// procStartTime is a process's start time in clock ticks since boot
// (/proc/<pid>/stat field 22): with the pid, it names one process, so a
// restore never touches another that reused the pid.
func procStartTime(pid int) (string, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", fmt.Errorf("process %d: %w", pid, err)
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return "", fmt.Errorf("process %d: unreadable stat %q", pid, s)
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return "", fmt.Errorf("process %d: short stat %q", pid, s)
	}
	return f[19], nil // field 22 is the 20th after the command name
}

// sameProcess reports whether pid still names the process that started at
// start; false when it is gone (nothing left to restore).
func sameProcess(pid int, start string) bool {
	cur, err := procStartTime(pid)
	return err == nil && cur == start
}

// moveProcess puts a process back into the cgroup directory home; a
// process that is gone, or a cgroup that is, needs nothing.
func moveProcess(pid int, start, home string) error {
	if !sameProcess(pid, start) || !cgroups.PathExists(home) {
		return nil
	}
	if err := cgroups.WriteCgroupProc(home, pid); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("move %d back to %s: %w", pid, home, err)
	}
	return nil
}

// restoreProcessIOPrio gives every thread of a process the class p.
func restoreProcessIOPrio(pid int, start string, p IOPrio) error {
	if !sameProcess(pid, start) {
		return nil
	}
	return restoreThreadsIOPrio(pid, map[int]IOPrio{pid: p})
}
