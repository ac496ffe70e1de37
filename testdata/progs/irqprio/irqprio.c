/* irqprio: the priority order of simultaneous interrupts (priv spec
 * §3.1.9: "Multiple simultaneous interrupts destined for M-mode are
 * handled in the following decreasing priority order: MEI, MSI, MTI, SEI,
 * SSI, STI"). MSI, MTI, SSI and STI are made pending together with
 * mstatus.MIE = 0, then enabled at once.
 *
 * QEMU 7.2 takes pending interrupts lowest cause number first (SSI, MSI,
 * STI, MTI), so the differential test leaves this program out. */
#include "rt.h"

static volatile u64 seq[16];
static volatile int nseq;
static volatile i64 vecs[16];
static volatile char modes[16];

void rt_irq_hook(struct rt_frame *f, char mode)
{
	u64 cause = f->cause & ~CAUSE_INTR;
	if (nseq < 16) {
		vecs[nseq] = f->vec;
		modes[nseq] = mode;
		seq[nseq++] = cause;
	}
	switch (cause) {
	case 3:
		*CLINT_MSIP(0) = 0;
		break;
	case 7:
		*CLINT_MTIMECMP(0) = ~0UL;
		break;
	case 1:
		if (mode == 'M')
			csr_clear(mip, 2);
		else
			csr_clear(sip, 2);
		break;
	case 5:
		csr_clear(mip, 32);
		break;
	default:
		rt_printf("unexpected interrupt %lx\n", cause);
		rt_exit(3);
	}
}

static void print_seq(const char *what)
{
	rt_printf("%s:", what);
	for (int i = 0; i < nseq; i++)
		rt_printf(" %c%lu/v%ld", modes[i], seq[i], vecs[i]);
	rt_printf("\n");
	nseq = 0;
}

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
