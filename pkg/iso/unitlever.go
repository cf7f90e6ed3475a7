package iso

import (
	"context"
)

// restoreUnitIO lifts a unit's write limit on a device and sets its
// IOWeight back, over a fresh D-Bus connection: the one the session had may
// be gone with the process that held it.
func restoreUnitIO(ctx context.Context, unit, device string, weight uint64) error {
	u, err := NewUnitIO(ctx, unit, device)
	if err != nil {
		return err
	}
	u.prevWeight = weight
	return u.Close(ctx)
}
