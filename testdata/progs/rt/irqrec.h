/* irqrec.h: the interrupt recorder shared by the interrupt test programs.
 * rt_irq_hook records every interrupt taken (cause, mode, vector) and
 * clears its source; print_seq prints and forgets the record. Included by
 * exactly one C file of a program.
 *
 * A loop `while (!done) wfi;` run with interrupts enabled loses its wakeup
 * when the interrupt is taken between the test and the wfi: the handler
 * clears the source, and the wfi then sleeps with nothing left to wake it.
 * On QEMU, whose mtime follows the host clock, a loaded host hits that
 * window now and then. The recorder closes it: an interrupt taken with
 * mepc at a wfi returns past the wfi, so the loop tests again. */
#ifndef IRQREC_H
#define IRQREC_H

#include "rt.h"

static volatile u64 seq[16];
static volatile int nseq;
static volatile i64 vecs[16];
static volatile char modes[16];

void rt_irq_hook(struct rt_frame *f, char mode)
{
	u64 cause = f->cause & ~CAUSE_INTR;
	/* the wfi encoding, read as two halves (epc may be 2-byte aligned) */
	volatile u16 *at = (volatile u16 *)f->epc;
	if (at[0] == 0x0073 && at[1] == 0x1050)
		f->epc += 4;
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

#endif
