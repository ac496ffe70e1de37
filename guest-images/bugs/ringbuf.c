/* ringbuf: a bounded buffer whose "full" test is off by one, which only
 * matters when the consumer falls behind.
 *
 * A producer hands 12 records to a consumer through a ring of 4 slots
 * (mutex and two condition variables, the textbook bounded buffer). The
 * consumer is quicker per record than the producer, so the ring rarely
 * holds more than one record.
 *
 * The bug: the producer waits while `count > CAP` instead of
 * `count == CAP`. With the ring full it puts a fifth record into the slot
 * of the oldest one, which the consumer has not read: the consumer then
 * reads records out of order and its assertion fails (SIGABRT). The ring
 * fills only if the consumer is held up for four of the producer's
 * records, which a normal run does not do.
 *
 * Depth: one ordering constraint, but a long one: the consumer kept from
 * running (one preemption) while the producer puts five records.
 *
 * The fix (-DFIXED): wait while the ring is full, `count == CAP`. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

#include "work.h"

enum { CAP = 6, RECORDS = 10 };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER, not_empty = PTHREAD_COND_INITIALIZER;
static int ring[CAP], head, count;

static void *producer(void *arg)
{
	unsigned long h = 0;
	(void)arg;
	for (int i = 0; i < RECORDS; i++) {
		h ^= work(i, 500000); /* read a record */
		pthread_mutex_lock(&lock);
#ifdef FIXED
		while (count == CAP)
#else
		while (count > CAP) /* BUG: off by one; a full ring is count == CAP */
#endif
			pthread_cond_wait(&not_full, &lock);
		ring[(head + count) % CAP] = i;
		count++;
		pthread_cond_signal(&not_empty);
		pthread_mutex_unlock(&lock);
	}
	return (void *)h;
}

static void *consumer(void *arg)
{
	unsigned long h = 0;
	(void)arg;
	for (int want = 0; want < RECORDS; want++) {
		pthread_mutex_lock(&lock);
		while (count == 0)
			pthread_cond_wait(&not_empty, &lock);
		int r = ring[head];
		head = (head + 1) % CAP;
		count--;
		pthread_cond_signal(&not_full);
		pthread_mutex_unlock(&lock);
		assert(r == want); /* records in order, none lost */
		h ^= work(r, 8000); /* store the record */
		WINDOW(5000000);
	}
	return (void *)h;
}

int main(void)
{
	pthread_t c, p;
	void *hc, *hp;
	/* The consumer first, so that it waits before the first record. */
	if (pthread_create(&c, NULL, consumer, NULL) != 0 || pthread_create(&p, NULL, producer, NULL) != 0) {
		perror("ringbuf: pthread_create");
		return 1;
	}
	pthread_join(p, &hp);
	pthread_join(c, &hc);
	printf("ringbuf: %d records in order (%02lx)\n", RECORDS, ((unsigned long)hc ^ (unsigned long)hp) & 0xff);
	return 0;
}
