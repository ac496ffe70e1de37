/* interrupts: machine timer (CLINT mtimecmp) and software (msip)
 * interrupts, wfi, the priority order of simultaneous interrupts (priv spec
 * §3.1.9: MEI, MSI, MTI, SEI, SSI, STI), vectored mtvec (§3.1.7: cause n
 * goes to BASE + 4n), delegation of S-level interrupts through mideleg to
 * an S-mode handler (§3.1.8), and the global enables: M interrupts are
 * taken in S and U whatever mstatus.MIE says (§3.1.6.1). Nothing
 * timing-dependent is printed. The priority order is in irqprio. */
#include "irqrec.h"

static void timer(void)
{
	csr_write(mie, 1 << 7);
	*CLINT_MTIMECMP(0) = *CLINT_MTIME + 50;
	/* pending but globally disabled: wfi still wakes (§3.3.3) */
	while (!(csr_read(mip) & (1 << 7)))
		asm volatile("wfi");
	print_seq("timer pending, MIE=0");
	csr_set(mstatus, MSTATUS_MIE);
	asm volatile("nop");
	csr_clear(mstatus, MSTATUS_MIE);
	print_seq("timer taken");
	CHECK_EQ(csr_read(mcause), CAUSE_INTR | 7);
	/* wfi with MIE=1: the interrupt is taken after it */
	*CLINT_MTIMECMP(0) = *CLINT_MTIME + 50;
	csr_set(mstatus, MSTATUS_MIE);
	while (nseq == 0)
		asm volatile("wfi");
	csr_clear(mstatus, MSTATUS_MIE);
	print_seq("timer after wfi");
	csr_write(mie, 0);
}

static void software(void)
{
	csr_write(mie, 1 << 3);
	*CLINT_MSIP(0) = 1;
	rt_printf("msip reads %u mip.MSIP %lu\n", *CLINT_MSIP(0), (csr_read(mip) >> 3) & 1);
	csr_set(mstatus, MSTATUS_MIE);
	asm volatile("nop");
	csr_clear(mstatus, MSTATUS_MIE);
	print_seq("software");
	rt_printf("msip after %u\n", *CLINT_MSIP(0));
	csr_write(mie, 0);
}

static void vectored(void)
{
	u64 saved = csr_read(mtvec);
	csr_write(mtvec, (u64)rt_mtrap_vectors | 1);
	csr_write(mie, 0xaa);
	*CLINT_MSIP(0) = 1;
	csr_set(mip, 32);
	csr_set(mstatus, MSTATUS_MIE);
	asm volatile("nop");
	*CLINT_MTIMECMP(0) = 0;
	while (nseq < 3)
		;
	csr_clear(mstatus, MSTATUS_MIE);
	print_seq("vectored");
	csr_write(mie, 0);
	csr_write(mtvec, saved);
}

static long s_wait_ssip(long a)
{
	(void)a;
	csr_set(sie, 2);
	csr_set(sstatus, MSTATUS_SIE);
	csr_set(sip, 2);
	asm volatile("nop");
	csr_clear(sstatus, MSTATUS_SIE);
	return (long)csr_read(scause);
}

static long u_spin(long a)
{
	(void)a;
	for (volatile int i = 0; i < 200; i++)
		;
	return 0;
}

static void delegation(void)
{
	csr_write(stvec, (u64)rt_strap_entry);
	csr_write(mideleg, 0x222);
	long sc = rt_run_in(PRV_S, s_wait_ssip, 0);
	print_seq("SSI delegated, taken in S");
	rt_printf("scause %lx\n", (u64)sc);
	/* a delegated interrupt is not taken in M while pending */
	csr_write(mie, 2);
	csr_set(mip, 2);
	csr_set(mstatus, MSTATUS_MIE);
	asm volatile("nop");
	csr_clear(mstatus, MSTATUS_MIE);
	print_seq("SSI delegated, pending in M");
	/* ... and is taken in U (S interrupts are enabled below S) */
	rt_run_in(PRV_U, u_spin, 0);
	print_seq("SSI delegated, taken from U");
	csr_write(mideleg, 0);
	/* an M interrupt is taken in U and S although mstatus.MIE = 0 */
	csr_write(mie, 1 << 3);
	*CLINT_MSIP(0) = 1;
	rt_run_in(PRV_U, u_spin, 0);
	print_seq("MSI from U with MIE=0");
	*CLINT_MSIP(0) = 1;
	rt_run_in(PRV_S, u_spin, 0);
	print_seq("MSI from S with MIE=0");
	csr_write(mie, 0);
}

int main(void)
{
	timer();
	software();
	vectored();
	delegation();
	rt_printf("interrupts done\n");
	return 0;
}
