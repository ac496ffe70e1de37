package emu

// What a checker beside the engine (package enginecheck: the lockstep
// harness and the determinism check) needs to read of a machine that is not
// otherwise exported. It reads only; nothing here changes guest state.

// EachField calls fn with the name and raw value of each cheap-to-compare
// part of the hart's state other than the pc and the registers (which PC,
// X and F give): the privilege level, the CSRs an engine touches most,
// the counters, the reservation (all ones: none) and the run state, in a
// fixed order. Values are the stored fields, read without side effects
// (unlike a CSR read by the guest). Two harts that should be equal have
// equal values under every name; the state hash covers the rest.
func (h *Hart) EachField(fn func(name string, v uint64)) {
	fn("priv", uint64(h.priv))
	fn("mstatus", h.csr.mstatus)
	fn("mie", h.csr.mie)
	fn("mip", h.csr.mip)
	fn("mepc", h.csr.mepc)
	fn("mcause", h.csr.mcause)
	fn("mtval", h.csr.mtval)
	fn("mtvec", h.csr.mtvec)
	fn("mscratch", h.csr.mscratch)
	fn("sepc", h.csr.sepc)
	fn("scause", h.csr.scause)
	fn("stval", h.csr.stval)
	fn("stvec", h.csr.stvec)
	fn("sscratch", h.csr.sscratch)
	fn("satp", h.csr.satp)
	fn("fflags", h.csr.fflags)
	fn("frm", h.csr.frm)
	fn("retired", h.cnt.retired)
	fn("steps", h.cnt.steps)
	fn("local", h.local)
	res := ^uint64(0)
	if h.resValid {
		res = h.resAddr
	}
	fn("reservation", res)
	fn("waiting", flag(h.waiting))
	fn("halted", flag(h.halted))
}

// flag is a bool as a uint64.
func flag(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// Page returns RAM page pn (its offset from the start of RAM divided by
// PageBytes) for reading: never-written pages read as one shared page of
// zeros. Two RAMs that share a page (a fork and its parent) return the same
// pointer for it. The caller must not write through it, and it is valid
// only until the machine next runs or is written.
func (r *RAM) Page(pn uint64) *[PageBytes]byte { return (*[PageBytes]byte)(r.readPage(pn)) }

// TranslateEagerly makes the JIT translate every block from its second
// run, not only hot ones, so that short programs (a fuzzer's, a test's) run
// as host code: for checks that compare the JIT with the interpreter. It
// changes how much host code runs, never what the guest sees.
func (m *Machine) TranslateEagerly() { m.eng.eager = true }
