/* tickets: a box office whose two agents can sell one seat too many.
 *
 * A show has three seats; two agent threads each serve four customers:
 * they check the customer's payment (most of their time), then book a
 * seat. An ordinary Linux program: build it with riscv64-linux-gnu-gcc
 * -static -pthread (Makefile), run it directly or as everett's workload:
 *
 *   everett explore --linux --smp 2 build/examples/tickets/tickets
 *
 * The bug (an atomicity violation, check-then-act): book() checks that a
 * seat is left before it takes the lock, to spare sold-out requests the
 * lock, and then books under the lock without checking again. When both
 * agents see the last seat free and one of them is held up between its
 * check and the lock while the other books it, the first books a fourth
 * seat of three: the assertion on the seat number fails (SIGABRT). The
 * window is a few instructions in a run of about a million, so a normal
 * run rarely shows it: 1 failure in 200 runs under qemu-riscv64-static
 * (2026-12-04).
 *
 * The fix (build with -DFIXED, tickets-fixed): check again under the lock
 * (or check only under it). */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

enum { SEATS = 3, AGENTS = 2, CUSTOMERS = 4 };

static struct {
	pthread_mutex_t lock;
	int left;          /* seats not yet sold */
	int next;          /* the next seat to sell */
	int sold[SEATS];   /* which agent sold each seat (1-based) */
} show = {PTHREAD_MUTEX_INITIALIZER, SEATS, 0, {0}};

/* check_payment stands for what an agent does before it books: here a
 * hash stretched over 20,000 rounds (about 80,000 instructions). */
static unsigned long check_payment(int agent, int customer)
{
	unsigned long h = 1469598103934665603UL ^ (unsigned long)(agent * 131 + customer);
	for (int i = 0; i < 20000; i++)
		h = (h ^ (unsigned long)i) * 1099511628211UL;
	return h;
}

/* book sells the next seat to agent, or returns 0 when the show is sold
 * out. */
static int book(int agent)
{
	/* BUG (without FIXED): the check is outside the lock. */
	if (show.left == 0)
		return 0;
	pthread_mutex_lock(&show.lock);
#ifdef FIXED
	if (show.left == 0) {
		pthread_mutex_unlock(&show.lock);
		return 0;
	}
#endif
	int seat = show.next++;
	show.left--;
	pthread_mutex_unlock(&show.lock);
	assert(seat < SEATS); /* a seat the show does not have */
	show.sold[seat] = agent + 1;
	return 1;
}

static void *agent(void *arg)
{
	int a = (int)(long)arg, sold = 0;
	unsigned long receipts = 0;
	for (int c = 0; c < CUSTOMERS; c++) {
		receipts ^= check_payment(a, c);
		sold += book(a);
	}
	printf("tickets: agent %d sold %d seats (receipts %02lx)\n", a, sold, receipts & 0xff);
	return NULL;
}

int main(void)
{
	pthread_t t[AGENTS];
	for (long i = 0; i < AGENTS; i++)
		if (pthread_create(&t[i], NULL, agent, (void *)i) != 0) {
			perror("tickets: pthread_create");
			return 1;
		}
	for (int i = 0; i < AGENTS; i++)
		pthread_join(t[i], NULL);
	printf("tickets: sold out, %d left\n", show.left);
	return 0;
}
