//go:build linux && amd64

package emu

const jitSupported = true

// JITCache returns the statistics of the shared translation cache.
func JITCache() JITCacheStats { return JITCacheStats{} }
