package isa

import "strconv"

// CSR numbers (Privileged §2.2, tables 2.2-2.6 "Currently allocated RISC-V
// ... CSR addresses"; the floating-point CSRs are Unprivileged §11.2, the
// counters Unprivileged §10.1). The top bits of a number encode its
// accessibility (Privileged §2.1, table 2.1): bits 11:10 are 11 for
// read-only CSRs, bits 9:8 the lowest privilege level that may access it.
//
// Numbered families (hpmcounter3..31, pmpcfg0..15, ...) have constants for
// their first and last member; member n is First + (n - first index), e.g.
// CSRPmpaddr0 + 5 is pmpaddr5.
const (
	// Unprivileged floating-point CSRs (Unprivileged §11.2).
	CSRFflags uint16 = 0x001
	CSRFrm    uint16 = 0x002
	CSRFcsr   uint16 = 0x003

	// Unprivileged counters and timers (Unprivileged §10.1; Privileged
	// §2.2 table 2.2). hpmcounter3..31 are 0xc03..0xc1f.
	CSRCycle         uint16 = 0xc00
	CSRTime          uint16 = 0xc01
	CSRInstret       uint16 = 0xc02
	CSRHpmcounter3   uint16 = 0xc03
	CSRHpmcounter31  uint16 = 0xc1f
	CSRCycleh        uint16 = 0xc80 // RV32 only
	CSRTimeh         uint16 = 0xc81 // RV32 only
	CSRInstreth      uint16 = 0xc82 // RV32 only
	CSRHpmcounter3h  uint16 = 0xc83 // RV32 only
	CSRHpmcounter31h uint16 = 0xc9f // RV32 only

	// Supervisor CSRs (Privileged §4.1, table 2.3).
	CSRSstatus    uint16 = 0x100
	CSRSie        uint16 = 0x104
	CSRStvec      uint16 = 0x105
	CSRScounteren uint16 = 0x106
	CSRSenvcfg    uint16 = 0x10a
	CSRSscratch   uint16 = 0x140
	CSRSepc       uint16 = 0x141
	CSRScause     uint16 = 0x142
	CSRStval      uint16 = 0x143
	CSRSip        uint16 = 0x144
	CSRSatp       uint16 = 0x180

	// Machine information registers (Privileged §3.1.2-3.1.5, table 2.5).
	CSRMvendorid  uint16 = 0xf11
	CSRMarchid    uint16 = 0xf12
	CSRMimpid     uint16 = 0xf13
	CSRMhartid    uint16 = 0xf14
	CSRMconfigptr uint16 = 0xf15

	// Machine trap setup and handling (Privileged §3.1.6-3.1.21, table 2.5).
	CSRMstatus       uint16 = 0x300
	CSRMisa          uint16 = 0x301
	CSRMedeleg       uint16 = 0x302
	CSRMideleg       uint16 = 0x303
	CSRMie           uint16 = 0x304
	CSRMtvec         uint16 = 0x305
	CSRMcounteren    uint16 = 0x306
	CSRMenvcfg       uint16 = 0x30a
	CSRMstatush      uint16 = 0x310 // RV32 only
	CSRMenvcfgh      uint16 = 0x31a // RV32 only
	CSRMcountinhibit uint16 = 0x320
	CSRMscratch      uint16 = 0x340
	CSRMepc          uint16 = 0x341
	CSRMcause        uint16 = 0x342
	CSRMtval         uint16 = 0x343
	CSRMip           uint16 = 0x344
	CSRMtinst        uint16 = 0x34a
	CSRMtval2        uint16 = 0x34b

	// Physical memory protection (Privileged §3.7, table 2.5).
	// pmpcfg0..15 are 0x3a0..0x3af (only the even ones exist on RV64),
	// pmpaddr0..63 are 0x3b0..0x3ef.
	CSRPmpcfg0   uint16 = 0x3a0
	CSRPmpcfg15  uint16 = 0x3af
	CSRPmpaddr0  uint16 = 0x3b0
	CSRPmpaddr63 uint16 = 0x3ef

	// Machine counters (Privileged §3.1.10-3.1.11, table 2.6).
	// mhpmcounter3..31 are 0xb03..0xb1f, mhpmevent3..31 are 0x323..0x33f.
	CSRMcycle         uint16 = 0xb00
	CSRMinstret       uint16 = 0xb02
	CSRMhpmcounter3   uint16 = 0xb03
	CSRMhpmcounter31  uint16 = 0xb1f
	CSRMhpmevent3     uint16 = 0x323
	CSRMhpmevent31    uint16 = 0x33f
	CSRMcycleh        uint16 = 0xb80 // RV32 only
	CSRMinstreth      uint16 = 0xb82 // RV32 only
	CSRMhpmcounter3h  uint16 = 0xb83 // RV32 only
	CSRMhpmcounter31h uint16 = 0xb9f // RV32 only

	// Debug and trace registers (Privileged table 2.6; RISC-V Debug
	// Specification 0.13.2 §4.8, §5.2).
	CSRTselect   uint16 = 0x7a0
	CSRTdata1    uint16 = 0x7a1
	CSRTdata2    uint16 = 0x7a2
	CSRTdata3    uint16 = 0x7a3
	CSRDcsr      uint16 = 0x7b0
	CSRDpc       uint16 = 0x7b1
	CSRDscratch0 uint16 = 0x7b2
	CSRDscratch1 uint16 = 0x7b3
)

// csrNamed lists the CSRs with a single name. Besides the constants above
// it holds the CSRs of extensions everett does not implement (V, Zkr, H,
// Sstc, Smstateen, Sscofpmf, Smaia/Ssaia, Smepmp, the debug trigger
// module) so that CSRName prints every name objdump does.
var csrNamed = []struct {
	n    uint16
	name string
}{
	{CSRFflags, "fflags"}, {CSRFrm, "frm"}, {CSRFcsr, "fcsr"},
	// Vector (V §3) and entropy source (Zkr §4.1).
	{0x008, "vstart"}, {0x009, "vxsat"}, {0x00a, "vxrm"}, {0x00f, "vcsr"},
	{0xc20, "vl"}, {0xc21, "vtype"}, {0xc22, "vlenb"}, {0x015, "seed"},
	{CSRCycle, "cycle"}, {CSRTime, "time"}, {CSRInstret, "instret"},
	{CSRCycleh, "cycleh"}, {CSRTimeh, "timeh"}, {CSRInstreth, "instreth"},

	// Supervisor.
	{CSRSstatus, "sstatus"}, {CSRSie, "sie"}, {CSRStvec, "stvec"},
	{CSRScounteren, "scounteren"}, {CSRSenvcfg, "senvcfg"},
	{CSRSscratch, "sscratch"}, {CSRSepc, "sepc"}, {CSRScause, "scause"},
	{CSRStval, "stval"}, {CSRSip, "sip"}, {CSRSatp, "satp"},
	{0x5a8, "scontext"}, {0x14d, "stimecmp"}, {0x15d, "stimecmph"},
	{0xda0, "scountovf"},
	{0x150, "siselect"}, {0x151, "sireg"}, {0x15c, "stopei"}, {0xdb0, "stopi"},
	{0x114, "sieh"}, {0x154, "siph"},

	// Hypervisor and virtual supervisor (Privileged §8.2, table 2.4).
	{0x600, "hstatus"}, {0x602, "hedeleg"}, {0x603, "hideleg"}, {0x604, "hie"},
	{0x605, "htimedelta"}, {0x606, "hcounteren"}, {0x607, "hgeie"},
	{0x608, "hvien"}, {0x609, "hvictl"}, {0x60a, "henvcfg"},
	{0x613, "hidelegh"}, {0x615, "htimedeltah"}, {0x618, "hvienh"}, {0x61a, "henvcfgh"},
	{0x643, "htval"}, {0x644, "hip"}, {0x645, "hvip"},
	{0x646, "hviprio1"}, {0x647, "hviprio2"}, {0x64a, "htinst"},
	{0x655, "hviph"}, {0x656, "hviprio1h"}, {0x657, "hviprio2h"},
	{0x680, "hgatp"}, {0x6a8, "hcontext"}, {0xe12, "hgeip"},
	{0x200, "vsstatus"}, {0x204, "vsie"}, {0x205, "vstvec"}, {0x214, "vsieh"},
	{0x240, "vsscratch"}, {0x241, "vsepc"}, {0x242, "vscause"}, {0x243, "vstval"},
	{0x244, "vsip"}, {0x24d, "vstimecmp"}, {0x250, "vsiselect"}, {0x251, "vsireg"},
	{0x254, "vsiph"}, {0x25c, "vstopei"}, {0x25d, "vstimecmph"}, {0x280, "vsatp"},
	{0xeb0, "vstopi"},

	// Machine.
	{CSRMvendorid, "mvendorid"}, {CSRMarchid, "marchid"}, {CSRMimpid, "mimpid"},
	{CSRMhartid, "mhartid"}, {CSRMconfigptr, "mconfigptr"},
	{CSRMstatus, "mstatus"}, {CSRMisa, "misa"}, {CSRMedeleg, "medeleg"},
	{CSRMideleg, "mideleg"}, {CSRMie, "mie"}, {CSRMtvec, "mtvec"},
	{CSRMcounteren, "mcounteren"}, {0x308, "mvien"}, {0x309, "mvip"},
	{CSRMenvcfg, "menvcfg"}, {CSRMstatush, "mstatush"}, {0x313, "midelegh"},
	{0x314, "mieh"}, {0x318, "mvienh"}, {0x319, "mviph"}, {CSRMenvcfgh, "menvcfgh"},
	{CSRMcountinhibit, "mcountinhibit"},
	{CSRMscratch, "mscratch"}, {CSRMepc, "mepc"}, {CSRMcause, "mcause"},
	{CSRMtval, "mtval"}, {CSRMip, "mip"}, {CSRMtinst, "mtinst"}, {CSRMtval2, "mtval2"},
	{0x350, "miselect"}, {0x351, "mireg"}, {0x354, "miph"}, {0x35c, "mtopei"},
	{0xfb0, "mtopi"}, {0x747, "mseccfg"}, {0x757, "mseccfgh"},
	{CSRMcycle, "mcycle"}, {CSRMinstret, "minstret"},
	{CSRMcycleh, "mcycleh"}, {CSRMinstreth, "minstreth"},

	// Debug and trace.
	{CSRTselect, "tselect"}, {CSRTdata1, "tdata1"}, {CSRTdata2, "tdata2"},
	{CSRTdata3, "tdata3"}, {0x7a4, "tinfo"}, {0x7a5, "tcontrol"},
	{0x7a8, "mcontext"}, {0x7aa, "mscontext"},
	{CSRDcsr, "dcsr"}, {CSRDpc, "dpc"}, {CSRDscratch0, "dscratch0"},
	{CSRDscratch1, "dscratch1"},
}

// csrFamilies lists the numbered CSR families: member i (first <= i <=
// last) is number base+i-first, named prefix+i+suffix.
var csrFamilies = []struct {
	base          uint16
	first, last   int
	prefix, suffx string
}{
	{CSRHpmcounter3, 3, 31, "hpmcounter", ""},
	{CSRHpmcounter3h, 3, 31, "hpmcounter", "h"},
	{CSRMhpmcounter3, 3, 31, "mhpmcounter", ""},
	{CSRMhpmcounter3h, 3, 31, "mhpmcounter", "h"},
	{CSRMhpmevent3, 3, 31, "mhpmevent", ""},
	{0x723, 3, 31, "mhpmevent", "h"}, // Sscofpmf
	{CSRPmpcfg0, 0, 15, "pmpcfg", ""},
	{CSRPmpaddr0, 0, 63, "pmpaddr", ""},
	{0x10c, 0, 3, "sstateen", ""}, // Smstateen
	{0x30c, 0, 3, "mstateen", ""},
	{0x31c, 0, 3, "mstateen", "h"},
	{0x60c, 0, 3, "hstateen", ""},
	{0x61c, 0, 3, "hstateen", "h"},
}

// csrNames is indexed by CSR number; csrByName is its inverse.
var (
	csrNames  [4096]string
	csrByName = map[string]uint16{}
)

func init() {
	add := func(n uint16, name string) {
		if csrNames[n] != "" {
			panic("isa: CSR " + strconv.Itoa(int(n)) + " named twice")
		}
		csrNames[n] = name
		csrByName[name] = n
	}
	for _, c := range csrNamed {
		add(c.n, c.name)
	}
	for _, f := range csrFamilies {
		for i := f.first; i <= f.last; i++ {
			add(f.base+uint16(i-f.first), f.prefix+strconv.Itoa(i)+f.suffx)
		}
	}
}

// CSRName returns the name of CSR number n as objdump 2.40 prints it when
// the object file does not pin an older privileged specification (that is,
// the names of Privileged Architecture 1.12 and of the extensions objdump
// knows), or the number in hex ("0x7c0") if it has none. Only the low 12
// bits of n are used.
//
// objdump prints a few names differently for an object whose attributes
// say "priv spec 1.11", as gas records when the source names a CSR: it then
// knows ustatus, uie, utvec, uscratch, uepc, ucause, utval, uip, sedeleg
// and sideleg, and not senvcfg, menvcfg, menvcfgh, mstatush, mtinst,
// mtval2, mconfigptr, mseccfg, mseccfgh, pmpcfg4..15 or pmpaddr16..63.
// everett follows 1.12, the version it implements.
func CSRName(n uint16) string {
	n &= 0xfff
	if s := csrNames[n]; s != "" {
		return s
	}
	return "0x" + strconv.FormatUint(uint64(n), 16)
}
