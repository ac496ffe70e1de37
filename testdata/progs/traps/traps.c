/* traps: every synchronous exception that a bare-metal program can provoke
 * without paging (priv spec §3.1.15 table 3.6; page faults are in vm,
 * faults of atomics in amotraps): illegal instructions (including a
 * reserved rounding mode and FP with mstatus.FS = Off), breakpoints, ecall
 * from U, S and M, access faults on load, store and fetch; delegation to
 * S-mode through medeleg (§3.1.8); mtvec direct and vectored (§3.1.7:
 * exceptions always go to BASE); mret/sret (§3.3.2) and the traps of
 * mstatus.TW, TSR and TVM (§3.1.6.5). Misaligned fetch cannot happen with
 * the C extension (IALIGN = 16: jalr clears bit 0, branches are even). */
#include "rt.h"

#define FN(name, body)                                   \
	static long name(long a)                         \
	{                                                \
		asm volatile(body ::: "memory");         \
		return a;                                \
	}

FN(ill_zero, ".hword 0")
FN(ill_ones, ".word 0xffffffff")
FN(ill_rm5, ".word 0x00105053") /* fadd.s f0, f0, f1 with rm = 5 */
FN(ill_rm6, ".word 0x02106053") /* fadd.d f0, f0, f1 with rm = 6 */
FN(ill_dyn, "fadd.s f0, f0, f1") /* dynamic rm: illegal when frm is 5..7 */
FN(fp_op, "fadd.d f2, f0, f1")
FN(fp_csr, "csrr t0, fflags")
FN(fp_load, "fld f3, 0(sp)")
FN(fp_mv, "fmv.x.d t0, f0")
FN(brk, ".option push\n.option norvc\n ebreak\n.option pop")
FN(cbrk, "c.ebreak")
FN(ecall, "li a7, 1\n ecall")
FN(ld_zero, "li t0, 0\n ld t0, 0(t0)")
FN(ld_hole, "li t0, 0x40000000\n lw t0, 8(t0)")
FN(sd_zero, "li t0, 0\n sd t0, 16(t0)")
FN(sb_hole, "li t0, 0x40000000\n sb t0, 3(t0)")
FN(lr_hole, "li t0, 0x40000000\n lr.w t1, (t0)")
FN(sret_i, "la t0, 1f\n csrw sepc, t0\n sret\n 1:")
FN(sret_only, "sret")
FN(mret_only, "mret")
FN(wfi_i, "wfi")
FN(satp_r, "csrr t0, satp")
FN(sfence, "sfence.vma")

static long jump_to(long target)
{
	((void (*)(void))target)();
	return 0;
}

struct tcase {
	const char *name;
	long (*fn)(long);
	int mode;
	u64 want_cause;
	char want_mode;
};

static void run(const struct tcase *c)
{
	rt_trap_reset();
	rt_expect_traps = 1;
	if (c->mode == PRV_M)
		c->fn(0);
	else
		rt_run_in(c->mode, c->fn, 0);
	rt_expect_traps = 0;
	volatile struct rt_trap *t = rt_slast.count ? &rt_slast : &rt_last;
	/* mtval for a breakpoint is the pc or zero (priv §3.1.16: written
	 * with the faulting address only "if mtval is written with a nonzero
	 * value"); QEMU writes 0, everett the pc: not printed. */
	if (t->cause == CAUSE_BREAKPOINT)
		t->tval = 0;
	rt_printf("%s [%c]: ", c->name, "US?M"[c->mode]);
	rt_print_trap("", t);
	if (c->want_cause == ~0UL) {
		CHECK_EQ(t->count, 0);
		return;
	}
	CHECK_EQ(t->count, 1);
	CHECK_EQ(t->cause, c->want_cause);
	CHECK_EQ(t->mode, c->want_mode);
}

static long fetch_zero(long a)
{
	(void)a;
	return jump_to(0);
}
static long fetch_hole(long a)
{
	(void)a;
	return jump_to(0x40000000);
}

static void basic(void)
{
	const struct tcase cases[] = {
		{"illegal 00000000", ill_zero, PRV_M, CAUSE_ILLEGAL, 'M'},
		{"illegal ffffffff", ill_ones, PRV_M, CAUSE_ILLEGAL, 'M'},
		{"fadd.s rm=5", ill_rm5, PRV_M, CAUSE_ILLEGAL, 'M'},
		{"fadd.d rm=6", ill_rm6, PRV_M, CAUSE_ILLEGAL, 'M'},
		{"ebreak", brk, PRV_M, CAUSE_BREAKPOINT, 'M'},
		{"c.ebreak", cbrk, PRV_M, CAUSE_BREAKPOINT, 'M'},
		{"ebreak", brk, PRV_S, CAUSE_BREAKPOINT, 'M'},
		{"ebreak", brk, PRV_U, CAUSE_BREAKPOINT, 'M'},
		{"ecall", ecall, PRV_M, CAUSE_ECALL_M, 'M'},
		{"ecall", ecall, PRV_S, CAUSE_ECALL_S, 'M'},
		{"ecall", ecall, PRV_U, CAUSE_ECALL_U, 'M'},
		{"ld 0", ld_zero, PRV_M, CAUSE_LOAD_ACCESS, 'M'},
		{"lw hole", ld_hole, PRV_S, CAUSE_LOAD_ACCESS, 'M'},
		{"sd 0", sd_zero, PRV_M, CAUSE_STORE_ACCESS, 'M'},
		{"sb hole", sb_hole, PRV_U, CAUSE_STORE_ACCESS, 'M'},
		{"lr.w hole", lr_hole, PRV_M, CAUSE_LOAD_ACCESS, 'M'},
		{"fetch 0", fetch_zero, PRV_M, CAUSE_FETCH_ACCESS, 'M'},
		{"fetch hole", fetch_hole, PRV_U, CAUSE_FETCH_ACCESS, 'M'},
		{"sret in U", sret_only, PRV_U, CAUSE_ILLEGAL, 'M'},
		{"mret in S", mret_only, PRV_S, CAUSE_ILLEGAL, 'M'},
		{"mret in U", mret_only, PRV_U, CAUSE_ILLEGAL, 'M'},
		{"wfi in U", wfi_i, PRV_U, CAUSE_ILLEGAL, 'M'},
		{"satp in U", satp_r, PRV_U, CAUSE_ILLEGAL, 'M'},
		{"sfence.vma in U", sfence, PRV_U, CAUSE_ILLEGAL, 'M'},
	};
	for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++)
		run(&cases[i]);
}

static void fp_traps(void)
{
	/* dynamic rounding mode with frm = 5, 6, 7 is illegal (unpriv §11.2) */
	for (int frm = 4; frm <= 7; frm++) {
		csr_write(frm, frm);
		struct tcase c = {"fadd.s dyn", ill_dyn, PRV_M, frm == 4 ? ~0UL : CAUSE_ILLEGAL, 'M'};
		rt_printf("frm=%d ", frm);
		run(&c);
	}
	csr_write(frm, 0);
	/* FS = Off: every FP instruction and FP CSR access is illegal (priv
	 * §3.1.6.6) */
	csr_clear(mstatus, MSTATUS_FS);
	const struct tcase off[] = {
		{"FS=Off fadd.d", fp_op, PRV_M, CAUSE_ILLEGAL, 'M'},
		{"FS=Off csrr fflags", fp_csr, PRV_M, CAUSE_ILLEGAL, 'M'},
		{"FS=Off fld", fp_load, PRV_M, CAUSE_ILLEGAL, 'M'},
		{"FS=Off fmv.x.d", fp_mv, PRV_S, CAUSE_ILLEGAL, 'M'},
	};
	for (unsigned i = 0; i < sizeof off / sizeof off[0]; i++)
		run(&off[i]);
	rt_printf("mstatus.FS after Off traps %lx\n", (csr_read(mstatus) >> 13) & 3);
	/* FS = Initial/Clean become Dirty on an FP register write */
	csr_set(mstatus, MSTATUS_FS_CLEAN);
	rt_printf("FS clean %lx\n", (csr_read(mstatus) >> 13) & 3);
	asm volatile("fmv.d.x f5, zero");
	rt_printf("FS after fmv.d.x %lx SD %lx\n", (csr_read(mstatus) >> 13) & 3, csr_read(mstatus) >> 63);
}

static void delegation(void)
{
	csr_write(stvec, (u64)rt_strap_entry);
	csr_write(medeleg, 1 << CAUSE_BREAKPOINT | 1 << CAUSE_ECALL_U | 1 << CAUSE_ILLEGAL |
				   1 << CAUSE_LOAD_ACCESS | 1 << CAUSE_FETCH_ACCESS);
	const struct tcase cases[] = {
		{"deleg ebreak", brk, PRV_U, CAUSE_BREAKPOINT, 'S'},
		{"deleg ebreak", brk, PRV_S, CAUSE_BREAKPOINT, 'S'},
		{"deleg ebreak", brk, PRV_M, CAUSE_BREAKPOINT, 'M'},
		{"deleg ecall", ecall, PRV_U, CAUSE_ECALL_U, 'S'},
		{"undeleg ecall", ecall, PRV_S, CAUSE_ECALL_S, 'M'},
		{"deleg illegal", ill_zero, PRV_U, CAUSE_ILLEGAL, 'S'},
		{"deleg lw hole", ld_hole, PRV_S, CAUSE_LOAD_ACCESS, 'S'},
		{"undeleg sd 0", sd_zero, PRV_U, CAUSE_STORE_ACCESS, 'M'},
		{"deleg fetch hole", fetch_hole, PRV_U, CAUSE_FETCH_ACCESS, 'S'},
	};
	for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		run(&cases[i]);
		if (rt_slast.count)
			rt_printf("  sepc-in-range %d scause %lx stval %016lx spp %lx\n",
				  rt_slast.epc >= 0x80000000, csr_read(scause),
				  csr_read(scause) == CAUSE_BREAKPOINT ? 0 : csr_read(stval),
				  (csr_read(sstatus) >> 8) & 1);
	}
	csr_write(medeleg, 0);
}

static void tvec_modes(void)
{
	u64 saved = csr_read(mtvec);
	/* vectored mode: exceptions still go to BASE (vector 0) */
	csr_write(mtvec, (u64)rt_mtrap_vectors | 1);
	rt_printf("mtvec vectored %d\n", csr_read(mtvec) == ((u64)rt_mtrap_vectors | 1));
	struct tcase c = {"vectored ebreak", brk, PRV_M, CAUSE_BREAKPOINT, 'M'};
	run(&c);
	rt_printf("vector %ld\n", rt_last.vec);
	CHECK_EQ(rt_last.vec, 0);
	csr_write(mtvec, saved);
	run(&c);
	rt_printf("direct vector %ld\n", rt_last.vec);
	CHECK_EQ(rt_last.vec, -1);
}

static void status_traps(void)
{
	/* TSR: sret in S is illegal; TW: wfi in S is illegal; TVM: satp and
	 * sfence.vma in S are illegal. */
	static const struct {
		const char *name;
		u64 bit;
		long (*fn)(long);
	} cases[] = {
		{"TSR sret", MSTATUS_TSR, sret_only},
		{"TW wfi", MSTATUS_TW, wfi_i},
		{"TVM satp", MSTATUS_TVM, satp_r},
		{"TVM sfence.vma", MSTATUS_TVM, sfence},
	};
	for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		csr_set(mstatus, cases[i].bit);
		struct tcase c = {cases[i].name, cases[i].fn, PRV_S, CAUSE_ILLEGAL, 'M'};
		run(&c);
		csr_clear(mstatus, cases[i].bit);
	}
	/* without TVM, satp and sfence.vma in S are fine */
	struct tcase ok1 = {"satp in S", satp_r, PRV_S, ~0UL, 'M'};
	struct tcase ok2 = {"sfence.vma in S", sfence, PRV_S, ~0UL, 'M'};
	run(&ok1);
	run(&ok2);
	/* sret from S returns to SPP and sets SPP = U, SIE = SPIE, SPIE = 1 */
	struct tcase ok3 = {"sret in S", sret_i, PRV_S, ~0UL, 'M'};
	csr_set(sstatus, MSTATUS_SPP);
	run(&ok3);
}

/* mret: MPP becomes U (the least-privileged mode), MPRV is cleared when
 * the new mode is not M, MIE = MPIE, MPIE = 1 (priv §3.1.6.1). */
static void mret_fields(void)
{
	u64 before = csr_read(mstatus);
	csr_set(mstatus, MSTATUS_MPP | MSTATUS_MPRV);
	csr_clear(mstatus, MSTATUS_MPIE);
	u64 after;
	asm volatile("la t0, 1f\n csrw mepc, t0\n mret\n1: csrr %0, mstatus" : "=r"(after)::"t0");
	rt_printf("after mret to M: MPP=%lx MPRV=%lx MIE=%lx MPIE=%lx\n", (after >> 11) & 3, (after >> 17) & 1,
		  (after >> 3) & 1, (after >> 7) & 1);
	CHECK_EQ((after >> 11) & 3, PRV_U);
	CHECK_EQ((after >> 17) & 1, 1);
	csr_write(mstatus, before);
}

static long in_s_mret_check(long a)
{
	(void)a;
	return (long)csr_read(sstatus);
}

int main(void)
{
	basic();
	fp_traps();
	delegation();
	tvec_modes();
	status_traps();
	rt_printf("sstatus in S %016lx\n", rt_run_in(PRV_S, in_s_mret_check, 0));
	mret_fields();
	rt_printf("traps done\n");
	return 0;
}
