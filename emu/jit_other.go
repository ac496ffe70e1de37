//go:build !(linux && amd64)

package emu

const jitSupported = false

// JITCache returns the statistics of the shared translation cache: empty on
// hosts without the JIT.
func JITCache() JITCacheStats { return JITCacheStats{} }

func (m *Machine) jitTranslate(*block, uint32, bool) (*jitTrans, bool) { return nil, true }

func jitSeal(*jitChunk) {}

func (m *Machine) runJIT(*Hart, *block, uint64, uint64) {
	panic("emu: the JIT runs only on linux/amd64")
}
