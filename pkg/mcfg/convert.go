package mcfg

import (
	"fmt"

	"github.com/coreos/ign-converter/translate/v23tov30"
	ign2 "github.com/coreos/ignition/config/v2_2"
	ign2types "github.com/coreos/ignition/config/v2_2/types"
	ign23 "github.com/coreos/ignition/config/v2_3"
	v31translate "github.com/coreos/ignition/v2/config/v3_1/translate"
	v32translate "github.com/coreos/ignition/v2/config/v3_2/translate"
	v33translate "github.com/coreos/ignition/v2/config/v3_3/translate"
	v34translate "github.com/coreos/ignition/v2/config/v3_4/translate"
	v35translate "github.com/coreos/ignition/v2/config/v3_5/translate"
	ign3types "github.com/coreos/ignition/v2/config/v3_5/types"
)

// parseSpec2 parses an Ignition spec 2.x config (2.0 to 2.2) and converts it
// to spec 3.5 the way the MCO does (ParseAndConvertConfig in
// openshift/machine-config-operator pkg/controller/common/helpers.go and the
// v2.2 -> v3.2 converter of ignition_converter.go, release-4.20 at
// afed09939d80): duplicate files, units and users are folded first
// (removeDuplicates), then 2.2 -> 2.3 (ignition v0.35.0), 2.3 -> 3.0
// (coreos/ign-converter, every file on the "root" filesystem), and the
// Ignition translators 3.0 -> 3.1 -> ... -> 3.5.
func parseSpec2(raw []byte) (*ign3types.Config, error) {
	cfg2, rpt, err := ign2.Parse(raw)
	if err != nil {
		if rpt.IsFatal() {
			return nil, fmt.Errorf("parsing Ignition spec 2 config: %w: %s", err, rpt.String())
		}
		return nil, fmt.Errorf("parsing Ignition spec 2 config: %w", err)
	}
	cfg2, err = removeDuplicates(cfg2)
	if err != nil {
		return nil, err
	}
	v30, err := v23tov30.Translate(ign23.Translate(cfg2), map[string]string{"root": "/"})
	if err != nil {
		return nil, fmt.Errorf("converting Ignition spec 2 config to spec 3: %w", err)
	}
	out := v35translate.Translate(v34translate.Translate(v33translate.Translate(v32translate.Translate(v31translate.Translate(v30)))))
	return &out, nil
}

// removeDuplicates folds the duplicate entries spec 2 allowed and spec 3
// forbids, with the MCO's rules (removeIgnDuplicateFilesUnitsUsers, same
// file and tag as parseSpec2): for a path or unit name defined twice the
// last definition wins, except that the drop-ins of earlier definitions of a
// unit are added to it when their names are new; all users must be "core"
// and become one user with every SSH key, each once, in order.
func removeDuplicates(cfg ign2types.Config) (ign2types.Config, error) {
	files := cfg.Storage.Files
	seenPath := map[string]bool{}
	var outFiles []ign2types.File
	for i := len(files) - 1; i >= 0; i-- {
		if seenPath[files[i].Path] {
			continue
		}
		seenPath[files[i].Path] = true
		outFiles = append(outFiles, files[i])
	}

	units := cfg.Systemd.Units
	var outUnits []ign2types.Unit
	at := map[string]int{}
	for i := len(units) - 1; i >= 0; i-- {
		u := units[i]
		j, dup := at[u.Name]
		if !dup {
			at[u.Name] = len(outUnits)
			outUnits = append(outUnits, u)
			continue
		}
		for _, d := range u.Dropins {
			known := false
			for _, e := range outUnits[j].Dropins {
				known = known || e.Name == d.Name
			}
			if !known {
				outUnits[j].Dropins = append(outUnits[j].Dropins, d)
			}
		}
	}

	if users := cfg.Passwd.Users; len(users) > 0 {
		out := users[len(users)-1]
		if out.Name != CoreUserName {
			return cfg, fmt.Errorf("unexpected user with name: %v. Only core user is supported", out.Name)
		}
		for i := len(users) - 2; i >= 0; i-- {
			if users[i].Name != CoreUserName {
				return cfg, fmt.Errorf("unexpected user with name: %v. Only core user is supported", users[i].Name)
			}
			out.SSHAuthorizedKeys = append(out.SSHAuthorizedKeys, users[i].SSHAuthorizedKeys...)
		}
		seenKey := map[ign2types.SSHAuthorizedKey]bool{}
		keys := []ign2types.SSHAuthorizedKey{} // non-nil, as the MCO's dedupePasswdUserSSHKeys
		for _, k := range out.SSHAuthorizedKeys {
			if !seenKey[k] {
				seenKey[k] = true
				keys = append(keys, k)
			}
		}
		out.SSHAuthorizedKeys = keys
		cfg.Passwd.Users = []ign2types.PasswdUser{out}
	}
	cfg.Storage.Files = outFiles
	cfg.Systemd.Units = outUnits
	return cfg, nil
}
