package mcc

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/client-go/tools/leaderelection"

	"github.com/tandem-mco/tandem/pkg/flagerr"
)

// DefaultSettingsName is tandem's settings ConfigMap, in the controller's
// namespace (--resourcelock-namespace; the MCO's operator passes its own,
// openshift-machine-config-operator). The MCO's operator runs the controller
// with only its own flags, so tandem's settings (DPU roles, gates, ...)
// come from here on a cluster whose MCO image is tandem's.
const DefaultSettingsName = "machine-config-controller-tandem"

const settingsFlag = "tandem-settings"

// settingsReport says what a ConfigMap changed: the keys applied, and the
// keys the command line overrides.
type settingsReport struct{ applied, overridden []string }

// withSettings returns o with the settings ConfigMap's data applied: each
// key is one of tandem's flags without the dashes, its value as the flag
// takes it (a repeatable flag: one value per line). A flag given on the
// command line (o.cli) overrides its key. Every key is checked, then the
// merged settings as a whole (validate); any error refuses the whole
// ConfigMap (o comes back unchanged) and names each bad key.
func (o options) withSettings(data map[string]string) (options, settingsReport, error) {
	var s options
	fs := pflag.NewFlagSet(settingsFlag, pflag.ContinueOnError)
	s.bindTandem(fs) // fs now writes into s's fields...
	s = o.clone()    // ...which hold o's settings again
	var rep settingsReport
	var errs []error
	keys := make([]string, 0, len(data))
	for k := range data {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, key := range keys {
		f := fs.Lookup(key)
		switch {
		case f == nil && o.cli != nil && o.cli.Lookup(key) != nil:
			errs = append(errs, flagerr.New(key, "the MCO's own flag, which its operator sets on the command line; not one of tandem's settings"))
			continue
		case f == nil:
			errs = append(errs, flagerr.New(key, "not one of tandem's settings (they are its flags' names without the dashes; docs/controller-settings.md)"))
			continue
		case o.cli != nil && o.cli.Changed(key):
			rep.overridden = append(rep.overridden, key)
			continue
		}
		values := []string{data[key]}
		if f.Value.Type() == repeatableType {
			values = nonEmptyLines(data[key])
		}
		for _, v := range values {
			if err := fs.Set(key, v); err != nil {
				errs = append(errs, flagerr.New(key, "%v", err))
				break
			}
		}
		rep.applied = append(rep.applied, key)
	}
	if len(errs) == 0 {
		errs = append(errs, s.validate())
	}
	if err := errors.Join(errs...); err != nil {
		return o, settingsReport{}, err
	}
	return s, rep, nil
}

func nonEmptyLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// validate checks tandem's settings without I/O; each error names its
// setting (flagerr).
func (o options) validate() error {
	var errs []error
	positive := func(name string, ok bool, v any) {
		if !ok {
			errs = append(errs, flagerr.New(name, "%v: must be greater than 0", v))
		}
	}
	positive("kube-api-qps", o.kubeAPIQPS > 0, o.kubeAPIQPS)
	positive("kube-api-burst", o.kubeAPIBurst > 0, o.kubeAPIBurst)
	positive("workers", o.workers > 0, o.workers)
	positive("drain-workers", o.drainWorkers > 0, o.drainWorkers)
	positive("etcd-discovery-interval", o.etcdDiscoveryInterval > 0, o.etcdDiscoveryInterval)
	for name, d := range map[string]time.Duration{"node-update-delay": o.updateDelay, "informer-resync": o.resync} {
		if d < 0 {
			errs = append(errs, flagerr.New(name, "%s is negative", d))
		}
	}
	// client-go's own checks (leaderelection.NewLeaderElector), which
	// RunOrDie would panic on.
	if o.leaderElect {
		switch {
		case o.retryPeriod <= 0:
			errs = append(errs, flagerr.New("leader-elect-retry-period", "%s: must be greater than 0", o.retryPeriod))
		case o.leaseDuration <= o.renewDeadline:
			errs = append(errs, flagerr.New("leader-elect-lease-duration", "%s must be longer than --leader-elect-renew-deadline (%s)", o.leaseDuration, o.renewDeadline))
		case float64(o.renewDeadline) <= leaderelection.JitterFactor*float64(o.retryPeriod):
			errs = append(errs, flagerr.New("leader-elect-renew-deadline", "%s must be longer than %.1f times --leader-elect-retry-period (%s)",
				o.renewDeadline, leaderelection.JitterFactor, o.retryPeriod))
		}
	}
	errs = append(errs, o.etcd.Validate(), o.dpu.Validate(), o.gates.validate())
	return errors.Join(errs...)
}

// describeSettingsError says err for the ConfigMap ref: each error as
// `key "name": why` when the ConfigMap holds that key, as `--name: why`
// when the command line gave it.
func describeSettingsError(ref string, data map[string]string, err error) string {
	var parts []string
	for _, e := range flagerr.Flatten(err) {
		var fe *flagerr.Error
		if errors.As(e, &fe) {
			if _, inMap := data[fe.Name]; inMap {
				parts = append(parts, fmt.Sprintf("key %q: %v", fe.Name, fe.Err))
				continue
			}
		}
		parts = append(parts, e.Error())
	}
	return fmt.Sprintf("ConfigMap %s: %s", ref, strings.Join(parts, "; "))
}
