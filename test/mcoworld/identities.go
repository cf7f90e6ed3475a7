package mcoworld

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	mcfgclientset "github.com/openshift/client-go/machineconfiguration/clientset/versioned"
)

// operand is one process the kubelet stand-in started for a pod.
type operand struct {
	what    string // operator, controller, daemon
	pod     *corev1.Pod
	secrets string
	args    []string
	// identity is what checkIdentity found when it started: its pod's
	// bound token dies with the pod, so it is asked then.
	identity error
}

// recordOperand checks and records the identity a process starts with.
func (w *World) recordOperand(ctx context.Context, what string, c Container) {
	op := operand{what: what, pod: c.Pod.DeepCopy(), secrets: c.Secrets, args: c.Args}
	op.identity = w.checkIdentity(ctx, op)
	w.mu.Lock()
	w.operands = append(w.operands, op)
	w.mu.Unlock()
}

// nodeNameClaim is the extra the API server adds to a token bound to a
// pod on a node (KEP-4193), which the MCO's mcn-guards policy reads.
const nodeNameClaim = "authentication.kubernetes.io/node-name"

// CheckIdentities reports who each operand process was when it started,
// as the API server answered: the token mounted for it must authenticate
// as its pod's service account (with its node's name for a node's
// daemon), and its command line must carry no credentials of its own. It
// returns how many passed, of how many, and what failed.
func (w *World) CheckIdentities(ctx context.Context) (ok, total int, problems []string) {
	w.mu.Lock()
	ops := slices.Clone(w.operands)
	w.mu.Unlock()
	for _, op := range ops {
		if err := op.identity; err != nil {
			problems = append(problems, fmt.Sprintf("%s (pod %s): %v", op.what, op.pod.Name, err))
			continue
		}
		ok++
	}
	return ok, len(ops), problems
}

func (w *World) checkIdentity(ctx context.Context, op operand) error {
	for _, a := range op.args {
		if strings.HasPrefix(a, "--kubeconfig") {
			return fmt.Errorf("runs with %s", a)
		}
	}
	kube, err := w.clientAs(op.secrets)
	if err != nil {
		return err
	}
	r, err := kube.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("SelfSubjectReview with its token: %w (%s)", err, w.whyRejected(ctx, op.secrets))
	}
	u := r.Status.UserInfo
	if want := "system:serviceaccount:" + op.pod.Namespace + ":" + op.pod.Spec.ServiceAccountName; u.Username != want {
		return fmt.Errorf("authenticates as %q, want %q", u.Username, want)
	}
	if op.what == "daemon" && !slices.Equal(u.Extra[nodeNameClaim], []string{op.pod.Spec.NodeName}) {
		return fmt.Errorf("its token's %s claim is %v, want [%s]", nodeNameClaim, u.Extra[nodeNameClaim], op.pod.Spec.NodeName)
	}
	return nil
}

// clientAs is a client with the token and CA of a secrets directory, as
// client-go's in-cluster config would build it.
func (w *World) clientAs(secrets string) (*kubernetes.Clientset, error) {
	return kubernetes.NewForConfig(w.restConfigAs(secrets))
}

func (w *World) restConfigAs(secrets string) *rest.Config {
	dir := filepath.Join(secrets, "kubernetes.io", "serviceaccount")
	return &rest.Config{Host: w.CP.RESTConfig.Host, BearerTokenFile: filepath.Join(dir, "token"),
		TLSClientConfig: rest.TLSClientConfig{CAFile: filepath.Join(dir, "ca.crt")}}
}

// CheckMCNGuard checks that the MCO's mcn-guards admission policy is
// enforced on the daemons' identities: the daemon of one node may not
// update another node's MachineConfigNode (a dry run: nothing changes),
// while it may update its own.
func (w *World) CheckMCNGuard(ctx context.Context) error {
	w.mu.Lock()
	var daemons []operand
	for _, op := range w.operands {
		if op.what == "daemon" && w.daemonPods[op.pod.Spec.NodeName] == op.pod.UID {
			daemons = append(daemons, op)
		}
	}
	w.mu.Unlock()
	if len(daemons) < 2 {
		return fmt.Errorf("%d running daemons; the check needs two", len(daemons))
	}
	a, b := daemons[0], daemons[1]
	mco, err := mcfgclientset.NewForConfig(w.restConfigAs(a.secrets))
	if err != nil {
		return err
	}
	patch := []byte(`{"metadata":{"annotations":{"tandem.test/mcn-guard":"probe"}}}`)
	dry := metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}}
	if _, err := mco.MachineconfigurationV1().MachineConfigNodes().Patch(ctx, a.pod.Spec.NodeName, types.MergePatchType, patch, dry); err != nil {
		return fmt.Errorf("%s's daemon updating its own MachineConfigNode: %w", a.pod.Spec.NodeName, err)
	}
	_, err = mco.MachineconfigurationV1().MachineConfigNodes().Patch(ctx, b.pod.Spec.NodeName, types.MergePatchType, patch, dry)
	if err == nil || !strings.Contains(err.Error(), "mcn-guards") {
		return fmt.Errorf("%s's daemon updating %s's MachineConfigNode: %v, want a denial by the mcn-guards policy", a.pod.Spec.NodeName, b.pod.Spec.NodeName, err)
	}
	return nil
}

// expectedRefusals are the refusals the MCO's own code expects: its
// controller context looks up its pod's ReplicaSet for the events'
// owner, which the payload's machine-config-controller ClusterRole does
// not allow, and falls back to the namespace
// (pkg/controller/common/controller_context.go, release-4.21). The stock
// controller logs it too.
// tandem's controller (fork/cmd/machine-config-controller/informers.go)
// makes the same lookup and logs it in its own words.
var expectedRefusals = []string{
	"unable to get owner reference (falling back to namespace)",
	"No owner reference for events; they name the namespace",
}

// Forbidden are the lines of every operand process's log where the API
// server refused it (RBAC's "is forbidden"), but for the expected ones.
func (w *World) Forbidden() ([]string, error) {
	logs, err := filepath.Glob(filepath.Join(w.opts.Dir, "logs", "*.log"))
	if err != nil {
		return nil, err
	}
	daemons, err := filepath.Glob(filepath.Join(w.opts.Dir, "nodes", "*", "daemon.log"))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, f := range append(logs, daemons...) {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		for _, l := range strings.Split(string(b), "\n") {
			if strings.Contains(l, "is forbidden") && !slices.ContainsFunc(expectedRefusals, func(e string) bool { return strings.Contains(l, e) }) {
				out = append(out, filepath.Base(filepath.Dir(f))+"/"+filepath.Base(f)+": "+l)
			}
		}
	}
	return out, nil
}

// whyRejected asks the API server, as the admin, why it rejects the token
// of a secrets directory (TokenReview's error).
func (w *World) whyRejected(ctx context.Context, secrets string) string {
	tok, err := os.ReadFile(filepath.Join(secrets, "kubernetes.io", "serviceaccount", "token"))
	if err != nil {
		return err.Error()
	}
	r, err := w.CP.Kube.AuthenticationV1().TokenReviews().Create(ctx, &authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: string(tok)}}, metav1.CreateOptions{})
	if err != nil {
		return "TokenReview: " + err.Error()
	}
	return fmt.Sprintf("TokenReview: authenticated=%t error=%q", r.Status.Authenticated, r.Status.Error)
}
