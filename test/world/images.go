package world

import (
	"context"
	"fmt"
	"os"

	"github.com/tandem-mco/tandem/test/osimage"
)

func (w *World) startImages(ctx context.Context) error {
	if err := os.MkdirAll(w.path("synth"), 0o755); err != nil {
		return fmt.Errorf("synth dir: %w", err)
	}
	var err error
	if w.Registry, err = osimage.StartRegistry(ctx, w.path("registry")); err != nil {
		return err
	}
	for i := range w.Images {
		ref, err := osimage.Synthesize(ctx, osimage.SynthOptions{
			Registry:  w.Registry,
			Repo:      "rhcos",
			Version:   i + 1,
			SizeBytes: w.Opts.ImageBytes,
			WorkDir:   w.path("synth"),
		})
		if err != nil {
			return fmt.Errorf("synthesizing OS image %d: %w", i+1, err)
		}
		w.Images[i] = ref
		w.Opts.Logf("world:   image %d: %s (%d MiB)", i+1, ref, w.Opts.ImageBytes>>20)
	}
	w.baseImage = w.Images[0]
	return nil
}

// image returns OS image version v (1-based), synthesizing it when it is
// past the world's first two.
func (w *World) image(ctx context.Context, v int) (string, error) {
	if v >= 1 && v <= len(w.Images) {
		return w.Images[v-1], nil
	}
	if ref, ok := w.images[v]; ok {
		return ref, nil
	}
	ref, err := osimage.Synthesize(ctx, osimage.SynthOptions{
		Registry: w.Registry, Repo: "rhcos", Version: v, SizeBytes: w.Opts.ImageBytes, WorkDir: w.path("synth"),
	})
	if err != nil {
		return "", fmt.Errorf("synthesizing OS image %d: %w", v, err)
	}
	if w.images == nil {
		w.images = map[int]string{}
	}
	w.images[v] = ref
	w.Opts.Logf("world:   image %d: %s (%d MiB)", v, ref, w.Opts.ImageBytes>>20)
	return ref, nil
}
