//go:build freebsd

package docker

const etcDir = "/usr/local/etc"
