#!/usr/bin/env bash
# Reads `go test -v` output and prints what a person needs: package results,
# one line per top-level test, failed and skipped subtests, test messages,
# and the figure lines tests print ("name: key=value ...", a value bare or
# Go-quoted with %q, spaces inside), so a passing run stays readable.
exec grep --line-buffered -E \
	'^(ok|FAIL|--- PASS|--- FAIL|--- SKIP|panic:|fatal error:)|^[[:space:]]+(--- FAIL|--- SKIP|[[:alnum:]_]+\.go:[0-9]+: )|([a-z][a-z0-9-]*: ([a-z_0-9]+=("([^"\\]|\\.)*"|[^ "]+) ?)+( ok)?$)'
