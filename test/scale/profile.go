package scale

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
)

// startProfile takes the tenant controller's CPU profile of the first
// ProfileSeconds of the rollout into ControllerProfile, from the pprof
// handlers --profiling serves next to the metrics. The returned function
// waits for it and reports its error; without ControllerProfile both do
// nothing.
func (w *World) startProfile(ctx context.Context) func() error {
	path := w.opts.ControllerProfile
	if path == "" {
		return func() error { return nil }
	}
	secs := w.opts.ProfileSeconds
	if secs <= 0 {
		secs = 60
	}
	url := strings.TrimSuffix(w.tenant.metricsURL, "/metrics") + fmt.Sprintf("/debug/pprof/profile?seconds=%d", secs)
	done := make(chan error, 1)
	go func() { done <- fetchTo(ctx, url, path) }()
	w.opts.Logf("bench-scale: profiling the tenant controller for %d s into %s", secs, path)
	return func() error {
		if err := <-done; err != nil {
			return fmt.Errorf("controller profile: %w", err)
		}
		return nil
	}
}

func fetchTo(ctx context.Context, url, path string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("GET %s: %s: %s", url, resp.Status, b)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}
