package mcfg

import (
	"crypto/md5" //nolint:gosec // a content name, not a security boundary; kept for MCO-compatible names
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	"sigs.k8s.io/yaml"

	"github.com/tandem-mco/tandem/pkg/constants"
)

// renderSalt is the salt the MCO mixes into rendered-config hashes. Using the
// same salt and the same canonical form (YAML of the spec) means a spec the
// MCO rendered gets the same name from tandem, so taking over a cluster does
// not roll nodes to a differently named, identical config.
var renderSalt = []byte{
	16, 124, 206, 228, 139, 56, 175, 175, 79, 229, 134, 118, 157, 154, 211, 110,
	25, 93, 47, 253, 172, 106, 37, 7, 174, 13, 160, 185, 110, 17, 87, 52,
	219, 131, 12, 206, 218, 141, 116, 135, 188, 181, 192, 151, 233, 62, 126, 165,
	64, 83, 179, 119, 15, 168, 208, 197, 146, 107, 58, 227, 133, 188, 238, 26,
	33, 26, 235, 202, 32, 173, 31, 234, 41, 144, 148, 79, 6, 206, 23, 22,
}

// SpecHash returns the hex hash naming spec. The spec is hashed in its YAML
// form, whose map keys are sorted, so the same content always gets the same
// hash whatever the key order of its raw Ignition JSON.
func SpecHash(spec mcfgv1.MachineConfigSpec) (string, error) {
	data, err := yaml.Marshal(spec)
	if err != nil {
		return "", fmt.Errorf("encoding MachineConfig spec: %w", err)
	}
	h := md5.New() //nolint:gosec
	h.Write(renderSalt)
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil)), nil
}

// RenderedName returns "rendered-<pool>-<hash of spec>".
func RenderedName(pool string, spec mcfgv1.MachineConfigSpec) (string, error) {
	h, err := SpecHash(spec)
	if err != nil {
		return "", err
	}
	return RenderedPrefix(pool) + h, nil
}

// RenderedPrefix returns "rendered-<pool>-".
func RenderedPrefix(pool string) string {
	return constants.RenderedPrefix + pool + "-"
}

var hashSuffix = regexp.MustCompile(`^[0-9a-f]{32}$`)

// IsRenderedFor tells whether name is a rendered config of pool: exactly
// "rendered-<pool>-<32 hex digits>", so pool "worker" does not claim
// "rendered-worker-rt-<hash>" of pool "worker-rt".
func IsRenderedFor(pool, name string) bool {
	rest, ok := strings.CutPrefix(name, RenderedPrefix(pool))
	return ok && hashSuffix.MatchString(rest)
}
