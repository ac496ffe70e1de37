/* wrongsignal: a producer and two consumers share one condition variable
 * and wake one waiter with pthread_cond_signal (a wake-up that goes to the
 * wrong kind of waiter).
 *
 * A packer hands 8 parcels to two couriers through a one-parcel shelf.
 * The packer waits while the shelf is full, a courier while it is empty,
 * all on the one condition variable `changed`, in proper predicate loops;
 * after each put or take the thread signals `changed` once. Packing a
 * parcel takes fifteen times as long as delivering one, so the couriers
 * mostly wait for the packer, and the shelf is empty when the packer
 * comes back to it.
 *
 * The bug: the signal wakes one waiter, and it may be of the same kind (a
 * courier woken by a courier's take). It finds the shelf still empty and
 * waits again, and the wake-up the packer needed is lost: all three wait
 * (futex_wait), main in pthread_join: a deadlock (natively, a hang). For
 * that, the packer must find the shelf still full when it comes back with
 * the next parcel, and wait, before the courier it woke has taken the
 * parcel before: that courier must be held up for a whole packing.
 *
 * Depth: three ordering constraints, one long preemption: both couriers
 * waiting, the packer's put waking one of them, which is then held up
 * while the packer packs the next parcel and waits at the full shelf; its
 * take's signal then goes to the other courier (or to the packer: then
 * all is well).
 *
 * The fix (-DFIXED): pthread_cond_broadcast (or one condition variable
 * per predicate). */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

#include "work.h"

enum { PARCELS = 8, EACH = PARCELS / 2 };

/* The window of this bug is inside pthread_cond_wait, between a courier's
 * wake-up and its taking the parcel, where WINDOW() cannot go: the
 * widened build (make widen) instead packs in a moment, so that a woken
 * courier is late for the next parcel whenever its wake-up takes longer
 * than that. */
#ifdef WIDEN
#define PACK_ROUNDS 2000
#else
#define PACK_ROUNDS 300000
#endif

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
	unsigned long h = 0;
	(void)arg;
	for (int i = 0; i < PARCELS; i++) {
		h ^= work(i, PACK_ROUNDS); /* pack a parcel */
		pthread_mutex_lock(&lock);
		while (full)
			pthread_cond_wait(&changed, &lock);
		shelf = i + 1;
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
		h ^= work(p + me, 20000); /* deliver it */
	}
	return (void *)h;
}

int main(void)
{
	pthread_t t[3];
	unsigned long h = 0;
	for (long i = 0; i < 3; i++)
		if (pthread_create(&t[i], NULL, i == 0 ? producer : consumer, (void *)(i - 1)) != 0) {
			perror("wrongsignal: pthread_create");
			return 1;
		}
	for (int i = 0; i < 3; i++) {
		void *r;
		pthread_join(t[i], &r);
		h ^= (unsigned long)r;
	}
	assert(received == (unsigned long)PARCELS * (PARCELS + 1) / 2);
	printf("wrongsignal: %d parcels delivered (%02lx)\n", PARCELS, h & 0xff);
	return 0;
}
