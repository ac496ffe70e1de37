/* handoff-linux: the handoff example (handoff.c) as an ordinary Linux
 * program: a producer thread hands messages to the consumer (the main
 * thread) through a flag, and forgets the fences.
 *
 * The producer writes a three-word message, then sets `flag` to the round
 * number; the consumer waits for the flag, reads the message, checks it
 * with assert() (a torn message aborts the program: SIGABRT), and
 * acknowledges through `ack`, which the producer waits for before it
 * writes the next message. Under sequential consistency (everett's default
 * memory model) and under x86's TSO (qemu-riscv64-static on an x86 host)
 * that is correct whatever the interleaving. Under RVWMO it is not: nothing
 * orders the message stores before the flag store, or the consumer's
 * message loads before its acknowledgement (the MP litmus shape, RISC-V
 * Unprivileged ISA, chapter "RVWMO Memory Consistency Model"). Built with
 * -DFENCED (handoff-linux-fenced), each side has the fences RVWMO needs, as
 * in handoff.c.
 *
 *   everett run --linux --smp 2 build/examples/handoff/handoff-linux     (passes)
 *   everett explore --linux --smp 2 --memory-model rvwmo build/examples/handoff/handoff-linux
 *
 * The threads spin: each waits on a variable the other writes. They belong
 * on two harts (--smp 2). */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

typedef unsigned long u64;

#define ROUNDS 1000

#ifdef FENCED
#define FENCE(pred, succ) __asm__ volatile("fence " #pred "," #succ ::: "memory")
#else
#define FENCE(pred, succ) __asm__ volatile("" ::: "memory") /* the compiler keeps the order; the hart need not */
#endif

/* The message and the two flags, each on a line of its own. */
static struct {
	volatile u64 a, b, c;
} msg __attribute__((aligned(64)));
static volatile u64 flag __attribute__((aligned(64)));
static volatile u64 ack __attribute__((aligned(64)));

static void *producer(void *arg)
{
	(void)arg;
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
	return NULL;
}

int main(void)
{
	pthread_t t;
	if (pthread_create(&t, NULL, producer, NULL) != 0) {
		perror("handoff: pthread_create");
		return 1;
	}
	for (u64 r = 1; r <= ROUNDS; r++) {
		while (flag != r)
			;
		FENCE(r, r); /* the flag before the message */
		u64 a = msg.a, b = msg.b, c = msg.c;
		assert(a == r && b == 3 * r && c == 7 * r); /* the consumer sees the whole message */
		FENCE(r, w); /* the message before the acknowledgement */
		ack = r;
	}
	pthread_join(t, NULL);
	printf("handoff: %d messages, every one whole\n", ROUNDS);
	return 0;
}
