package mcfg

import (
	"errors"
	"fmt"
	"os"

	ign2errors "github.com/coreos/ignition/config/shared/errors"
	ignerrors "github.com/coreos/ignition/v2/config/shared/errors"
	ign3 "github.com/coreos/ignition/v2/config/v3_5"
	ign3types "github.com/coreos/ignition/v2/config/v3_5/types"
	"github.com/coreos/ignition/v2/config/validate"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
)

// Kernel types a MachineConfig may ask for (the MCO's values).
const (
	KernelTypeDefault  = "default"
	KernelType64kPages = "64k-pages"
	KernelTypeRealtime = "realtime"
)

// InvalidConfigError names the MachineConfig that could not be used and why.
// The render controller puts it into the pool's RenderDegraded condition.
type InvalidConfigError struct {
	Name string
	Err  error
}

func (e *InvalidConfigError) Error() string {
	return fmt.Sprintf("MachineConfig %s is invalid: %v", e.Name, e.Err)
}

func (e *InvalidConfigError) Unwrap() error { return e.Err }

// NewIgnConfig returns an empty Ignition config of the spec version tandem renders.
func NewIgnConfig() ign3types.Config {
	return ign3types.Config{Ignition: ign3types.Ignition{Version: ign3types.MaxVersion.String()}}
}

// Parse returns mc's Ignition config as spec 3.5. A MachineConfig without an
// Ignition config (for example one that only sets kernel arguments) yields an
// empty config. Errors are *InvalidConfigError.
func Parse(mc *mcfgv1.MachineConfig) (*ign3types.Config, error) {
	cfg, err := ParseRaw(mc.Spec.Config.Raw)
	if err != nil {
		return nil, &InvalidConfigError{Name: mc.Name, Err: err}
	}
	return cfg, nil
}

// ParseRaw parses a raw Ignition config of any spec 3.0 to 3.5 into spec 3.5
// and checks it the way the MCO does: Ignition's own validation, then no
// special bits (setuid, setgid, sticky) on file modes. A spec 2.x config
// (2.0 to 2.2) is converted to 3.5 as the MCO converts it (parseSpec2) and
// then validated as a spec 3.5 config.
func ParseRaw(raw []byte) (*ign3types.Config, error) {
	if isEmptyRaw(raw) {
		cfg := NewIgnConfig()
		return &cfg, nil
	}
	parsed, rpt, err := ign3.ParseCompatibleVersion(raw)
	cfg := &parsed
	switch {
	case errors.Is(err, ignerrors.ErrUnknownVersion):
		// Not a 3.x config: the MCO then tries spec 2 (IgnParseWrapper).
		if cfg, err = parseSpec2(raw); err != nil {
			if errors.Is(err, ign2errors.ErrUnknownVersion) {
				return nil, fmt.Errorf("parsing Ignition config: %w (supported spec versions: 2.2 and 3.0 to %s)", ign2errors.ErrUnknownVersion, ign3types.MaxVersion)
			}
			return nil, err
		}
		if err := ValidateIgnition(cfg); err != nil {
			return nil, fmt.Errorf("converted spec 2 config: %w", err)
		}
	case err != nil:
		if rpt.IsFatal() {
			return nil, fmt.Errorf("parsing Ignition config: %w: %s", err, rpt.String())
		}
		return nil, fmt.Errorf("parsing Ignition config: %w", err)
	}
	if err := validateFileModes(cfg); err != nil {
		return nil, err
	}
	return cfg, nil
}

// isEmptyRaw tells whether a MachineConfig carries no Ignition config at all.
func isEmptyRaw(raw []byte) bool {
	return len(raw) == 0 || string(raw) == "null"
}

// Validate checks one MachineConfig before it is merged: its kernel type and
// its Ignition config (see ParseRaw), and that its Ignition kernel arguments
// only ask for arguments to exist (shouldNotExist cannot be rendered into a
// MachineConfig). Errors are *InvalidConfigError.
func Validate(mc *mcfgv1.MachineConfig) error {
	if err := validateKernelType(mc.Spec.KernelType); err != nil {
		return &InvalidConfigError{Name: mc.Name, Err: err}
	}
	cfg, err := Parse(mc)
	if err != nil {
		return err
	}
	if n := cfg.KernelArguments.ShouldNotExist; len(n) > 0 {
		return &InvalidConfigError{Name: mc.Name, Err: fmt.Errorf("ignition kernelArguments.shouldNotExist is not supported (got %v)", n)}
	}
	return nil
}

// ValidateIgnition runs Ignition's validation on an already parsed config,
// for example a merged one, and the MCO's file mode check.
func ValidateIgnition(cfg *ign3types.Config) error {
	if rpt := validate.ValidateWithContext(*cfg, nil); rpt.IsFatal() {
		return fmt.Errorf("invalid Ignition config: %s", rpt.String())
	}
	return validateFileModes(cfg)
}

func validateKernelType(kt string) error {
	switch kt {
	case "", KernelTypeDefault, KernelTypeRealtime, KernelType64kPages:
		return nil
	}
	return fmt.Errorf("kernelType=%s is invalid", kt)
}

// validateFileModes rejects setuid, setgid and sticky bits, as the MCO does
// (they would be applied silently by Ignition on new nodes only).
func validateFileModes(cfg *ign3types.Config) error {
	for _, f := range cfg.Storage.Files {
		if f.Mode != nil && os.FileMode(*f.Mode) > os.ModePerm {
			return fmt.Errorf("invalid mode %#o for %s, cannot exceed %#o", *f.Mode, f.Path, os.ModePerm)
		}
	}
	return nil
}
