// Package mcfg holds the MachineConfig helpers that the controller and the
// daemon share: parsing and validating a MachineConfig's Ignition config,
// merging a pool's MachineConfigs into one rendered config with the MCO's
// semantics, naming the rendered config by a hash of its content, and telling
// which parts of a config the daemon cannot apply in place.
//
// Ignition configs are handled as spec 3.5 (github.com/coreos/ignition/v2
// config/v3_5); MachineConfigs written in any 3.x spec up to 3.5 are accepted
// and translated. Spec 2.x configs are rejected.
package mcfg
