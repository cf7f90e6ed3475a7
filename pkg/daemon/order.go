package daemon

import "fmt"

// UpdateOrder says when, within an update, the daemon pulls and stages the
// new OS.
type UpdateOrder string

const (
	// OrderStaged is tandem's order: the OS is staged (finalization-locked)
	// before anything disrupts the node, so the drain-to-uncordon window
	// holds only the file writes and the reboot. The zero value means this.
	OrderStaged UpdateOrder = "staged"
	// OrderStock is the order of a stock MCO daemon: on the grant it cordons
	// and drains first, then pulls and stages the OS, writes the files and
	// reboots, so the pull sits inside the disruption window. Like a stock
	// daemon it ignores stageConfig and never reports stagedConfig. It exists
	// as the baseline of `make bench-disruption` (cmd/bench-disruption), which
	// runs the same update in both orders; it is not meant for production.
	OrderStock UpdateOrder = "stock"
)

// UpdateOrders lists the accepted orders.
var UpdateOrders = []UpdateOrder{OrderStaged, OrderStock}

// ParseUpdateOrder accepts "staged" (or "") and "stock".
func ParseUpdateOrder(s string) (UpdateOrder, error) {
	switch UpdateOrder(s) {
	case "", OrderStaged:
		return OrderStaged, nil
	case OrderStock:
		return OrderStock, nil
	}
	return "", fmt.Errorf("unknown update order %q (want %v)", s, UpdateOrders)
}

// stock tells whether o runs the stock MCO order.
func (o Observed) stock() bool { return o.Order == OrderStock }
