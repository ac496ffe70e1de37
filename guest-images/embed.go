// Package guestimages carries the recipes of everett's bundled Linux guest
// inside the everett binary, so that a user who brings only a program can
// run it on Linux without a clone of this repository: the kernel's recipe
// (linux/: build-kernel.sh, lib.sh, kernel.config) and everett's own init
// (init/, with the SDK and netconf packages it imports). internal/bundle
// builds them on first use and caches the results, keyed by these bytes.
package guestimages

import "embed"

// Kernel holds the kernel's recipe: linux/build-kernel.sh, linux/lib.sh and
// linux/kernel.config.
//
//go:embed linux/build-kernel.sh linux/lib.sh linux/kernel.config
var Kernel embed.FS

// Init holds everett's init and the packages it imports: init/*.go (not
// its tests), sdk/go/everett and sdk/go/netconf.
//
//go:embed init/*.go sdk/go/everett/*.go sdk/go/everett/*.s sdk/go/netconf/*.go
var Init embed.FS
