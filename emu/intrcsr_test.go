package emu

import "testing"

// interruptCSRProgram reads and writes sie, mie and mip in every form,
// from values that change every pass; below a CSR's privilege the access
// traps to the M handler of withSkipHandler (at 0x100), which skips it.
// In M it writes mstatus too, in every form, some of the writes changing
// the bits that make translated code leave (MPP, MPRV, SUM, MXR). Each
// pass first makes SSIP pending (through sip, from S, when delegated);
// the S handler at 0xc0 counts the interrupts it takes in s8
// and clears SSIP.
var interruptCSRProgram = func() []string {
	p := []string{
		"addi a0,a0,1",      // 80000000
		"csrrsi zero,sip,2", // SSIP pending (traps in U, ignored in M: sip is an S view)
		"csrrs t0,sie,a0",
		"add a1,a1,t0",
		"csrrc t1,sie,a1", // 80000010
		"add a1,a1,t1",
		"csrrsi t2,sie,2", // taken right after this in S with SIE set
		"csrrci t3,sie,2",
		"csrrw t4,sie,a0", // 80000020
		"add a1,a1,t4",
		"csrrs t5,mie,a1", // traps below M
		"csrrc a2,mie,a0",
		"csrrw s2,mip,a1", // 80000030
		"csrrs s3,mip,zero",
		"csrrsi s4,mip,2",
		"csrrci s5,mip,2",
		"add a1,a1,s2", // 80000040
		"add a1,a1,s3",
		"add a1,a1,s4",
		"add a1,a1,s5",
		"csrrs s6,sie,zero", // 80000050
		"add a1,a1,s6",
		"add a1,a1,a2",
		"csrrwi a3,sie,0",
		"add a1,a1,t5", // 80000060
		"add a1,a1,a3",
		"csrrs a4,mie,zero",
		"add a1,a1,a4",
		"csrrs s9,mstatus,zero", // 80000070: mstatus traps below M
		"csrrsi s10,mstatus,2",  // SIE: in M, no S interrupt is taken
		"csrrci s11,mstatus,2",
		"xori a6,s9,0x122",    // SIE, SPIE, SPP
		"csrrw a5,mstatus,a6", // 80000080
		"csrrc a7,mstatus,a6",
		"slli a6,a0,11", // MPP (2 is ignored), FS, MPRV, SUM, MXR, TVM, TW, TSR
		"csrrs a7,mstatus,a6",
		"add a1,a1,a5", // 80000090
		"add a1,a1,a7",
		"add a1,a1,s10",
		"add a1,a1,s11",
		"csrrw zero,mstatus,s9", // 800000a0
		"j 80000000",
	}
	for len(p) < 0xc0/4 {
		p = append(p, "addi zero,zero,0")
	}
	p = append(p,
		"addi s8,s8,1",      // 800000c0: the S handler
		"csrrci zero,sip,2", // clears SSIP
		"sret",
	)
	return withSkipHandler(p)
}()

func TestTheEnginesAgreeOnTheInterruptCSRsAndMstatusWrites(t *testing.T) {
	if !JITSupported() {
		t.Skip("the JIT needs a linux/amd64 host")
	}
	for _, c := range []struct {
		name     string
		priv     uint8
		mstatus  uint64
		mip      uint64
		seipLine bool
	}{
		{"M, MIE clear", PrivM, 0, MipSTIP | MipMTIP, false},
		{"M, SEIP from the line", PrivM, 0, MipSEIP, true},
		{"S, SIE clear", PrivS, 0, MipSTIP, false},
		{"S, SIE set", PrivS, mstatusSIE, 0, false},
		{"U", PrivU, 0, MipSTIP, false},
	} {
		build := programBuild(t, interruptCSRProgram, 1, 100, func(m *Machine) {
			h := m.harts[0]
			h.priv = c.priv
			h.csr.mstatus |= c.mstatus
			h.csr.mtvec = DefaultRAMBase + 0x100
			h.csr.stvec = DefaultRAMBase + 0xc0
			h.csr.mideleg = MipSSIP | MipSTIP | MipSEIP
			h.csr.mip = c.mip
			h.csr.seipLine = c.seipLine
		})
		agreeTo40K(t, c.name, build)
		m := runJIT40K(t, build)
		h := m.harts[0]
		st := m.JITStats()
		if st.Insns < 10_000 {
			t.Fatalf("%s: only %d of 40000 slots in host code", c.name, st.Insns)
		}
		switch c.priv {
		case PrivM:
			// Every access is allowed: only the one to sip (not
			// translated) and the mstatus writes that change MPP, MPRV,
			// SUM or MXR leave before their op, at most four a pass (a0
			// counts passes).
			if n, passes := st.Exits[ExitCSR], h.x[10]; n > 4*passes+1 {
				t.Fatalf("%s: %d exits before a CSR op in %d passes, want one a pass: the accesses were not translated", c.name, n, passes)
			}
		case PrivS:
			if taken := h.x[24]; (c.mstatus&mstatusSIE != 0) != (taken != 0) {
				t.Fatalf("%s: %d interrupts taken", c.name, taken)
			}
		}
		t.Logf("%s: %d slots in host code, exits %v", c.name, st.Insns, st.Exits)
	}
}
