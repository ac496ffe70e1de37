/* ttas: three harts share a counter behind a test-then-set lock.
 *
 * The lock is the textbook mistake: acquire() waits until the lock word
 * reads 0 and then stores 1, in two steps instead of one atomic swap. Two
 * harts get inside together only if one is switched out in the two
 * instructions between its test and its set, and another takes the lock
 * and is switched out inside the critical section. Each hart mostly does
 * private work between acquisitions, so the window is a handful of
 * instructions in thousands: round-based schedules almost never hit it;
 * preemption at communication events (a hart about to store to a line
 * another hart read) does. Run with `everett run --smp 3 ttas.elf` (it
 * passes: a fixed schedule never interleaves inside the window), or explore
 * it with `everett explore --elf ttas.elf --smp 3`. README.md says more. */
#include "../../sdk/everett.h"

typedef unsigned long u64;

#define NHARTS 3
#define ROUNDS 24 /* acquisitions per hart */

volatile u64 tohost __attribute__((section(".tohost"), aligned(64)));
volatile u64 fromhost __attribute__((section(".tohost"), aligned(64)));

/* Set by main when the other harts may start (crt0.S waits for it). */
int released __attribute__((section(".data"))) = 0;

/* The lock and the data it protects live on pages of their own, as a lock
 * word and the structure it guards usually do. */
static volatile int lock_word __attribute__((aligned(4096)));
static struct {
	volatile long inside; /* harts in the critical section */
	volatile long total;  /* acquisitions, all harts */
	volatile long last;   /* the hart that last held the lock */
} shared __attribute__((aligned(4096)));
static volatile int done[NHARTS];
static volatile long scratch[NHARTS][512] __attribute__((aligned(4096)));

void __attribute__((noreturn)) htif_exit(int code)
{
	for (;;)
		tohost = (u64)code << 1 | 1;
}

/* acquire is the bug: the test and the set are two accesses. */
static void acquire(void)
{
	for (;;) {
		while (lock_word != 0)
			;
		lock_word = 1;
		return;
	}
}

static void release(void) { lock_word = 0; }

/* private_work stands for what a hart does between acquisitions: a few
 * thousand instructions on memory no other hart touches. */
static void private_work(u64 hart, u64 *rng)
{
	u64 x = *rng;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*rng = x;
	unsigned n = 200 + (unsigned)(x % 600);
	for (unsigned i = 0; i < n; i++)
		scratch[hart][i % 512] += i ^ x;
}

static void run(u64 hart)
{
	u64 rng = 0x9e3779b97f4a7c15UL * (hart + 1);
	for (int r = 0; r < ROUNDS; r++) {
		private_work(hart, &rng);
		acquire();
		long in = shared.inside + 1;
		shared.inside = in;
		EVERETT_ALWAYS(in == 1, "at most one hart holds the lock");
		shared.total = shared.total + 1;
		shared.last = (long)hart;
		shared.inside = in - 1;
		release();
	}
	__atomic_store_n(&done[hart], 1, __ATOMIC_RELEASE);
}

void worker(u64 hart)
{
	if (hart < NHARTS)
		run(hart);
}

int main(void)
{
	__atomic_store_n(&released, 1, __ATOMIC_RELEASE);
	run(0);
	for (int h = 1; h < NHARTS; h++)
		while (!__atomic_load_n(&done[h], __ATOMIC_ACQUIRE))
			;
	EVERETT_ALWAYS(shared.total == NHARTS * ROUNDS, "no acquisition is lost");
	return shared.total == NHARTS * ROUNDS ? 0 : 1;
}
