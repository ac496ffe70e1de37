/* handoff: one hart hands messages to another through a flag, and forgets
 * the fences.
 *
 * Hart 1 (the producer) writes a three-word message, then sets `flag` to
 * the round number; hart 0 (the consumer) waits for the flag, reads the
 * message, checks it, and acknowledges through `ack`, which the producer
 * waits for before it writes the next message. Under sequential
 * consistency (everett's default memory model, and every emulator's) that
 * is correct whatever the interleaving. Under RVWMO it is not: nothing
 * orders the message stores before the flag store, or the consumer's
 * message loads before its acknowledgement, so the consumer can see the
 * new flag with an old message (RISC-V Unprivileged ISA, chapter "RVWMO
 * Memory Consistency Model": the MP litmus shape). Built with -DFENCED
 * (make handoff-fenced.elf), each side has the fences RVWMO needs:
 * fence w,w before the flag, fence r,r after it, fence r,w before the
 * acknowledgement, and again on the producer's side of ack.
 *
 * Run with `everett run --smp 2 handoff.elf` (passes), explore with
 * `everett explore --elf handoff.elf --smp 2 --memory-model rvwmo`
 * (fails). README.md says more. */
#include "../../sdk/everett.h"

typedef unsigned long u64;

#define ROUNDS 64

#ifdef FENCED
#define FENCE(pred, succ) __asm__ volatile("fence " #pred "," #succ ::: "memory")
#else
#define FENCE(pred, succ) __asm__ volatile("" ::: "memory") /* the compiler keeps the order; the hart need not */
#endif

volatile u64 tohost __attribute__((section(".tohost"), aligned(64)));
volatile u64 fromhost __attribute__((section(".tohost"), aligned(64)));

/* Set by main when the other harts may start (crt0.S waits for it). */
int released __attribute__((section(".data"))) = 0;

/* The message and the two flags, each on a line of its own. */
static struct {
	volatile u64 a, b, c;
} msg __attribute__((aligned(64)));
static volatile u64 flag __attribute__((aligned(64)));
static volatile u64 ack __attribute__((aligned(64)));

void __attribute__((noreturn)) htif_exit(int code)
{
	for (;;)
		tohost = (u64)code << 1 | 1;
}

/* The producer, on hart 1. */
void worker(u64 hart)
{
	if (hart != 1)
		return;
	for (u64 r = 1; r <= ROUNDS; r++) {
		msg.a = r;
		msg.b = 3 * r;
		msg.c = 7 * r;
		FENCE(w, w); /* the message before the flag */
		flag = r;
		while (ack != r)
			;
		FENCE(r, w); /* the acknowledgement before the next message */
	}
}

/* The consumer, on hart 0. */
int main(void)
{
	__atomic_store_n(&released, 1, __ATOMIC_RELEASE);
	int bad = 0;
	for (u64 r = 1; r <= ROUNDS; r++) {
		while (flag != r)
			;
		FENCE(r, r); /* the flag before the message */
		u64 a = msg.a, b = msg.b, c = msg.c;
		int whole = a == r && b == 3 * r && c == 7 * r;
		EVERETT_ALWAYS(whole, "the consumer sees the whole message");
		bad += !whole;
		FENCE(r, w); /* the message before the acknowledgement */
		ack = r;
	}
	return bad ? 1 : 0;
}
