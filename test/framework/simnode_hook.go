package framework

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// stepHook is the harness side of the daemon's test hook (see
// cmd/machine-config-daemon/hook.go): the daemon writes "<pid> <seq> <point>"
// to <dir>/step and waits for "<pid> <seq>" in <dir>/ack.
type stepHook struct {
	dir string

	mu     sync.Mutex
	seen   []string       // points reached, in order
	count  map[string]int // times each point was reached
	lastID string
	held   string // id of the step being held, if any
	arms   []*hookArm
}

type hookArm struct {
	point      string
	occurrence int
	ch         chan struct{}
}

func newStepHook(dir string) *stepHook {
	return &stepHook{dir: dir, count: map[string]int{}}
}

func (h *stepHook) holdAt(point string, occurrence int) <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	a := &hookArm{point: point, occurrence: occurrence, ch: make(chan struct{})}
	h.arms = append(h.arms, a)
	return a.ch
}

// release forgets a held step: its daemon is gone, a new one will come.
func (h *stepHook) release() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.held = ""
}

func (h *stepHook) steps() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.seen...)
}

func (h *stepHook) run(ctx context.Context, wg *sync.WaitGroup) {
	defer wg.Done()
	t := time.NewTicker(2 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		b, err := os.ReadFile(filepath.Join(h.dir, "step"))
		if err != nil {
			continue
		}
		fields := strings.Fields(string(b))
		if len(fields) != 3 {
			continue
		}
		id, point := fields[0]+" "+fields[1], fields[2]
		h.mu.Lock()
		if id == h.lastID {
			h.mu.Unlock()
			continue
		}
		h.lastID = id
		h.seen = append(h.seen, point)
		h.count[point]++
		hold := false
		for i, a := range h.arms {
			if a.point == point && a.occurrence == h.count[point] {
				h.arms = append(h.arms[:i], h.arms[i+1:]...)
				h.held = id
				close(a.ch)
				hold = true
				break
			}
		}
		h.mu.Unlock()
		if !hold {
			_ = os.WriteFile(filepath.Join(h.dir, "ack"), []byte(id+"\n"), 0o644)
		}
	}
}
