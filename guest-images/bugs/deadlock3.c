/* deadlock3: three threads, three locks, a cycle (a lock-order deadlock
 * of three).
 *
 * Three stations on a ring pass parts along: station i takes a part from
 * its own bin and puts it into the bin of station i+1 (mod 3). Moving a
 * part locks both bins: station i locks its own bin, inspects the part,
 * then locks the next bin. Each station moves two parts, with its own work
 * (machining the part) before each move.
 *
 * The bug: every station locks "own, then next". Station 0 takes bins 0,1;
 * station 1 bins 1,2; station 2 bins 2,0: a cycle. If all three hold their
 * own bin at once, each waits for the next for good (three threads in
 * futex_wait, main in pthread_join: a deadlock; natively, a hang). Two
 * stations holding their own bin is not enough: the third must arrive
 * while both are still stuck between their two locks.
 *
 * Depth: three ordering constraints, two preemptions: two stations
 * stopped between their two locks while the third takes its first.
 *
 * The fix (-DFIXED): lock the two bins in one global order, the lower bin
 * number first (station 2 locks bin 0, then bin 2). */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

#include "work.h"

enum { STATIONS = 3, MOVES = 2, PARTS = 5 };

static pthread_mutex_t bin_lock[STATIONS] = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
					     PTHREAD_MUTEX_INITIALIZER};
static int bin[STATIONS] = {PARTS, PARTS, PARTS};

static void *station(void *arg)
{
	int me = (int)(long)arg, next = (me + 1) % STATIONS;
	unsigned long h = 0;
	for (int i = 0; i < MOVES; i++) {
		h ^= work(me * 10 + i, 50000 + 17000 * me); /* machine the part */
#ifdef FIXED
		int first = me < next ? me : next, second = me < next ? next : me;
#else
		int first = me, second = next; /* BUG: own bin, then next: a cycle */
#endif
		pthread_mutex_lock(&bin_lock[first]);
		h ^= work(h, 30); /* inspect the part */
		WINDOW(5000000);
		pthread_mutex_lock(&bin_lock[second]);
		bin[me]--;
		bin[next]++;
		pthread_mutex_unlock(&bin_lock[second]);
		pthread_mutex_unlock(&bin_lock[first]);
	}
	return (void *)h;
}

int main(void)
{
	pthread_t t[STATIONS];
	unsigned long h = 0;
	for (long i = 0; i < STATIONS; i++)
		if (pthread_create(&t[i], NULL, station, (void *)i) != 0) {
			perror("deadlock3: pthread_create");
			return 1;
		}
	for (int i = 0; i < STATIONS; i++) {
		void *r;
		pthread_join(t[i], &r);
		h ^= (unsigned long)r;
	}
	for (int i = 0; i < STATIONS; i++)
		assert(bin[i] == PARTS);
	printf("deadlock3: every bin holds %d parts (%02lx)\n", PARTS, h & 0xff);
	return 0;
}
