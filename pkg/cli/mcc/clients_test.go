package mcc

import (
	"testing"

	"k8s.io/client-go/rest"
)

// Each controller's client has a rate limiter of its own, at the flags'
// QPS: a shared one paced every controller by the busiest.
func TestClientsForHaveTheirOwnLimiters(t *testing.T) {
	cfg := &rest.Config{Host: "https://127.0.0.1:6443", QPS: 50, Burst: 100}
	a, amco, err := clientsFor(cfg, "node-controller")
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := clientsFor(cfg, "drain-controller")
	if err != nil {
		t.Fatal(err)
	}
	la, lb := a.CoreV1().RESTClient().GetRateLimiter(), b.CoreV1().RESTClient().GetRateLimiter()
	if la == nil || lb == nil {
		t.Fatalf("no rate limiter: %v, %v", la, lb)
	}
	if la == lb {
		t.Fatal("two controllers share one rate limiter")
	}
	if la.QPS() != 50 || amco.MachineconfigurationV1().RESTClient().GetRateLimiter().QPS() != 50 {
		t.Errorf("limiter QPS %v, want the flag's 50", la.QPS())
	}
	if cfg.UserAgent != "" || cfg.RateLimiter != nil {
		t.Errorf("clientsFor changed the shared config: user agent %q, limiter %v", cfg.UserAgent, cfg.RateLimiter)
	}
}
