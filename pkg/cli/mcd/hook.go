package mcd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tandem-mco/tandem/pkg/daemon"
	"github.com/tandem-mco/tandem/pkg/daemon/files"
)

// EnvTestHookDir enables the step hook used by crash tests: before each
// step the daemon writes "<pid> <seq> <point>" to <dir>/step and waits
// until <dir>/ack holds "<pid> <seq>". The harness (test/framework's
// SimNode) acknowledges, or kills the daemon while it is held.
const EnvTestHookDir = "TANDEM_DAEMON_TEST_HOOK_DIR"

// fileHook implements daemon.Hook over the files above.
func fileHook(dir string) daemon.Hook {
	seq := 0
	pid := os.Getpid()
	return func(ctx context.Context, point string) error {
		seq++
		id := fmt.Sprintf("%d %d", pid, seq)
		if err := files.WriteFileAtomic(filepath.Join(dir, "step"), []byte(id+" "+point+"\n"), 0o644, -1, -1); err != nil {
			return fmt.Errorf("test hook: %w", err)
		}
		ack := filepath.Join(dir, "ack")
		for {
			if b, err := os.ReadFile(ack); err == nil && strings.TrimSpace(string(b)) == id {
				return nil
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(2 * time.Millisecond):
			}
		}
	}
}
