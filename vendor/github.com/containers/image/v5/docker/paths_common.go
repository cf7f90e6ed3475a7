//go:build !freebsd

package docker

const etcDir = "/etc"
