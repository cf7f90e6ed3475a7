package iso

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// IOClass is a Linux I/O scheduling class (ioprio_set(2)).
type IOClass int

// The classes of ioprio_set(2). golang.org/x/sys/unix has the syscall numbers
// but not these constants.
const (
	IOClassNone       IOClass = 0
	IOClassRealtime   IOClass = 1
	IOClassBestEffort IOClass = 2
	IOClassIdle       IOClass = 3
)

const (
	ioprioClassShift = 13
	ioprioWhoProcess = 1 // one thread (a tid), despite the name
	ioprioWhoPgrp    = 2 // every thread of every process in a process group
)

func (c IOClass) String() string {
	switch c {
	case IOClassNone:
		return "none"
	case IOClassRealtime:
		return "realtime"
	case IOClassBestEffort:
		return "best-effort"
	case IOClassIdle:
		return "idle"
	}
	return "class" + strconv.Itoa(int(c))
}

// IOPrio is an I/O class and, for best-effort and realtime, a level 0
// (highest) to 7 (lowest).
type IOPrio struct {
	Class IOClass
	Level int
}

// Idle is the class that gets the disk only when no one else wants it.
var Idle = IOPrio{Class: IOClassIdle}

// BestEffort returns the best-effort class at a level 0..7.
func BestEffort(level int) IOPrio { return IOPrio{Class: IOClassBestEffort, Level: level} }

func (p IOPrio) String() string {
	if p.Class == IOClassIdle || p.Class == IOClassNone {
		return p.Class.String()
	}
	return fmt.Sprintf("%s/%d", p.Class, p.Level)
}

func (p IOPrio) value() (uintptr, error) {
	if p.Class < IOClassNone || p.Class > IOClassIdle {
		return 0, fmt.Errorf("invalid I/O class %d", p.Class)
	}
	if p.Level < 0 || p.Level > 7 {
		return 0, fmt.Errorf("invalid I/O priority level %d (0..7)", p.Level)
	}
	return uintptr(int(p.Class)<<ioprioClassShift | p.Level), nil
}

func ioprioFromValue(v int) IOPrio {
	return IOPrio{Class: IOClass(v >> ioprioClassShift), Level: v & ((1 << ioprioClassShift) - 1)}
}

func ioprioSet(which, who int, p IOPrio) error {
	v, err := p.value()
	if err != nil {
		return err
	}
	if _, _, errno := unix.Syscall(unix.SYS_IOPRIO_SET, uintptr(which), uintptr(who), v); errno != 0 {
		return errno
	}
	return nil
}

// GetThreadIOPrio reads the I/O priority of one thread (tid).
func GetThreadIOPrio(tid int) (IOPrio, error) {
	r, _, errno := unix.Syscall(unix.SYS_IOPRIO_GET, ioprioWhoProcess, uintptr(tid), 0)
	if errno != 0 {
		return IOPrio{}, fmt.Errorf("ioprio_get(%d): %w", tid, errno)
	}
	return ioprioFromValue(int(r)), nil
}

// SetProcessGroupIOPrio sets p on every thread of every process in process
// group pgid. Threads and processes created later inherit it from whichever
// thread creates them.
//
// Why a process group: ioprio_set(IOPRIO_WHO_PROCESS, pid) changes one
// thread only, and a Go (or any threaded) child has many. Starting the child
// with Setpgid and setting IOPRIO_WHO_PGRP reaches all of them, and its
// helper processes too, without pinning a thread of ours at a low priority.
func SetProcessGroupIOPrio(pgid int, p IOPrio) error {
	if err := ioprioSet(ioprioWhoPgrp, pgid, p); err != nil {
		return fmt.Errorf("ioprio_set(pgrp %d, %s): %w", pgid, p, err)
	}
	return nil
}

// SetThreadIOPrio sets p on one thread.
func SetThreadIOPrio(tid int, p IOPrio) error {
	if err := ioprioSet(ioprioWhoProcess, tid, p); err != nil {
		return fmt.Errorf("ioprio_set(tid %d, %s): %w", tid, p, err)
	}
	return nil
}

// Threads lists the thread ids of a process.
func Threads(pid int) ([]int, error) {
	entries, err := os.ReadDir(filepath.Join("/proc", strconv.Itoa(pid), "task"))
	if err != nil {
		return nil, fmt.Errorf("list threads of %d: %w", pid, err)
	}
	tids := make([]int, 0, len(entries))
	for _, e := range entries {
		if tid, err := strconv.Atoi(e.Name()); err == nil {
			tids = append(tids, tid)
		}
	}
	return tids, nil
}

// ApplyIOPrio gives p to a child started in its own process group (pgid ==
// pid), then checks every thread it has and fixes any that a thread
// creation racing with the group-wide call left behind.
func ApplyIOPrio(pid int, p IOPrio) error {
	if err := SetProcessGroupIOPrio(pid, p); err != nil {
		return err
	}
	for pass := 0; pass < 3; pass++ {
		tids, err := Threads(pid)
		if err != nil {
			return err
		}
		fixed := 0
		for _, tid := range tids {
			got, err := GetThreadIOPrio(tid)
			if err != nil {
				continue // the thread exited
			}
			if got != p {
				if err := SetThreadIOPrio(tid, p); err == nil {
					fixed++
				}
			}
		}
		if fixed == 0 {
			return nil
		}
	}
	return nil
}

// setThreadsIOPrio gives p to every thread of a running process that was
// not started in its own process group, and returns their classes before.
// Threads it creates later inherit the class of the thread that creates
// them; a few passes catch those created meanwhile.
func setThreadsIOPrio(pid int, p IOPrio) (map[int]IOPrio, error) {
	orig := map[int]IOPrio{}
	for pass := 0; pass < 3; pass++ {
		tids, err := Threads(pid)
		if err != nil {
			return orig, err
		}
		changed := 0
		for _, tid := range tids {
			got, err := GetThreadIOPrio(tid)
			if err != nil {
				continue // the thread exited
			}
			if _, seen := orig[tid]; !seen {
				orig[tid] = got
			}
			if got != p {
				if err := SetThreadIOPrio(tid, p); err != nil {
					return orig, err
				}
				changed++
			}
		}
		if changed == 0 {
			break
		}
	}
	return orig, nil
}

// restoreThreadsIOPrio puts back the classes setThreadsIOPrio found; a
// thread born since gets the main thread's. Like setThreadsIOPrio it passes
// over the threads until one pass changes nothing: a thread cloned during a
// pass by a thread not restored yet inherits the lowered class (seen: one
// of a Go process's threads left idle, TestApplyToProcessIOPrio).
func restoreThreadsIOPrio(pid int, orig map[int]IOPrio) error {
	var errs []error
	for pass := 0; pass < 5; pass++ {
		tids, err := Threads(pid)
		if err != nil {
			return errors.Join(append(errs, err)...)
		}
		errs = errs[:0]
		changed := 0
		for _, tid := range tids {
			want, ok := orig[tid]
			if !ok {
				want = orig[pid]
			}
			got, err := GetThreadIOPrio(tid)
			if err != nil {
				continue // the thread exited
			}
			if got == want {
				continue
			}
			if err := SetThreadIOPrio(tid, want); err != nil {
				errs = append(errs, err)
				continue
			}
			changed++
		}
		if changed == 0 {
			break
		}
	}
	return errors.Join(errs...)
}
