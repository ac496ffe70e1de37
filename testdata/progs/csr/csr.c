/* csr: Zicsr (unpriv spec ch. 9): the six CSR instructions and their
 * x0/zero-immediate forms that do not write, read-only CSRs (priv spec
 * §2.1: writing one raises illegal instruction), CSRs of a higher mode,
 * WARL fields, and the counters with mcounteren/scounteren gating from S
 * and U (priv spec §3.1.11, §4.1.5). The time CSR is in timecsr: QEMU's
 * spike machine does not implement it (reads trap, for firmware to
 * emulate). Counter values are never printed: they
 * count time differently on every emulator; only their monotonicity is
 * checked. */
#include "rt.h"

static void six_forms(void)
{
	u64 old, v, saved = csr_read(mscratch); /* the M trap stack */
	csr_write(mscratch, 0xf0f0);
	asm volatile("csrrw %0, mscratch, %1" : "=r"(old) : "r"(0x1234UL));
	CHECK_EQ(old, 0xf0f0);
	asm volatile("csrrs %0, mscratch, %1" : "=r"(old) : "r"(0xff00UL));
	CHECK_EQ(old, 0x1234);
	asm volatile("csrrc %0, mscratch, %1" : "=r"(old) : "r"(0x0f0fUL));
	CHECK_EQ(old, 0xff34);
	asm volatile("csrrwi %0, mscratch, 31" : "=r"(old));
	CHECK_EQ(old, 0xf030);
	asm volatile("csrrsi %0, mscratch, 0x8" : "=r"(old));
	CHECK_EQ(old, 31);
	asm volatile("csrrci %0, mscratch, 0x3" : "=r"(old));
	CHECK_EQ(old, 31);
	v = csr_read(mscratch);
	CHECK_EQ(v, 28);
	/* rd = x0: csrrw still writes */
	asm volatile("csrrw x0, mscratch, %0" ::"r"(-1UL));
	CHECK_EQ(csr_read(mscratch), -1UL);
	csr_write(mscratch, saved);
	rt_printf("six forms ok\n");
}

/* One CSR access per function, so that a trap in it is attributable. */
#define ACC(fn, insn)                                                   \
	static long fn(long a)                                          \
	{                                                               \
		u64 r = 0x5a5a;                                         \
		asm volatile(insn : "+r"(r) : "r"(a) : "memory");       \
		return (long)r;                                         \
	}
ACC(w_mhartid, "csrw mhartid, %1")
ACC(w_mvendorid, "csrrw %0, mvendorid, %1")
ACC(s_marchid, "csrrs %0, marchid, %1")
ACC(s0_mimpid, "csrrs %0, mimpid, x0")
ACC(c0_mhartid, "csrrc %0, mhartid, x0")
ACC(si0_mhartid, "csrrsi %0, mhartid, 0")
ACC(si_mhartid, "csrrsi %0, mhartid, 1")
ACC(w_cycle, "csrw cycle, %1")
ACC(ci_instret, "csrrci %0, instret, 2")
ACC(r_cycle, "csrr %0, cycle")
ACC(r_instret, "csrr %0, instret")
ACC(r_hpm3, "csrr %0, hpmcounter3")
ACC(r_custom, "csrr %0, 0x7c0")
ACC(r_mstatus, "csrr %0, mstatus")
ACC(r_sstatus, "csrr %0, sstatus")
ACC(w_sscratch, "csrw sscratch, %1")
ACC(r_satp, "csrr %0, satp")
ACC(r_mscratch, "csrr %0, mscratch")
ACC(r_fflags, "csrr %0, fflags")
ACC(r_mcycle, "csrr %0, mcycle")

static const char *mode_name(int m) { return m == PRV_M ? "M" : m == PRV_S ? "S" : "U"; }

static void access(const char *name, long (*fn)(long), int mode)
{
	u64 scratch = csr_read(mscratch);
	rt_trap_reset();
	rt_expect_traps = 1;
	if (mode == PRV_M)
		fn(7);
	else
		rt_run_in(mode, fn, 7);
	rt_expect_traps = 0;
	csr_write(mscratch, scratch);
	rt_printf("%s from %s: ", name, mode_name(mode));
	rt_print_trap("", &rt_last);
}

static void read_only_and_privilege(void)
{
	static const struct {
		const char *name;
		long (*fn)(long);
		int mode;
	} cases[] = {
		{"csrw mhartid", w_mhartid, PRV_M},
		{"csrrw mvendorid", w_mvendorid, PRV_M},
		{"csrrs marchid,rs1!=0", s_marchid, PRV_M},
		{"csrrs mimpid,x0", s0_mimpid, PRV_M},
		{"csrrc mhartid,x0", c0_mhartid, PRV_M},
		{"csrrsi mhartid,0", si0_mhartid, PRV_M},
		{"csrrsi mhartid,1", si_mhartid, PRV_M},
		{"csrw cycle", w_cycle, PRV_M},
		{"csrrci instret,2", ci_instret, PRV_M},
		{"csrr 0x7c0", r_custom, PRV_M},
		{"csrr mstatus", r_mstatus, PRV_S},
		{"csrr mscratch", r_mscratch, PRV_S},
		{"csrr mcycle", r_mcycle, PRV_S},
		{"csrr sstatus", r_sstatus, PRV_S},
		{"csrr sstatus", r_sstatus, PRV_U},
		{"csrw sscratch", w_sscratch, PRV_U},
		{"csrr satp", r_satp, PRV_U},
		{"csrr fflags", r_fflags, PRV_U},
	};
	for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++)
		access(cases[i].name, cases[i].fn, cases[i].mode);
}

static void counters(void)
{
	static const struct {
		const char *name;
		long (*fn)(long);
		int bit;
	} ctr[] = {{"cycle", r_cycle, 0}, {"instret", r_instret, 2},
		   {"hpmcounter3", r_hpm3, 3}};
	static const struct {
		u64 mcounteren, scounteren;
	} en[] = {{0, 0}, {0xf, 0}, {0, 0xf}, {0xf, 0xf}, {0x5, 0xa}, {0xa, 0xf}};
	for (unsigned e = 0; e < sizeof en / sizeof en[0]; e++) {
		csr_write(mcounteren, en[e].mcounteren);
		csr_write(scounteren, en[e].scounteren);
		rt_printf("mcounteren=%lx scounteren=%lx\n", csr_read(mcounteren), csr_read(scounteren));
		for (unsigned c = 0; c < sizeof ctr / sizeof ctr[0]; c++) {
			access(ctr[c].name, ctr[c].fn, PRV_S);
			access(ctr[c].name, ctr[c].fn, PRV_U);
		}
	}
	csr_write(mcounteren, 0);
	csr_write(scounteren, 0);

	/* monotonic counters (values not printed) */
	u64 c0 = csr_read(mcycle), i0 = csr_read(minstret);
	for (volatile int i = 0; i < 100; i++)
		;
	u64 c1 = csr_read(cycle), i1 = csr_read(instret);
	CHECK(c1 > c0);
	CHECK(i1 > i0 + 100);
	/* hpmcounter3 is implemented as read-only zero here */
	CHECK_EQ(csr_read(mhpmcounter3), 0);
	rt_printf("counters monotonic\n");
}

static void warl(void)
{
	u64 saved = csr_read(mtvec);
	/* mtvec: MODE >= 2 is reserved (priv spec §3.1.7) */
	csr_write(mtvec, 0x80001001UL);
	rt_printf("mtvec vectored %016lx\n", csr_read(mtvec));
	csr_write(mtvec, saved);
	/* satp: a write of an unsupported MODE has no effect (§4.1.11) */
	csr_write(satp, 0);
	csr_write(satp, 5UL << 60 | 0x1234);
	rt_printf("satp after mode 5: %016lx\n", csr_read(satp));
	csr_write(satp, 8UL << 60 | 0xffffUL << 44 | 0x80123);
	rt_printf("satp sv39: %016lx\n", csr_read(satp));
	csr_write(satp, 9UL << 60 | 0x80123);
	rt_printf("satp sv48: %016lx\n", csr_read(satp));
	csr_write(satp, 0);
	/* sstatus is a restricted view of mstatus (§4.1.1) */
	u64 ms = csr_read(mstatus);
	csr_set(sstatus, MSTATUS_SUM | MSTATUS_MXR | MSTATUS_SIE | MSTATUS_MIE | MSTATUS_MPRV);
	rt_printf("mstatus after sstatus set %016lx sstatus %016lx\n", csr_read(mstatus), csr_read(sstatus));
	csr_write(mstatus, ms);
	/* sie/sip are views of mie/mip restricted by mideleg (§4.1.3) */
	csr_write(mideleg, 0x222);
	csr_write(mie, 0xaaa);
	rt_printf("mie %lx sie %lx\n", csr_read(mie), csr_read(sie));
	csr_write(sie, 0);
	rt_printf("after sie=0: mie %lx sie %lx\n", csr_read(mie), csr_read(sie));
	csr_write(mie, 0);
	/* S-level software interrupt pending bit written through mip and sip */
	csr_set(mip, 2);
	rt_printf("mip.SSIP %lx sip %lx\n", csr_read(mip) & 0x222, csr_read(sip));
	csr_clear(sip, 2);
	rt_printf("after sip clear: mip %lx\n", csr_read(mip) & 0x222);
	csr_write(mideleg, 0);
	/* medeleg: ecall from M cannot be delegated (§3.1.8) */
	csr_write(medeleg, 0xbfff);
	rt_printf("medeleg %lx\n", csr_read(medeleg));
	csr_write(medeleg, 0);
	/* frm/fflags are fields of fcsr (unpriv §11.2) */
	csr_write(fcsr, 0xff);
	rt_printf("fcsr %lx frm %lx fflags %lx\n", csr_read(fcsr), csr_read(frm), csr_read(fflags));
	csr_write(frm, 7);
	csr_write(fflags, 0x15);
	rt_printf("fcsr %lx\n", csr_read(fcsr));
	csr_write(fcsr, 0x1ff);
	rt_printf("fcsr upper bits %lx\n", csr_read(fcsr));
	csr_write(fcsr, 0);
	rt_printf("mhartid %lu mvendorid %lx\n", csr_read(mhartid), csr_read(mvendorid));
}

int main(void)
{
	six_forms();
	read_only_and_privilege();
	counters();
	warl();
	return 0;
}
