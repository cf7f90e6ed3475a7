package framework

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
)

// ApplyManifest creates every object of a YAML file under the module root
// (e.g. "manifests/rbac/tenant-dpu-infra-identity.yaml"), creating the
// namespaces its objects live in. It knows the kinds manifests/rbac uses.
func ApplyManifest(ctx context.Context, kube kubernetes.Interface, relPath string) error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	f, err := os.Open(filepath.Join(root, relPath))
	if err != nil {
		return fmt.Errorf("opening manifest: %w", err)
	}
	defer f.Close()
	dec := utilyaml.NewYAMLOrJSONDecoder(f, 4096)
	for {
		var raw runtime.RawExtension
		if err := dec.Decode(&raw); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("%s: %w", relPath, err)
		}
		if len(raw.Raw) == 0 {
			continue
		}
		obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(raw.Raw, nil, nil)
		if err != nil {
			return fmt.Errorf("%s: %w", relPath, err)
		}
		if err := createObject(ctx, kube, obj); err != nil {
			return fmt.Errorf("%s: %w", relPath, err)
		}
	}
}

func createObject(ctx context.Context, kube kubernetes.Interface, obj runtime.Object) error {
	if m, ok := obj.(metav1.Object); ok && m.GetNamespace() != "" {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: m.GetNamespace()}}
		if _, err := kube.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	var err error
	switch o := obj.(type) {
	case *corev1.Namespace:
		_, err = kube.CoreV1().Namespaces().Create(ctx, o, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			err = nil
		}
	case *corev1.ServiceAccount:
		_, err = kube.CoreV1().ServiceAccounts(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
	case *rbacv1.ClusterRole:
		_, err = kube.RbacV1().ClusterRoles().Create(ctx, o, metav1.CreateOptions{})
	case *rbacv1.ClusterRoleBinding:
		_, err = kube.RbacV1().ClusterRoleBindings().Create(ctx, o, metav1.CreateOptions{})
	case *rbacv1.Role:
		_, err = kube.RbacV1().Roles(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
	case *rbacv1.RoleBinding:
		_, err = kube.RbacV1().RoleBindings(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
	default:
		return fmt.Errorf("unexpected manifest object %T", obj)
	}
	return err
}
