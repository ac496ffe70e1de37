/* smp: four harts (run with --smp 4 / -smp 4). Each hart computes a
 * result from its mhartid, adds to shared counters with AMOs and with an
 * LR/SC loop, meets the others at a sense-reversing barrier, and then
 * waits in wfi for an inter-processor interrupt (CLINT msip) from hart 0,
 * which it acknowledges. Hart 0 prints the combined results, which depend
 * only on mhartid, never on the interleaving (unpriv ch. 8 "A", priv
 * §3.3.3 "WFI", ACLINT MSWI). */
#include "rt.h"

#define NHARTS 4
#define ITERS 2000

static volatile u64 amo_count, lrsc_count, maxv, minv = ~0UL;
static volatile u64 result[NHARTS];
static volatile u64 barrier_count, barrier_sense;
static volatile u64 acks[NHARTS];
static volatile u64 order_sum;

static void barrier(u64 *local_sense)
{
	*local_sense = !*local_sense;
	if (__atomic_add_fetch(&barrier_count, 1, __ATOMIC_ACQ_REL) == NHARTS) {
		barrier_count = 0;
		__atomic_store_n(&barrier_sense, *local_sense, __ATOMIC_RELEASE);
	} else {
		while (__atomic_load_n(&barrier_sense, __ATOMIC_ACQUIRE) != *local_sense)
			;
	}
}

static u64 work(u64 id)
{
	u64 h = 0xcbf29ce484222325UL ^ id;
	for (int i = 0; i < 500; i++)
		h = (h ^ (u64)i) * 0x100000001b3UL;
	return h;
}

static void run(u64 id)
{
	u64 sense = 0;
	result[id] = work(id);
	for (int i = 0; i < ITERS; i++) {
		asm volatile("amoadd.d zero, %1, (%0)" ::"r"(&amo_count), "r"(1UL) : "memory");
		u64 old, fail;
		asm volatile("1: lr.d.aq %0, (%2)\n addi %0, %0, 2\n sc.d.rl %1, %0, (%2)\n bnez %1, 1b"
			     : "=&r"(old), "=&r"(fail)
			     : "r"(&lrsc_count)
			     : "memory");
	}
	asm volatile("amomaxu.d zero, %1, (%0)" ::"r"(&maxv), "r"(result[id]) : "memory");
	asm volatile("amominu.d zero, %1, (%0)" ::"r"(&minv), "r"(result[id]) : "memory");
	barrier(&sense);
	/* everyone sees every result after the barrier */
	u64 x = 0;
	for (int h = 0; h < NHARTS; h++)
		x ^= result[h];
	__atomic_fetch_add(&order_sum, x, __ATOMIC_RELAXED);
	barrier(&sense);
}

int rt_secondary_main(int hartid)
{
	if (hartid >= NHARTS)
		return 0;
	run(hartid);
	/* wait for the IPI from hart 0 */
	csr_write(mie, 1 << 3);
	while (!(csr_read(mip) & (1 << 3)))
		asm volatile("wfi");
	*CLINT_MSIP(hartid) = 0;
	__atomic_store_n(&acks[hartid], 1, __ATOMIC_RELEASE);
	return 0;
}

int main(void)
{
	run(0);
	for (int h = 1; h < NHARTS; h++)
		*CLINT_MSIP(h) = 1;
	for (int h = 1; h < NHARTS; h++)
		while (!__atomic_load_n(&acks[h], __ATOMIC_ACQUIRE))
			;
	for (int h = 0; h < NHARTS; h++)
		rt_printf("hart %d result %016lx\n", h, result[h]);
	rt_printf("amo %lu lrsc %lu max %016lx min %016lx xor-sum %016lx\n", amo_count, lrsc_count, maxv, minv,
		  order_sum);
	CHECK_EQ(amo_count, NHARTS * ITERS);
	CHECK_EQ(lrsc_count, 2 * NHARTS * ITERS);
	u64 x = 0;
	for (int h = 0; h < NHARTS; h++) {
		CHECK_EQ(result[h], work(h));
		x ^= work(h);
	}
	CHECK_EQ(order_sum, NHARTS * x);
	return 0;
}
