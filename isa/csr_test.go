package isa

import (
	"fmt"
	"testing"
)

// TestCSRName checks names of the CSRs the emulator implements, the
// numbered families and unknown numbers (Privileged §2.2).
func TestCSRName(t *testing.T) {
	tests := []struct {
		n    uint16
		want string
	}{
		{CSRFflags, "fflags"}, {CSRFrm, "frm"}, {CSRFcsr, "fcsr"},
		{CSRCycle, "cycle"}, {CSRTime, "time"}, {CSRInstret, "instret"},
		{CSRHpmcounter3, "hpmcounter3"}, {CSRHpmcounter31, "hpmcounter31"},
		{CSRHpmcounter31h, "hpmcounter31h"},
		{CSRSstatus, "sstatus"}, {CSRSie, "sie"}, {CSRStvec, "stvec"},
		{CSRScounteren, "scounteren"}, {CSRSenvcfg, "senvcfg"}, {CSRSscratch, "sscratch"},
		{CSRSepc, "sepc"}, {CSRScause, "scause"}, {CSRStval, "stval"}, {CSRSip, "sip"},
		{CSRSatp, "satp"},
		{CSRMvendorid, "mvendorid"}, {CSRMarchid, "marchid"}, {CSRMimpid, "mimpid"},
		{CSRMhartid, "mhartid"}, {CSRMconfigptr, "mconfigptr"},
		{CSRMstatus, "mstatus"}, {CSRMisa, "misa"}, {CSRMedeleg, "medeleg"},
		{CSRMideleg, "mideleg"}, {CSRMie, "mie"}, {CSRMtvec, "mtvec"},
		{CSRMcounteren, "mcounteren"}, {CSRMenvcfg, "menvcfg"}, {CSRMcountinhibit, "mcountinhibit"},
		{CSRMscratch, "mscratch"}, {CSRMepc, "mepc"}, {CSRMcause, "mcause"}, {CSRMtval, "mtval"},
		{CSRMip, "mip"}, {CSRMtinst, "mtinst"}, {CSRMtval2, "mtval2"},
		{CSRPmpcfg0, "pmpcfg0"}, {CSRPmpcfg0 + 2, "pmpcfg2"}, {CSRPmpcfg15, "pmpcfg15"},
		{CSRPmpaddr0, "pmpaddr0"}, {CSRPmpaddr0 + 17, "pmpaddr17"}, {CSRPmpaddr63, "pmpaddr63"},
		{CSRMcycle, "mcycle"}, {CSRMinstret, "minstret"},
		{CSRMhpmcounter3, "mhpmcounter3"}, {CSRMhpmcounter31, "mhpmcounter31"},
		{CSRMhpmevent3, "mhpmevent3"}, {CSRMhpmevent31, "mhpmevent31"},
		{CSRTselect, "tselect"}, {CSRTdata1, "tdata1"}, {CSRTdata2, "tdata2"}, {CSRTdata3, "tdata3"},
		{CSRDcsr, "dcsr"}, {CSRDpc, "dpc"}, {CSRDscratch0, "dscratch0"}, {CSRDscratch1, "dscratch1"},
		{0x000, "0x0"},      // ustatus: N extension, gone in priv 1.12
		{0x7c0, "0x7c0"},    // custom machine read/write
		{0x1300, "mstatus"}, // only the low 12 bits count
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("CSR %#x is named %s", tt.n, tt.want), func(t *testing.T) {
			if got := CSRName(tt.n); got != tt.want {
				t.Errorf("CSRName(%#x) = %q, want %q", tt.n, got, tt.want)
			}
		})
	}
}

// TestCSRNameMatchesObjdump prints every CSR number with csrrs a0,csr,a1
// (which no alias hides) and requires objdump to print CSRName's name.
func TestCSRNameMatchesObjdump(t *testing.T) {
	words := make([]uint32, 4096)
	for n := range words {
		words[n] = uint32(n)<<20 | 11<<15 | 2<<12 | 10<<7 | opcSystem
	}
	for n, l := range objdumpWords(t, words) {
		if want := "csrrs\ta0," + CSRName(uint16(n)) + ",a1"; l.text != want {
			t.Errorf("CSR %#x: objdump prints %q, want %q", n, l.text, want)
		}
	}
}

// TestCSRByNameIsTheInverse checks that Parse can name every CSR that
// Disasm names.
func TestCSRByNameIsTheInverse(t *testing.T) {
	for n := range uint16(4096) {
		name := CSRName(n)
		if name[0] == '0' {
			continue
		}
		if got, ok := csrByName[name]; !ok || got != n {
			t.Errorf("csrByName[%q] = %#x, %v, want %#x", name, got, ok, n)
		}
	}
}
