/* irqprio: the priority order of simultaneous interrupts (priv spec
 * §3.1.9: "Multiple simultaneous interrupts destined for M-mode are
 * handled in the following decreasing priority order: MEI, MSI, MTI, SEI,
 * SSI, STI"). MSI, MTI, SSI and STI are made pending together with
 * mstatus.MIE = 0, then enabled at once.
 *
 * QEMU 7.2 takes pending interrupts lowest cause number first (SSI, MSI,
 * STI, MTI), so the differential test leaves this program out. */
#include "irqrec.h"

static void priority(void)
{
	*CLINT_MSIP(0) = 1;
	*CLINT_MTIMECMP(0) = 0;
	csr_set(mip, 2 | 32);
	while (!(csr_read(mip) & (1 << 7)))
		;
	csr_write(mie, 0xaa);
	csr_set(mstatus, MSTATUS_MIE);
	asm volatile("nop");
	csr_clear(mstatus, MSTATUS_MIE);
	CHECK_EQ(nseq, 4);
	CHECK_EQ(seq[0], 3);
	CHECK_EQ(seq[1], 7);
	CHECK_EQ(seq[2], 1);
	CHECK_EQ(seq[3], 5);
	print_seq("priority");
	csr_write(mie, 0);
}

int main(void)
{
	priority();
	return 0;
}
