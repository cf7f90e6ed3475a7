package vm

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// StepHook is the host side of the daemon's test hook
// (cmd/machine-config-daemon/hook.go) across the xchg share: before each
// step the daemon in the guest writes "<pid> <seq> <point>" to hook/step and
// waits for "<pid> <seq>" in hook/ack. The hook acknowledges every step
// except one that a test holds (Hold), so the test can cut the power or
// kill the daemon at exactly that point. It only pauses; it never decides
// a step.
type StepHook struct {
	dir    string
	cancel context.CancelFunc
	done   chan struct{}

	mu     sync.Mutex
	seen   []string
	lastID string
	holds  []*hold
}

type hold struct {
	point string
	ch    chan string // gets the held step's id
}

func newStepHook(dir string) *StepHook { return &StepHook{dir: dir} }

// Hold arms a hold at the next time the daemon reaches point; the channel
// gets the step's id when it is held. The step stays held until Release
// (or until the daemon is gone).
func (h *StepHook) Hold(point string) <-chan string {
	h.mu.Lock()
	defer h.mu.Unlock()
	ho := &hold{point: point, ch: make(chan string, 1)}
	h.holds = append(h.holds, ho)
	return ho.ch
}

// Release acknowledges a held step.
func (h *StepHook) Release(id string) error {
	return os.WriteFile(filepath.Join(h.dir, "ack"), []byte(id+"\n"), 0o644)
}

// Steps are the points the daemon reached, in order.
func (h *StepHook) Steps() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.seen...)
}

// WaitHeld waits, up to bound, for a hold armed with Hold.
func (h *StepHook) WaitHeld(ctx context.Context, ch <-chan string, point string, bound time.Duration) (string, error) {
	select {
	case id := <-ch:
		return id, nil
	case <-ctx.Done():
		return "", ctx.Err()
	case <-time.After(bound):
		return "", fmt.Errorf("the daemon did not reach step %s within %s (steps so far: %v)", point, bound, h.Steps())
	}
}

func (h *StepHook) start() {
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel, h.done = cancel, make(chan struct{})
	go h.run(ctx)
}

func (h *StepHook) stop() {
	if h.cancel != nil {
		h.cancel()
		<-h.done
	}
}

func (h *StepHook) run(ctx context.Context) {
	defer close(h.done)
	t := time.NewTicker(20 * time.Millisecond)
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
		f := strings.Fields(string(b))
		if len(f) != 3 {
			continue
		}
		id, point := f[0]+" "+f[1], f[2]
		h.mu.Lock()
		if id == h.lastID {
			h.mu.Unlock()
			continue
		}
		h.lastID = id
		h.seen = append(h.seen, point)
		var held *hold
		for i, ho := range h.holds {
			if ho.point == point {
				held = ho
				h.holds = append(h.holds[:i], h.holds[i+1:]...)
				break
			}
		}
		h.mu.Unlock()
		if held != nil {
			held.ch <- id
			continue
		}
		_ = h.Release(id)
	}
}
