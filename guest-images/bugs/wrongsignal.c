/* wrongsignal: producers and consumers share one condition variable and
 * wake one waiter with pthread_cond_signal (a wake-up that goes to the
 * wrong kind of waiter).
 *
 * Two producers and two consumers pass 16 parcels through a one-parcel
 * shelf. Producers wait while the shelf is full, consumers while it is
 * empty, both on the one condition variable `changed`, in proper predicate
 * loops; after each put or take the thread signals `changed` once.
 *
 * The bug: the signal wakes one waiter, and it may be one of the same
 * kind (a consumer woken by a consumer's take). That waiter finds its
 * predicate still false and waits again, and the wake-up the other kind
 * needed is lost. When that happens while all the others wait, all four
 * threads end up waiting (futex_wait), main in pthread_join: a deadlock
 * (natively, a hang). Every thread does far more work per parcel than it
 * spends at the shelf, so in a normal run a thread seldom waits, and two
 * of a kind waiting at once with a signal taken by the wrong one is rarer
 * still.
 *
 * Depth: high: both consumers waiting on an empty shelf, a put whose
 * signal wakes one, a second producer arriving at the full shelf before
 * that consumer takes, then the consumer's signal going to the other
 * consumer (four or more ordering constraints).
 *
 * The fix (-DFIXED): pthread_cond_broadcast (or one condition variable
 * per predicate). */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

#include "work.h"

enum { PARCELS = 16, EACH = PARCELS / 2 };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int shelf, full; /* the parcel on the shelf, and whether there is one */
static unsigned long received; /* sum of the parcels taken */

static void wake(void)
{
#ifdef FIXED
	pthread_cond_broadcast(&changed);
#else
	pthread_cond_signal(&changed); /* BUG: may wake a waiter of the same kind */
#endif
}

static void *producer(void *arg)
{
	int me = (int)(long)arg;
	unsigned long h = 0;
	for (int i = 0; i < EACH; i++) {
		h ^= work(me * 100 + i, me == 0 ? 12000 : 15000); /* pack a parcel */
		pthread_mutex_lock(&lock);
		while (full)
			pthread_cond_wait(&changed, &lock);
		shelf = me * EACH + i + 1;
		full = 1;
		wake();
		pthread_mutex_unlock(&lock);
	}
	return (void *)h;
}

static void *consumer(void *arg)
{
	int me = (int)(long)arg;
	unsigned long h = 0;
	for (int i = 0; i < EACH; i++) {
		pthread_mutex_lock(&lock);
		while (!full)
			pthread_cond_wait(&changed, &lock);
		int p = shelf;
		full = 0;
		received += (unsigned long)p;
		wake();
		pthread_mutex_unlock(&lock);
		h ^= work(p, me == 0 ? 9000 : 11000); /* deliver it */
	}
	return (void *)h;
}

int main(void)
{
	pthread_t t[4];
	unsigned long h = 0;
	for (long i = 0; i < 4; i++)
		if (pthread_create(&t[i], NULL, i < 2 ? producer : consumer, (void *)(i % 2)) != 0) {
			perror("wrongsignal: pthread_create");
			return 1;
		}
	for (int i = 0; i < 4; i++) {
		void *r;
		pthread_join(t[i], &r);
		h ^= (unsigned long)r;
	}
	assert(received == (unsigned long)PARCELS * (PARCELS + 1) / 2);
	printf("wrongsignal: %d parcels delivered (%02lx)\n", PARCELS, h & 0xff);
	return 0;
}
