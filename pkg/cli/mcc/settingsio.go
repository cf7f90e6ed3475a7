package mcc

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"

	"github.com/tandem-mco/tandem/pkg/controller/dpu"
	"github.com/tandem-mco/tandem/pkg/controller/node"
	"github.com/tandem-mco/tandem/pkg/flagerr"
)

// errRestart ends run when the settings changed: the process exits cleanly
// and starts again (the kubelet restarts the container) with the new ones.
// Applying them live would rebuild the DPU controllers, the gates and the
// clients under a running rollout; a restart goes through the code every
// start takes, releases the leader Lease first, and costs seconds.
var errRestart = errors.New("the controller's settings changed")

// settingsPoll is how often the settings ConfigMap (and the Secret it names)
// are read for changes.
const settingsPoll = 10 * time.Second

// Event reasons on the settings ConfigMap.
const (
	eventSettingsApplied = "TandemSettingsApplied"
	eventSettingsInvalid = "InvalidTandemSettings"
)

// settings is what the controller started with: the settings in effect,
// the problem that made it ignore its ConfigMap ("" none), and what the
// watcher compares to.
type settings struct {
	o       options
	problem string
	// secret is the tenant kubeconfig Secret in effect ("" none).
	secret string
	// fingerprint of the ConfigMap and the Secret as read.
	fingerprint string
}

// loadSettings reads the settings ConfigMap and the tenant kubeconfig
// Secret, and returns the settings to run with. A ConfigMap that is invalid
// (or a Secret that is missing or bad) is refused as a whole: the controller
// runs with its command line alone, and problem says why (the caller holds
// every disruption until it is fixed). Only a failure to reach the
// apiserver for two minutes is an error.
func loadSettings(ctx context.Context, kube kubernetes.Interface, o options) (settings, error) {
	ns, name := o.leaseNamespace, o.settingsName
	ref := ns + "/" + name
	st := settings{o: o}
	var cm *corev1.ConfigMap
	if name != "" {
		var err error
		if cm, err = getRetrying(ctx, "ConfigMap "+ref, func(ctx context.Context) (*corev1.ConfigMap, error) {
			return kube.CoreV1().ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{})
		}); err != nil && !apierrors.IsForbidden(err) {
			return st, err
		} else if err != nil {
			st.problem = fmt.Sprintf("cannot read ConfigMap %s: %v", ref, err)
		}
	}
	if cm != nil {
		merged, rep, err := o.withSettings(cm.Data)
		if err != nil {
			st.problem = describeSettingsError(ref, cm.Data, err)
			klog.ErrorS(err, "Ignoring tandem's settings ConfigMap: invalid; no disruption until it is fixed", "configMap", ref,
				"keys", flagerr.Names(err))
		} else {
			st.o = merged
			klog.InfoS("Applied tandem's settings ConfigMap", "configMap", ref, "keys", rep.applied, "overriddenByFlags", rep.overridden)
			recordSettingsEvent(ctx, kube, cm, corev1.EventTypeNormal, eventSettingsApplied,
				fmt.Sprintf("Applied keys %v; the command line overrides %v", rep.applied, rep.overridden))
		}
	}
	st.secret = st.o.dpu.TenantKubeconfigSecret
	var secretData []byte
	if st.secret != "" {
		data, err := tenantKubeconfig(ctx, kube, ns, st.secret)
		if ctx.Err() != nil {
			return st, ctx.Err()
		}
		secretData = data
		if err == nil {
			st.o.dpu.TenantRESTConfig, err = clientcmd.RESTConfigFromKubeConfig(data)
		}
		if err != nil {
			err = flagerr.New(dpu.TenantKubeconfigSecretFlag, "Secret %s/%s: %v", ns, st.secret, err)
			klog.ErrorS(err, "Cannot use the tenant kubeconfig Secret; no disruption until it is fixed")
			var data map[string]string
			if cm != nil {
				data = cm.Data
			}
			st.problem = describeSettingsError(ref, data, err)
			st.o = o // nothing half-applied
		}
	}
	if st.problem != "" && cm != nil {
		recordSettingsEvent(ctx, kube, cm, corev1.EventTypeWarning, eventSettingsInvalid,
			st.problem+"; the controller runs without these settings and holds every disruption until they are fixed")
	}
	st.fingerprint = fingerprint(cm, secretData)
	return st, nil
}

// tenantKubeconfig reads the kubeconfig key of the Secret.
func tenantKubeconfig(ctx context.Context, kube kubernetes.Interface, ns, name string) ([]byte, error) {
	s, err := getRetrying(ctx, "Secret "+ns+"/"+name, func(ctx context.Context) (*corev1.Secret, error) {
		return kube.CoreV1().Secrets(ns).Get(ctx, name, metav1.GetOptions{})
	})
	if err != nil {
		return nil, err
	}
	if s == nil {
		return nil, apierrors.NewNotFound(corev1.Resource("secrets"), name)
	}
	data := s.Data[dpu.TenantKubeconfigSecretKey]
	if len(data) == 0 {
		return nil, fmt.Errorf("no key %q", dpu.TenantKubeconfigSecretKey)
	}
	return data, nil
}

// getRetrying GETs one object, retrying other errors than not found and
// forbidden for two minutes (an apiserver restarting); not found is a nil
// object and no error.
func getRetrying[T any](ctx context.Context, what string, get func(context.Context) (*T, error)) (*T, error) {
	deadline := time.Now().Add(2 * time.Minute)
	for {
		rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		obj, err := get(rctx)
		cancel()
		switch {
		case err == nil:
			return obj, nil
		case apierrors.IsNotFound(err):
			return nil, nil
		case apierrors.IsForbidden(err) || ctx.Err() != nil || time.Now().After(deadline):
			return nil, fmt.Errorf("reading %s: %w", what, err)
		}
		klog.V(2).InfoS("Reading failed; retrying", "object", what, "err", err)
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(2 * time.Second):
		}
	}
}

// fingerprint identifies the ConfigMap's data and the Secret's kubeconfig.
func fingerprint(cm *corev1.ConfigMap, secret []byte) string {
	h := sha256.New()
	if cm != nil {
		keys := make([]string, 0, len(cm.Data))
		for k := range cm.Data {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			fmt.Fprintf(h, "%d:%s%d:%s", len(k), k, len(cm.Data[k]), cm.Data[k])
		}
	} else {
		h.Write([]byte("no configmap"))
	}
	fmt.Fprintf(h, "|%d:", len(secret))
	h.Write(secret)
	return hex.EncodeToString(h.Sum(nil))
}

// watchSettings reads the ConfigMap (and the Secret in effect) every
// settingsPoll and calls restart(errRestart) once either differs from what
// the controller started with. A read that fails for a passing fault is
// skipped.
func watchSettings(ctx context.Context, kube kubernetes.Interface, o options, st settings, restart context.CancelCauseFunc) {
	ns := o.leaseNamespace
	t := time.NewTicker(settingsPoll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		var cm *corev1.ConfigMap
		if o.settingsName != "" {
			c, err := kube.CoreV1().ConfigMaps(ns).Get(ctx, o.settingsName, metav1.GetOptions{})
			if err != nil && !apierrors.IsNotFound(err) {
				klog.V(2).InfoS("Reading tandem's settings failed; trying again later", "err", err)
				continue
			}
			if err == nil {
				cm = c
			}
		}
		var secret []byte
		if st.secret != "" {
			s, err := kube.CoreV1().Secrets(ns).Get(ctx, st.secret, metav1.GetOptions{})
			if err != nil && !apierrors.IsNotFound(err) {
				klog.V(2).InfoS("Reading the tenant kubeconfig Secret failed; trying again later", "err", err)
				continue
			}
			if err == nil {
				secret = s.Data[dpu.TenantKubeconfigSecretKey]
			}
		}
		if fingerprint(cm, secret) != st.fingerprint {
			klog.InfoS("tandem's settings changed; restarting to apply them", "configMap", ns+"/"+o.settingsName, "secret", st.secret)
			restart(errRestart)
			return
		}
	}
}

// recordSettingsEvent writes an event on the settings ConfigMap, at once
// (the controller may exit right after).
func recordSettingsEvent(ctx context.Context, kube kubernetes.Interface, cm *corev1.ConfigMap, typ, reason, msg string) {
	now := metav1.Now()
	ev := &corev1.Event{
		ObjectMeta: metav1.ObjectMeta{GenerateName: cm.Name + ".", Namespace: cm.Namespace},
		InvolvedObject: corev1.ObjectReference{Kind: "ConfigMap", APIVersion: "v1", Namespace: cm.Namespace, Name: cm.Name,
			UID: cm.UID, ResourceVersion: cm.ResourceVersion},
		Reason: reason, Message: truncate(msg, 1024), Type: typ,
		Source:         corev1.EventSource{Component: "machine-config-controller"},
		FirstTimestamp: now, LastTimestamp: now, Count: 1,
	}
	ectx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := kube.CoreV1().Events(cm.Namespace).Create(ectx, ev, metav1.CreateOptions{}); err != nil {
		klog.ErrorS(err, "Recording an event on the settings ConfigMap failed", "reason", reason)
	}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-3] + "..."
}

// settingsHold holds every disruption while the settings are invalid: the
// controller runs without them (the DPU roles, gates, ... they would have
// set), so nothing it would protect may be disrupted meanwhile.
type settingsHold struct{ problem string }

func (settingsHold) Name() string                { return "Settings" }
func (settingsHold) HoldReason() node.HoldReason { return node.HoldInvalidSettings }
func (h settingsHold) MayDisrupt(node.PoolView, node.NodeView) (bool, string) {
	return false, h.problem + "; no disruption until it is fixed"
}
