package ostree

import (
	"errors"
	"fmt"
	"strings"
)

// Conditions callers act on. A CommandError matches them (errors.Is) by the
// message rpm-ostree printed.
var (
	// ErrNoStagedDeployment: there is no staged deployment to finalize.
	ErrNoStagedDeployment = errors.New("no staged deployment")
	// ErrChecksumMismatch: the staged deployment is not the one asked for;
	// nothing was changed.
	ErrChecksumMismatch = errors.New("staged deployment does not match the expected checksum")
	// ErrTransactionInProgress: another rpm-ostree transaction is running.
	ErrTransactionInProgress = errors.New("rpm-ostree transaction in progress")
	// ErrAlreadyUnlocked: the staged deployment was already unlocked.
	ErrAlreadyUnlocked = errors.New("staged deployment already unlocked")
	// ErrRebootBlocked: a systemd inhibitor lock in block mode stops the
	// reboot finalize-deployment would start; nothing was unlocked.
	ErrRebootBlocked = errors.New("reboot blocked by a systemd inhibitor lock")
	// ErrAlreadyBooted is returned by Stage when the booted deployment already
	// carries the image: there is nothing to stage.
	ErrAlreadyBooted = errors.New("image already booted")
)

// stderrMarker is what rpm-ostree prints for a condition.
func stderrMarker(target error) string {
	switch target {
	case ErrNoStagedDeployment:
		return "No pending staged deployment found"
	case ErrChecksumMismatch:
		return "Expected staged base checksum"
	case ErrTransactionInProgress:
		return "Transaction in progress"
	case ErrAlreadyUnlocked:
		return "Staged deployment already unlocked"
	case ErrRebootBlocked:
		return "Reboot blocked by a systemd inhibitor lock in `block` mode"
	}
	return ""
}

// CommandError is a failed rpm-ostree invocation.
type CommandError struct {
	// Args are the arguments (without the program name).
	Args []string
	// ExitCode is the exit status, -1 if the process was killed by a signal.
	ExitCode int
	// Stderr is what rpm-ostree printed on stderr.
	Stderr string
}

func (e *CommandError) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if msg == "" {
		msg = "(no output on stderr)"
	}
	return fmt.Sprintf("rpm-ostree %s: exit status %d: %s", strings.Join(e.Args, " "), e.ExitCode, msg)
}

// Is matches the sentinel conditions by rpm-ostree's messages.
func (e *CommandError) Is(target error) bool {
	marker := stderrMarker(target)
	return marker != "" && strings.Contains(e.Stderr, marker)
}
