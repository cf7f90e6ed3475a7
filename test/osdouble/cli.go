package osdouble

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// CommandRecord is one line of the command log (<run>/rpm-ostree/commands.log),
// written by the transaction daemon for every transaction it ran, so tests
// can tell what ran. PID is the initiating client's.
type CommandRecord struct {
	Args     []string `json:"args"`
	ClientID string   `json:"clientId,omitempty"`
	PID      int      `json:"pid"`
	Exit     int      `json:"exit"`
}

// ReadCommandLog returns the mutating commands run on a node since its last boot.
func ReadCommandLog(run string) ([]CommandRecord, error) {
	b, err := os.ReadFile(CommandLogFile(run))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []CommandRecord
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if line == "" {
			continue
		}
		var rec CommandRecord
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			return nil, fmt.Errorf("command log: %w", err)
		}
		out = append(out, rec)
	}
	return out, nil
}

var commonOpts = []optSpec{{long: "os", arg: true}, {long: "help", short: 'h'}, {long: "quiet", short: 'q'}}

// command is one rpm-ostree verb.
type command struct {
	opts     []optSpec
	mutating bool
	run      func(ctx context.Context, c *cliCall) error
}

var commands = map[string]command{
	"status": {opts: []optSpec{{long: "json"}, {long: "booted", short: 'b'}, {long: "verbose", short: 'v'},
		{long: "pending-exit-77"}}, run: runStatus},
	"rebase": {mutating: true, opts: []optSpec{{long: "lock-finalization"}, {long: "experimental"},
		{long: "bypass-driver"}, {long: "reboot", short: 'r'}, {long: "disallow-downgrade"},
		{long: "custom-origin-url", arg: true}, {long: "custom-origin-description", arg: true}}, run: runRebase},
	"deploy": {mutating: true, opts: []optSpec{{long: "lock-finalization"}, {long: "bypass-driver"},
		{long: "reboot", short: 'r'}, {long: "disallow-downgrade"}, {long: "skip-branch-check"},
		{long: "unchanged-exit-77"}}, run: runDeploy},
	"finalize-deployment": {mutating: true, opts: []optSpec{{long: "allow-missing-checksum"},
		{long: "allow-unlocked"}}, run: runFinalize},
	"cleanup": {mutating: true, opts: []optSpec{{long: "pending", short: 'p'}, {long: "rollback", short: 'r'},
		{long: "base", short: 'b'}, {long: "repomd", short: 'm'}}, run: runCleanup},
	"cancel":       {run: runCancel},
	"start-daemon": {run: runStartDaemon},
	"kargs": {mutating: true, opts: []optSpec{{long: "append", arg: true}, {long: "append-if-missing", arg: true},
		{long: "delete", arg: true}, {long: "delete-if-present", arg: true}, {long: "replace", arg: true},
		{long: "lock-finalization"}, {long: "unchanged-exit-77"}, {long: "reboot", short: 'r'}}, run: runKargs},
	"install":   {mutating: true, opts: installOpts, run: runInstall},
	"uninstall": {mutating: true, opts: uninstallOpts, run: runUninstall},
	// override has subcommands (overrideSubcommands, see lookupCommand).
	"override": {mutating: true},
}

// lookupCommand returns the command args names and the arguments left to
// parse. A command with subcommands takes the first argument that is not an
// option as the subcommand, as libmain.cxx rpmostree_subcommand_parse does.
func lookupCommand(args []string) (cmd command, sub string, rest []string, err error) {
	cmd, ok := commands[args[0]]
	if !ok {
		if strings.HasPrefix(args[0], "-") {
			return command{}, "", nil, fmt.Errorf("Unknown option %s", args[0])
		}
		return command{}, "", nil, &usageError{fmt.Sprintf("Unknown command '%s'", args[0])}
	}
	rest = args[1:]
	if args[0] != "override" {
		return cmd, "", rest, nil
	}
	i := slices.IndexFunc(rest, func(a string) bool { return !strings.HasPrefix(a, "-") })
	if i < 0 {
		return command{}, "", nil, &usageError{fmt.Sprintf("No \"%s\" subcommand specified", args[0])}
	}
	sub = rest[i]
	cmd, ok = overrideSubcommands[sub]
	if !ok {
		return command{}, "", nil, &usageError{fmt.Sprintf("Unknown \"%s\" subcommand \"%s\"", args[0], sub)}
	}
	return cmd, sub, append(slices.Clone(rest[:i]), rest[i+1:]...), nil
}

// cliCall is one invocation.
type cliCall struct {
	node     *node
	opts     parsedOpts
	pos      []string
	stdout   io.Writer
	stderr   io.Writer
	args     []string
	sub      string // the subcommand (override remove, replace, reset)
	clientID string
	exit     int // non-error exit code (77)
}

// Main runs the rpm-ostree CLI with args (without the program name) and
// returns its exit code. getenv supplies the environment. ctx ending is
// SIGINT: a running transaction is cancelled (cmd/rpm-ostree does not catch
// SIGTERM, which kills the client and leaves the transaction to the daemon).
// `start-daemon` runs the transaction daemon until ctx ends.
func Main(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fail := func(err error) int {
		fmt.Fprintf(stderr, "error: %s\n", err)
		return 1
	}
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return fail(errors.New("No command specified"))
	}
	switch args[0] {
	case "--version":
		p, err := profileFromEnv(getenv)
		if err != nil {
			return fail(err)
		}
		fmt.Fprint(stdout, p.versionText())
		return 0
	case "--help", "-h":
		fmt.Fprint(stdout, usage)
		return 0
	}
	cmd, _, _, err := lookupCommand(args)
	if err != nil {
		var ue *usageError
		if errors.As(err, &ue) {
			fmt.Fprint(stderr, usage)
		}
		return fail(err)
	}
	if args[0] == "start-daemon" {
		return startDaemon(ctx, getenv, stderr)
	}
	n, err := nodeFromEnv(getenv)
	if err != nil {
		return fail(err)
	}
	call, err := newCall(n, args)
	if err != nil {
		return fail(err)
	}
	if call.opts.has("help") {
		fmt.Fprintf(stdout, "Usage:\n  rpm-ostree %s [OPTION…]\n", args[0])
		return 0
	}
	call.stdout, call.stderr, call.clientID = stdout, stderr, getenv(EnvClientID)
	if !cmd.mutating || (args[0] == "kargs" && !hasKargsEdits(call.opts)) {
		if err := cmd.run(ctx, call); err != nil {
			return fail(err)
		}
		return call.exit
	}
	// What the client checks before it calls the daemon.
	if err := validate(call); err != nil {
		return fail(err)
	}
	code, msg := runClient(ctx, n.l, args, call.clientID, stdout, stderr)
	fmt.Fprint(stderr, msg)
	return code
}

// newCall parses a command line for node n.
func newCall(n *node, args []string) (*cliCall, error) {
	cmd, sub, rest, err := lookupCommand(args)
	if err != nil {
		return nil, err
	}
	opts, pos, err := parseOptions(rest, append(append([]optSpec{}, commonOpts...), cmd.opts...))
	if err != nil {
		return nil, err
	}
	return &cliCall{node: n, opts: opts, pos: pos, args: args, sub: sub, stdout: io.Discard, stderr: io.Discard}, nil
}

func startDaemon(ctx context.Context, getenv func(string) string, stderr io.Writer) int {
	d, err := ListenDaemon(ctx, getenv)
	if err != nil {
		fmt.Fprintf(stderr, "error: %s\n", err)
		return 1
	}
	if err := d.Serve(ctx); err != nil {
		fmt.Fprintf(stderr, "error: %s\n", err)
		return 1
	}
	return 0
}

func runStartDaemon(context.Context, *cliCall) error { return errors.New("start-daemon runs alone") }

func runCancel(_ context.Context, c *cliCall) error { return cancelClient(c.node.l, c.stdout) }

// validate checks arguments before taking the sysroot, as the real client
// does before it talks to the daemon.
func validate(c *cliCall) error {
	switch c.args[0] {
	case "finalize-deployment":
		allowMissing := c.opts.has("allow-missing-checksum")
		switch {
		case len(c.pos) > 1:
			return &usageError{"Too many arguments passed"}
		case len(c.pos) == 0 && !allowMissing:
			return &usageError{"Must provide expected CHECKSUM or --allow-missing-checksum"}
		case len(c.pos) == 1 && allowMissing:
			return &usageError{"Cannot specify both CHECKSUM and --allow-missing-checksum"}
		}
	case "rebase":
		if len(c.pos) == 0 || len(c.pos) > 2 {
			return &usageError{"Must specify one or two arguments: REFSPEC [REVISION]"}
		}
		// src/app/rpmostree-builtin-rebase.cxx before 2025.7.
		if len(c.pos) == 2 && isContainerRefspec(c.pos[0]) && !c.node.prof.ContainerDigests {
			return errors.New("Unexpected ostree revision alongside container refspec type")
		}
	case "deploy":
		if len(c.pos) != 1 {
			return &usageError{"REVISION must be specified"}
		}
	case "cleanup":
		if !c.opts.has("pending") && !c.opts.has("rollback") && !c.opts.has("base") && !c.opts.has("repomd") {
			return &usageError{"At least one cleanup option must be specified"}
		}
	case "kargs":
		if len(c.pos) > 0 {
			return &usageError{fmt.Sprintf("Unexpected argument %q", c.pos[0])}
		}
		// src/app/rpmostree-builtin-kargs.cxx (same at every profile's tag).
		if c.opts.has("delete") && c.opts.has("replace") {
			return errors.New("Cannot specify both --delete and --replace")
		}
	case "install", "uninstall", "override":
		return validatePackages(c)
	}
	return nil
}

func profileFromEnv(getenv func(string) string) (Profile, error) {
	if s := getenv(EnvSysroot); s != "" {
		return NodeProfile(s)
	}
	return LookupProfile("")
}

func nodeFromEnv(getenv func(string) string) (*node, error) {
	sysroot, run := getenv(EnvSysroot), getenv(EnvRun)
	if sysroot == "" || run == "" {
		return nil, fmt.Errorf("Couldn't start daemon: %s and %s must name the node's sysroot and run dirs", EnvSysroot, EnvRun)
	}
	rebootFile := getenv(EnvRebootFile)
	if rebootFile == "" {
		rebootFile = filepath.Join(run, "reboot-requested")
	}
	if err := os.MkdirAll(filepath.Join(run, "rpm-ostree"), 0o755); err != nil {
		return nil, err
	}
	prof, err := NodeProfile(sysroot)
	if err != nil {
		return nil, err
	}
	return &node{l: layout{sysroot: sysroot, run: run}, rebootFile: rebootFile, prof: prof, root: getenv(EnvRoot)}, nil
}

func logCommand(l layout, rec CommandRecord) {
	b, err := json.Marshal(rec)
	if err != nil {
		return
	}
	f, err := os.OpenFile(l.commandLog(), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = f.Write(append(b, '\n'))
}

func runStatus(_ context.Context, c *cliCall) error {
	st, err := loadState(c.node.l)
	if err != nil {
		return fmt.Errorf("Couldn't start daemon: Error setting up sysroot: %w", err)
	}
	txn, err := runningTransaction(c.node.l)
	if err != nil {
		return err
	}
	s := statusView{prof: c.node.prof, noImageDigest: c.node.noImageDigest()}.render(st, txn, c.opts.has("booted"))
	if c.opts.has("json") {
		if err := writeStatusJSON(c.stdout, s); err != nil {
			return err
		}
	} else {
		writeStatusText(c.stdout, s, c.opts.has("verbose"))
	}
	if c.opts.has("pending-exit-77") && st.staged != nil {
		c.exit = 77
	}
	return nil
}

func (c *cliCall) reporter(transaction string) *reporter {
	return newReporter(c.stdout, c.node.l.progressFile(), transaction)
}

func (c *cliCall) afterStage(err error) error {
	if errors.Is(err, errNoChange) {
		fmt.Fprintln(c.stdout, "No change.")
		if c.opts.has("unchanged-exit-77") {
			c.exit = 77
		}
		return nil
	}
	if err == nil && c.opts.has("reboot") {
		return c.node.requestReboot("rpm-ostree " + c.args[0] + " --reboot")
	}
	return err
}

func runRebase(ctx context.Context, c *cliCall) error {
	r := c.reporter("rebase")
	revision := ""
	if len(c.pos) == 2 {
		revision = c.pos[1]
	}
	err := c.node.rebase(ctx, r, c.pos[0], revision, c.opts.has("lock-finalization"))
	r.finish(err)
	return c.afterStage(err)
}

func runDeploy(ctx context.Context, c *cliCall) error {
	r := c.reporter("deploy")
	err := c.node.deploy(ctx, r, c.pos[0], c.opts.has("lock-finalization"))
	if errors.Is(err, errNoChange) {
		r.finish(nil)
	} else {
		r.finish(err)
	}
	return c.afterStage(err)
}

func runFinalize(_ context.Context, c *cliCall) error {
	checksum := ""
	if len(c.pos) == 1 {
		checksum = c.pos[0]
	}
	return c.node.finalize(checksum, c.opts.has("allow-missing-checksum"), c.opts.has("allow-unlocked"))
}

func runCleanup(_ context.Context, c *cliCall) error {
	return c.node.cleanup(c.stdout, c.opts.has("pending"), c.opts.has("rollback"), c.opts.has("base"))
}

func hasKargsEdits(opts parsedOpts) bool {
	for _, op := range []string{"append", "append-if-missing", "delete", "delete-if-present", "replace"} {
		if opts.has(op) {
			return true
		}
	}
	return false
}

func runKargs(_ context.Context, c *cliCall) error {
	p := kargsPatch{append: c.opts["append"], replace: c.opts["replace"], delete: c.opts["delete"],
		appendIfMissing: c.opts["append-if-missing"], deleteIfPresent: c.opts["delete-if-present"]}
	if !hasKargsEdits(c.opts) {
		st, err := loadState(c.node.l)
		if err != nil {
			return err
		}
		fmt.Fprintln(c.stdout, strings.Join(st.defaultDeployment().Kargs, " "))
		return nil
	}
	err := c.node.editKargs(c.stdout, p, c.opts.has("lock-finalization"))
	if errors.Is(err, errNoKargsChange) {
		// kernel_arg_apply prints it; the client then sees no new default
		// deployment (exit 77 with --unchanged-exit-77).
		fmt.Fprintln(c.stdout, err.Error())
		if c.opts.has("unchanged-exit-77") {
			c.exit = 77
		}
		return nil
	}
	return c.afterStage(err)
}

const usage = `Usage:
  rpm-ostree [OPTION…] COMMAND

Builtin Commands (rpm-ostree test double):
  cancel               Cancel an active transaction
  cleanup              Clear cached/pending data
  deploy               Deploy a specific commit
  finalize-deployment  Unset the finalization locking state of the staged deployment and reboot
  install              Overlay additional packages
  kargs                Query or modify kernel arguments
  override             Manage base package overrides
  rebase               Switch to a different tree
  start-daemon         Start the daemon process
  status               Get the version of the booted system
  uninstall            Remove overlayed additional packages

Help Options:
  -h, --help           Show help options

Application Options:
  --version            Print version information and exit
  -q, --quiet          Avoid printing most informational messages
`
