package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPrepareWorkDirClearsWhatARunLeft(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "w")
	cleared, err := prepareWorkDir(dir)
	if err != nil || cleared {
		t.Fatalf("fresh dir: cleared=%v err=%v", cleared, err)
	}
	// What a killed run leaves: a node root naming the new config.
	stale := filepath.Join(dir, "tenant", "nodes", "worker-00003", "etc", "currentconfig")
	if err := os.MkdirAll(filepath.Dir(stale), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(stale, []byte("rendered-worker-new"), 0o644); err != nil {
		t.Fatal(err)
	}
	cleared, err = prepareWorkDir(dir)
	if err != nil || !cleared {
		t.Fatalf("left dir: cleared=%v err=%v", cleared, err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Fatalf("the last run's node root is still there (stat: %v)", err)
	}
	if _, err := os.Stat(filepath.Join(dir, workDirMarker)); err != nil {
		t.Fatalf("the cleared dir is not marked: %v", err)
	}
}

func TestPrepareWorkDirRefusesSomeoneElsesDir(t *testing.T) {
	dir := t.TempDir()
	keep := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(keep, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := prepareWorkDir(dir)
	if err == nil || !strings.Contains(err.Error(), "not made by bench-scale") {
		t.Fatalf("want a refusal, got %v", err)
	}
	if _, err := os.Stat(keep); err != nil {
		t.Fatalf("a refused dir lost its file: %v", err)
	}
}

func TestPrepareWorkDirTakesAnEmptyDir(t *testing.T) {
	dir := t.TempDir()
	if cleared, err := prepareWorkDir(dir); err != nil || cleared {
		t.Fatalf("empty dir: cleared=%v err=%v", cleared, err)
	}
	if _, err := os.Stat(filepath.Join(dir, workDirMarker)); err != nil {
		t.Fatalf("not marked: %v", err)
	}
}
