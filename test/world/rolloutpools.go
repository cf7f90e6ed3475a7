package world

// unchangedPools is the set of pools ("cluster/pool") a rollout with
// RolloutOptions.Pools leaves alone; nil when it updates every pool.
func (o RolloutOptions) unchangedPools(w *World) map[string]bool {
	if len(o.Pools) == 0 {
		return nil
	}
	update := map[string]bool{}
	for _, p := range o.Pools {
		update[p] = true
	}
	out := map[string]bool{}
	for _, c := range []*Cluster{w.Tenant, w.Infra} {
		for pool := range c.Pools {
			if key := c.Name + "/" + pool; !update[key] {
				out[key] = true
			}
		}
	}
	return out
}
