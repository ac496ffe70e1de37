/* stages: a bug at the end of a chain of races, each reached only through
 * the one before it.
 *
 * Two harts go through STAGES stages together. In each, after a stretch of
 * private work, both increment one counter of the stage with a load and a
 * store (not an atomic add), hart h adding h+1. Usually one hart's store
 * comes after the other's load and the counter ends at 3; the stage is
 * *won* when an update is lost and the hart the stage names stored last
 * (the counter ends at that hart's h+1), which takes a switch between
 * one hart's load and its store while the other runs its own, in the
 * stage's direction. A won stage leads on to the next; a stage that is not lost ends the chain,
 * and both harts just finish. Losing all of them in one run is the bug
 * (an assertion fails).
 *
 * This is the shape coverage-guided search is for: each won stage runs
 * code of its own (new edges), so a search that forks from a snapshot
 * taken after stage k needs one more win to reach k+1, while one that
 * starts every run from the beginning needs all k+1 in a row. The
 * example exists to measure that (README, "Many machines"); it is not a
 * bug found in the wild.
 *
 * Run with `everett run --smp 2 stages.elf` (it passes: a fixed schedule
 * loses no update) or explore it with
 * `everett explore --elf stages.elf --smp 2`. */
#include "../../sdk/everett.h"

typedef unsigned long u64;

#define NHARTS 2
#define STAGES 8
#define WORK 40000 /* iterations of private work before each stage */
/* LAST(s): the hart whose store must come last in stage s. */
#define LAST(s) ((0xb2 >> (s)) & 1)

volatile u64 tohost __attribute__((section(".tohost"), aligned(64)));
volatile u64 fromhost __attribute__((section(".tohost"), aligned(64)));

/* Set by main when the other harts may start (crt0.S waits for it). */
int released __attribute__((section(".data"))) = 0;

static volatile long counter[STAGES] __attribute__((aligned(4096)));
static volatile long arrived[2 * STAGES + 1];
static volatile long scratch[NHARTS][256] __attribute__((aligned(4096)));
static volatile int done[NHARTS];

void __attribute__((noreturn)) htif_exit(int code)
{
	for (;;)
		tohost = (u64)code << 1 | 1;
}

/* meet waits until both harts have arrived at barrier b. */
static void meet(int b)
{
	__atomic_fetch_add(&arrived[b], 1, __ATOMIC_ACQ_REL);
	while (__atomic_load_n(&arrived[b], __ATOMIC_ACQUIRE) < NHARTS)
		;
}

/* private_work's length differs per hart and stage, so that the harts
 * reach each stage's counter at other offsets from each other. */
static void private_work(u64 hart, int stage)
{
	u64 x = 0x9e3779b97f4a7c15UL * (hart + 1) + (u64)stage;
	unsigned n = WORK + (unsigned)((x >> 7) % (WORK / 2));
	for (unsigned i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		scratch[hart][i % 256] += x;
	}
}

/* Each won stage runs a function of its own, so that reaching it is new
 * coverage; they differ in what they fold into the scratch array. */
#define WON(n)                                                        \
	static void __attribute__((noinline)) won##n(u64 hart)       \
	{                                                             \
		for (int i = 0; i < 4 + (n); i++)                     \
			scratch[hart][(n) * 16 + i] ^= (u64)(n) << i; \
	}
WON(0)
WON(1)
WON(2)
WON(3)
WON(4)
WON(5)
WON(6)
WON(7)
static void (*const won[STAGES])(u64) = {won0, won1, won2, won3, won4, won5, won6, won7};

static void run(u64 hart)
{
	for (int s = 0; s < STAGES; s++) {
		private_work(hart, s);
		meet(2 * s);
		long v = counter[s];
		counter[s] = v + (long)hart + 1;
		meet(2 * s + 1);
		/* Both harts read 0 and the stage's last writer was hart
		 * LAST(s): an update lost, in the stage's own direction. */
		if (counter[s] != LAST(s) + 1)
			break; /* the chain ends here */
		won[s](hart);
		EVERETT_ALWAYS(s < STAGES - 1, "not every stage loses an update");
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
	return 0;
}
