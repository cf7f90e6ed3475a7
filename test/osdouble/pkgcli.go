package osdouble

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// The package layering commands: `install`, `uninstall` and `override
// remove|replace|reset`, each with --install/--uninstall (rpm-ostree
// src/app/rpmostree-pkg-builtins.cxx, rpmostree-override-builtins.cxx and
// libmain.cxx rpmostree_option_context_parse for the options and the
// client's checks; src/daemon/rpmostreed-transaction-types.cxx
// deploy_transaction_execute and rust/src/treefile.rs for what the daemon
// does and the messages; same at v2023.12, v2024.6, v2025.7 and v2026.2
// except where Profile says).

// Options of install and uninstall (option_entries of
// rpmostree-pkg-builtins.cxx), and the ones the double refuses.
var pkgOpts = []optSpec{{long: "stateroot", arg: true}, {long: "reboot", short: 'r'}, {long: "dry-run", short: 'n'},
	{long: "assumeyes", short: 'y'}, {long: "allow-inactive"}, {long: "idempotent"}, {long: "unchanged-exit-77"},
	{long: "lock-finalization"}, {long: "enablerepo", arg: true}, {long: "disablerepo", arg: true},
	{long: "releasever", arg: true}}

var installOpts = append(slices.Clone(pkgOpts), optSpec{long: "uninstall", arg: true}, optSpec{long: "cache-only", short: 'C'},
	optSpec{long: "download-only"}, optSpec{long: "apply-live", short: 'A'}, optSpec{long: "force-replacefiles"})

var uninstallOpts = append(slices.Clone(pkgOpts), optSpec{long: "install", arg: true}, optSpec{long: "all"})

// Options of every override subcommand (option_entries of
// rpmostree-override-builtins.cxx, plus --install/--uninstall, which
// rpmostree_option_context_parse adds for them).
var overrideOpts = []optSpec{{long: "stateroot", arg: true}, {long: "reboot", short: 'r'}, {long: "dry-run", short: 'n'},
	{long: "lock-finalization"}, {long: "cache-only", short: 'C'}, {long: "install", arg: true}, {long: "uninstall", arg: true}}

var overrideSubcommands = map[string]command{
	"remove": {mutating: true, opts: append(slices.Clone(overrideOpts), optSpec{long: "replace", arg: true}), run: runOverride},
	"replace": {mutating: true, opts: append(slices.Clone(overrideOpts), optSpec{long: "remove", arg: true},
		optSpec{long: "experimental"}, optSpec{long: "freeze"}, optSpec{long: "from", arg: true}), run: runOverride},
	"reset": {mutating: true, opts: append(slices.Clone(overrideOpts), optSpec{long: "all", short: 'a'}), run: runOverride},
}

// unsupportedPkgOpts are real options whose behaviour the double does not
// model; it refuses them rather than ignoring them.
var unsupportedPkgOpts = []string{"dry-run", "download-only", "apply-live", "force-replacefiles", "releasever"}

// validatePackages is what the clients check before they call the daemon.
func validatePackages(c *cliCall) error {
	for _, o := range unsupportedPkgOpts {
		if c.opts.has(o) {
			return fmt.Errorf("--%s is not supported by this rpm-ostree test double", o)
		}
	}
	switch c.args[0] {
	case "install":
		if len(c.pos) == 0 {
			return &usageError{"At least one PACKAGE must be specified"}
		}
		if c.opts.has("enablerepo") {
			return errors.New("--enablerepo currently only works in a container build")
		}
		if c.opts.has("disablerepo") {
			return errors.New("--disablerepo currently only works in a container build")
		}
	case "uninstall":
		if len(c.pos) == 0 && !c.opts.has("all") {
			return &usageError{"At least one PACKAGE must be specified"}
		}
	case "override":
		switch c.sub {
		case "remove", "replace":
			if len(c.pos) == 0 {
				return &usageError{"At least one PACKAGE must be specified"}
			}
		case "reset":
			if len(c.pos) == 0 && !c.opts.has("all") {
				return &usageError{"At least one PACKAGE must be specified"}
			}
			if c.opts.has("all") && len(c.pos) > 0 {
				return &usageError{"Cannot specify PACKAGEs with --all"}
			}
		}
		if c.sub == "replace" && !c.opts.has("experimental") && (c.opts.has("freeze") || c.opts.has("from")) {
			return errors.New("Must specify --experimental to use --freeze or --from")
		}
	}
	return nil
}

// pkgChange is what one transaction asks of the origin.
type pkgChange struct {
	install, uninstall            []string
	uninstallAll                  bool
	overrideRemove, overrideReset []string
	resetAll                      bool
	idempotent, allowInactive     bool
	// cacheOnly: the transaction does not fetch rpm-md (uninstall and
	// override without installs, or --cache-only).
	cacheOnly bool
	override  bool
}

func runInstall(ctx context.Context, c *cliCall) error {
	ch := pkgChange{install: c.pos, uninstall: c.opts["uninstall"], idempotent: c.opts.has("idempotent"),
		allowInactive: c.opts.has("allow-inactive"), cacheOnly: c.opts.has("cache-only")}
	return c.afterStage(c.node.changePackages(ctx, c, ch))
}

func runUninstall(ctx context.Context, c *cliCall) error {
	ch := pkgChange{install: c.opts["install"], uninstall: c.pos, uninstallAll: c.opts.has("all"),
		idempotent: c.opts.has("idempotent"), allowInactive: c.opts.has("allow-inactive")}
	// "If we don't also have to install pkgs, perform uninstalls offline".
	ch.cacheOnly = len(ch.install) == 0
	return c.afterStage(c.node.changePackages(ctx, c, ch))
}

func runOverride(ctx context.Context, c *cliCall) error {
	ch := pkgChange{install: c.opts["install"], uninstall: c.opts["uninstall"], override: true}
	switch c.sub {
	case "remove":
		ch.overrideRemove = c.pos
		if c.opts.has("replace") {
			return replaceNotModelled(c.opts["replace"])
		}
	case "replace":
		ch.overrideRemove = c.opts["remove"]
		return replaceNotModelled(c.pos)
	case "reset":
		ch.overrideReset, ch.resetAll = c.pos, c.opts.has("all")
	}
	// handle_override: "Perform uninstalls offline" unless something is installed.
	ch.cacheOnly = c.opts.has("cache-only") || len(ch.install) == 0
	return c.afterStage(c.node.changePackages(ctx, c, ch))
}

// replaceNotModelled is `override replace`: remote replacements fail in the
// daemon as upstream's do; local RPMs are not modelled.
func replaceNotModelled(args []string) error {
	for _, a := range args {
		if strings.HasSuffix(a, ".rpm") || strings.HasPrefix(a, "file://") || strings.Contains(a, "://") {
			return fmt.Errorf("override replace of local or remote RPM %q is not supported by this rpm-ostree test double", a)
		}
	}
	// Upstream's own refusal, word for word: rpm-ostree's transaction
	// (src/daemon/rpmostreed-transaction-types.cxx, deploy transaction:
	// "if (override_replace_pkgs) return glnx_null_throw (...)") does not
	// replace base packages from repositories either. Not a gap of the double.
	return errors.New("Non-local replacement overrides not implemented yet")
}

// changePackages applies ch to the default deployment's origin and stages
// the result, as deploy_transaction_execute does: package removals from the
// requests, then installs (checked against the base), override resets, then
// override removals (checked against the base); "No change." when the
// origin stays the same.
func (n *node) changePackages(ctx context.Context, c *cliCall, ch pkgChange) error {
	st, err := loadState(n.l)
	if err != nil {
		return err
	}
	def := st.defaultDeployment()
	req := requestsOf(def)
	rp, err := n.repo()
	if err != nil {
		return err
	}
	if err := rp.cleanTmp(); err != nil {
		return err
	}
	basePkgs, err := rp.commitPackages(def.Base())
	if err != nil {
		return err
	}
	changed := false
	// rpmostree_origin_remove_packages (treefile.rs remove_packages).
	if ch.uninstallAll && len(req.packages) > 0 {
		req.packages, changed = nil, true
	}
	for _, p := range ch.uninstall {
		i := slices.Index(req.packages, p)
		if i < 0 {
			if ch.idempotent || ch.uninstallAll {
				continue
			}
			return fmt.Errorf("Package/capability '%s' is not currently requested", p)
		}
		req.packages, changed = slices.Delete(req.packages, i, i+1), true
	}
	if len(ch.install) > 0 {
		// From 2026.1 a container-based host skips this base check.
		if !(n.prof.LayeringSkipsBaseDB && def.IsContainer()) {
			for _, p := range ch.install {
				if have := byName(basePkgs, p); len(have) > 0 && !ch.allowInactive {
					var names strings.Builder
					for _, h := range have {
						names.WriteString(" " + h.String())
					}
					return fmt.Errorf("\"%s\" is already provided by:%s. Use --allow-inactive to explicitly require it.", p, names.String())
				}
			}
		}
		// treefile.rs filter_package_requests.
		for _, p := range ch.install {
			if slices.Contains(req.packages, p) {
				if ch.idempotent {
					continue
				}
				return fmt.Errorf("Package/capability '%s' is already requested", p)
			}
			req.packages, changed = append(req.packages, p), true
		}
	}
	if ch.resetAll && len(req.removals) > 0 {
		req.removals, changed = nil, true
	}
	for _, p := range ch.overrideReset {
		i := slices.Index(req.removals, p)
		if i < 0 {
			return fmt.Errorf("No overrides for package '%s'", p)
		}
		req.removals, changed = slices.Delete(req.removals, i, i+1), true
	}
	for _, p := range ch.overrideRemove {
		switch have := byName(basePkgs, p); {
		case len(have) == 0:
			return fmt.Errorf("Package \"%s\" not found", p)
		case len(have) > 1:
			return fmt.Errorf("Multiple packages match \"%s\"", p)
		}
		if slices.Contains(req.removals, p) {
			return fmt.Errorf("Override already exists for package '%s'", p)
		}
		req.removals, changed = append(req.removals, p), true
	}
	if !changed {
		fmt.Fprintln(c.stdout, "No change.")
		if c.opts.has("unchanged-exit-77") {
			c.exit = 77
		}
		return nil
	}
	r := newReporter(c.stdout, "", c.args[0])
	d, err := n.layer(ctx, r, rp, unlayered(def), req, ch.cacheOnly)
	if err != nil {
		return err
	}
	d.Kargs = slices.Clone(def.Kargs)
	d.Serial = st.nextSerial(d.Checksum)
	r.beginTask("Staging deployment")
	if err := stageTree(n.l, n.prof, d, st.booted(), c.opts.has("lock-finalization"), st.staged != nil); err != nil {
		return err
	}
	r.endTask("done")
	if err := printPackageDiff(c, rp, def.Checksum, d.Checksum); err != nil {
		return err
	}
	if _, err := rp.prune(keepCommits(st.boot.Deployments, d)); err != nil {
		return err
	}
	if ch.override && len(ch.overrideRemove) > 0 {
		fmt.Fprintln(c.stdout, "Use \"rpm-ostree override reset\" to undo overrides")
	}
	fmt.Fprintln(c.stdout, "Run \"systemctl reboot\" to start a reboot")
	return nil
}

// printPackageDiff prints the packages added and removed from one commit
// to the other, as print_treepkg_diff_from_sysroot_path does.
func printPackageDiff(c *cliCall, rp *repo, from, to string) error {
	a, err := rp.commitPackages(from)
	if err != nil {
		return err
	}
	b, err := rp.commitPackages(to)
	if err != nil {
		return err
	}
	has := func(s []NEVRA, p NEVRA) bool { return slices.Contains(s, p) }
	var added, removed []string
	for _, p := range b {
		if !has(a, p) {
			added = append(added, p.String())
		}
	}
	for _, p := range a {
		if !has(b, p) {
			removed = append(removed, p.String())
		}
	}
	for _, sec := range []struct {
		title string
		pkgs  []string
	}{{"Removed:", removed}, {"Added:", added}} {
		if len(sec.pkgs) == 0 {
			continue
		}
		fmt.Fprintln(c.stdout, sec.title)
		for _, p := range sec.pkgs {
			fmt.Fprintf(c.stdout, "  %s\n", p)
		}
	}
	return nil
}
