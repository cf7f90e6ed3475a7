package certs

import (
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"

	clientcmdv1 "k8s.io/client-go/tools/clientcmd/api/v1"
	"sigs.k8s.io/yaml"
)

// pemEnd ends each certificate of a bundle; the MCO splits bundles after it
// and compares the pieces as text.
const pemEnd = "-----END CERTIFICATE-----"

// quietSigners are the signers whose certificates rotate by themselves
// during upgrades: a rotation that adds only certificates of theirs does not
// restart the kubelet (certificate_writer.go, release-4.21: matched as
// substrings of the subject's common name).
var quietSigners = []string{
	"kube-apiserver-localhost-signer",
	"openshift-kube-apiserver-operator_localhost-recovery-serving-signer",
	"kube-apiserver-lb-signer",
}

// serverCAMerge is the outcome of a rotation on the node's kubeconfig.
type serverCAMerge struct {
	// kubeconfig is the new content of KubeconfigPath; nil: unchanged.
	kubeconfig []byte
	// ca is the merged certificate-authority-data (when kubeconfig is set).
	ca []byte
	// restartKubelet: a certificate of another signer was added.
	restartKubelet bool
}

// splitBundle splits a bundle as the MCO does: after each END line of the
// trimmed text, so every certificate but the first keeps the newline
// before it and the last piece is what follows the last END ("" for a
// well-formed bundle).
func splitBundle(b []byte) []string {
	return strings.SplitAfter(strings.TrimSpace(string(b)), pemEnd)
}

// parsePiece decodes one piece of a bundle: block is false when there is no
// PEM block in it (the MCO stops reading the bundle there), cert is nil when
// the block is not a certificate (the MCO skips it).
func parsePiece(piece string) (cert *x509.Certificate, block bool) {
	b, _ := pem.Decode([]byte(piece))
	if b == nil {
		return nil, false
	}
	c, err := x509.ParseCertificate(b.Bytes)
	if err != nil {
		return nil, true
	}
	return c, true
}

// mergeServerCA merges the rotated bundle into the kubeconfig's first
// cluster, as the MCO does on a service CA rotation: the kubeconfig is
// rewritten only when its CA differs from the bundle and some piece of the
// bundle is not in it; the new CA is the bundle's valid certificates (up to
// the first piece without a PEM block). The kubelet is restarted when an
// added certificate's signer is not one of quietSigners.
func mergeServerCA(kubeconfig, bundle []byte) (serverCAMerge, error) {
	if kubeconfig == nil {
		return serverCAMerge{}, errors.New("the kubeconfig is missing")
	}
	var kc clientcmdv1.Config
	if err := yaml.Unmarshal(kubeconfig, &kc); err != nil {
		return serverCAMerge{}, fmt.Errorf("parsing the kubeconfig: %w", err)
	}
	if len(kc.Clusters) == 0 {
		return serverCAMerge{}, errors.New("the kubeconfig has no cluster")
	}
	onDisk := kc.Clusters[0].Cluster.CertificateAuthorityData
	differs := !bytes.Equal(bytes.TrimSpace(onDisk), bytes.TrimSpace(bundle))
	have := map[string]bool{}
	for _, piece := range splitBundle(onDisk) {
		have[piece] = true
	}
	var full []string
	var added []string
	for _, piece := range splitBundle(bundle) {
		if !have[piece] {
			added = append(added, piece)
		}
		c, block := parsePiece(piece)
		if !block {
			break
		}
		if c != nil {
			full = append(full, piece)
		}
	}
	if !differs || len(added) == 0 {
		return serverCAMerge{}, nil
	}
	restart := false
	for _, piece := range added {
		c, block := parsePiece(piece)
		if !block {
			break
		}
		if c != nil && !isQuietSigner(c.Subject.CommonName) {
			restart = true
		}
	}
	ca := []byte(strings.Join(full, ""))
	kc.Clusters[0].Cluster.CertificateAuthorityData = ca
	out, err := yaml.Marshal(kc)
	if err != nil {
		return serverCAMerge{}, fmt.Errorf("writing the kubeconfig: %w", err)
	}
	// A kubelet is re-bootstrapped only with a CA to trust.
	return serverCAMerge{kubeconfig: out, ca: ca, restartKubelet: restart && len(ca) > 0}, nil
}

func isQuietSigner(cn string) bool {
	for _, s := range quietSigners {
		if strings.Contains(cn, s) {
			return true
		}
	}
	return false
}

// withCA returns kubeconfig with its first cluster's
// certificate-authority-data replaced by ca, the rest kept.
func withCA(kubeconfig, ca []byte) ([]byte, error) {
	if kubeconfig == nil {
		return nil, errors.New("missing")
	}
	var kc clientcmdv1.Config
	if err := yaml.Unmarshal(kubeconfig, &kc); err != nil {
		return nil, fmt.Errorf("parsing: %w", err)
	}
	if len(kc.Clusters) == 0 {
		return nil, errors.New("no cluster")
	}
	kc.Clusters[0].Cluster.CertificateAuthorityData = ca
	out, err := yaml.Marshal(kc)
	if err != nil {
		return nil, fmt.Errorf("encoding: %w", err)
	}
	return out, nil
}
