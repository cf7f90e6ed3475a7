// Package metrics defines tandem's Prometheus metrics. Each component builds
// its own set on a registry it is given (no package-level registration), so
// tests and several controllers in one process do not collide.
package metrics
