/* unlockpath: an error path that returns with the lock held (a missed
 * unlock, then a deadlock).
 *
 * A shop with 5 items in stock and two clerks serving 4 customers each.
 * A clerk peeks at the stock without the lock (to turn a customer away
 * quickly when it is sold out) and, if an item seems left, calls take(),
 * which locks, takes one, and unlocks. take() handles an empty stock: it
 * returns -1 ("sold out after all").
 *
 * The bug: take()'s sold-out path returns without unlocking. That path is
 * taken only when both clerks peek at the last item and one takes it
 * between the other's peek and its lock, which a normal run almost never
 * does. Then the lock is held by a clerk that has gone on (and exited),
 * and main's final inventory check blocks on it for good: main in
 * futex_wait, nothing left to wake it (a deadlock; natively, a hang).
 *
 * Depth: two ordering constraints, one preemption: a clerk stopped between
 * its peek and its lock at the last item while the other takes it.
 *
 * The fix (-DFIXED): unlock on the sold-out path too (the race on the peek
 * is then harmless: take() decides under the lock). */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

#include "work.h"

enum { STOCK = 5, CUSTOMERS = 4 };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static volatile int stock = STOCK;
static int sold;

static int take(void)
{
	pthread_mutex_lock(&lock);
	if (stock == 0) {
#ifdef FIXED
		pthread_mutex_unlock(&lock);
#endif
		return -1; /* BUG (without FIXED): the lock stays held */
	}
	stock--;
	sold++;
	pthread_mutex_unlock(&lock);
	return 0;
}

static void *clerk(void *arg)
{
	int me = (int)(long)arg, served = 0;
	unsigned long h = 0;
	for (int c = 0; c < CUSTOMERS; c++) {
		h ^= work(me * 10 + c, me == 0 ? 30000 : 37000); /* talk to the customer */
		if (stock > 0) {
			WINDOW(5000000);
			if (take() == 0)
				served++;
		}
	}
	return (void *)(h ^ (unsigned long)served);
}

int main(void)
{
	pthread_t t[2];
	unsigned long h = 0;
	for (long i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, clerk, (void *)i) != 0) {
			perror("unlockpath: pthread_create");
			return 1;
		}
	for (int i = 0; i < 2; i++) {
		void *r;
		pthread_join(t[i], &r);
		h ^= (unsigned long)r;
	}
	pthread_mutex_lock(&lock); /* the inventory check */
	assert(sold == STOCK && stock == 0);
	pthread_mutex_unlock(&lock);
	printf("unlockpath: sold %d (%02lx)\n", sold, h & 0xff);
	return 0;
}
