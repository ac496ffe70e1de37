/* counters: the time CSR and writes to mcycle/minstret (priv spec §3.1.10
 * "Hardware Performance Monitor", unpriv spec ch. 10 "Zicntr").
 *
 * Not in the differential test against QEMU: QEMU 7.2's spike machine
 * does not provide the time CSR (every read traps, for firmware to
 * emulate), and QEMU 7.2 does not make a write to mcycle/minstret set the
 * value read afterwards. Values are never printed, only relations. */
#include "rt.h"

static long r_time(long a)
{
	(void)a;
	return (long)csr_read(time);
}

int main(void)
{
	/* time is a shadow of the CLINT's mtime */
	u64 m0 = *CLINT_MTIME;
	u64 t = csr_read(time);
	u64 m1 = *CLINT_MTIME;
	CHECK(m0 <= t && t <= m1);
	/* mtime advances with retired instructions (100 per tick) */
	for (volatile int i = 0; i < 1000; i++)
		;
	CHECK(*CLINT_MTIME > m1);
	/* time from S and U, gated by mcounteren.TM and scounteren.TM */
	static const struct {
		u64 m, s;
		int mode;
		int traps;
	} cases[] = {
		{0, 0, PRV_S, 1}, {2, 0, PRV_S, 0}, {2, 0, PRV_U, 1}, {2, 2, PRV_U, 0}, {0, 2, PRV_U, 1},
	};
	for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		csr_write(mcounteren, cases[i].m);
		csr_write(scounteren, cases[i].s);
		rt_trap_reset();
		rt_expect_traps = 1;
		rt_run_in(cases[i].mode, r_time, 0);
		rt_expect_traps = 0;
		rt_printf("time mcounteren=%lx scounteren=%lx mode=%d: ", cases[i].m, cases[i].s, cases[i].mode);
		rt_print_trap("", &rt_last);
		CHECK_EQ(rt_last.count, cases[i].traps);
		if (cases[i].traps)
			CHECK_EQ(rt_last.cause, CAUSE_ILLEGAL);
	}
	/* a write to mcycle/minstret sets the count (priv spec §3.1.10) */
	csr_write(minstret, 1000000);
	u64 i0 = csr_read(minstret);
	CHECK(i0 >= 1000000 && i0 < 1000010);
	csr_write(mcycle, 5000000);
	u64 c0 = csr_read(mcycle);
	CHECK(c0 >= 5000000 && c0 < 5001000);
	/* instret counts exactly: a loop of known length */
	u64 a, b;
	asm volatile("csrr %0, instret\n"
		     "nop\n nop\n nop\n nop\n nop\n nop\n nop\n nop\n nop\n nop\n"
		     "csrr %1, instret"
		     : "=r"(a), "=r"(b));
	CHECK_EQ(b - a, 11);
	rt_printf("counters ok\n");
	return 0;
}
