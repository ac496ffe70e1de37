//go:build !(linux && amd64)

package emu

const jitSupported = false

// JITCache returns the statistics of the shared translation cache: empty on
// hosts without the JIT.
func JITCache() JITCacheStats { return JITCacheStats{} }
