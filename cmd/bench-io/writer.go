package main

import (
	"context"

	"github.com/tandem-mco/tandem/test/osdouble"
)

// writer is the process that writes a stage: in production rpm-ostreed, the
// transaction daemon the CLI asks over D-Bus. The policy's per-process knobs
// (the cgroup, through iso.Options.WriterPID) go on it, not on the CLI.
type writer interface {
	// kind names it in the report ("cli-child", "daemon").
	kind() string
	// pid finds the writing process for iso.Options.WriterPID; nil when the
	// CLI child writes itself (the session's Hook then acts on it).
	pid() func(context.Context) (int, error)
	stop()
}

// cliWriter: this double's CLI writes the stage in its own process.
type cliWriter struct{}

func (cliWriter) kind() string                            { return "cli-child" }
func (cliWriter) pid() func(context.Context) (int, error) { return nil }
func (cliWriter) stop()                                   {}

// startWriter starts what writes a stage on node.
func startWriter(_ context.Context, _ string, _ osdouble.Node, _ string) (writer, error) {
	return cliWriter{}, nil
}
