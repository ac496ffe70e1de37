/* deadlock2: two locks taken in opposite orders (a lock-order deadlock).
 *
 * A cache and its log. The flusher writes dirty cache entries to the log:
 * it locks the cache, picks the entries, then locks the log to append
 * them. The rotator starts a new log segment and records the cache's size
 * in its header: it locks the log, then the cache to read the size. Each
 * does its own work between these steps (formatting, compressing), the
 * flusher four times, the rotator three times.
 *
 * The bug: the two threads nest the locks in opposite orders. If the
 * flusher holds the cache lock when the rotator takes the log lock, each
 * waits for the other's lock for good: both threads in futex_wait, main
 * in pthread_join (a deadlock; run natively, a hang). The window is the
 * few hundred instructions between a thread's two lock calls, and the two
 * threads reach them at different moments of their runs, so a normal run
 * almost never hangs.
 *
 * Depth: two ordering constraints, one preemption: the flusher stopped
 * between its two locks while the rotator takes the log lock (or the
 * other way round).
 *
 * The fix (-DFIXED): the rotator reads the cache's size before it locks
 * the log, so that no thread holds one lock while it takes the other in
 * the opposite order (one global order: cache, then log). */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

#include "work.h"

enum { FLUSHES = 4, ROTATIONS = 3 };

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

static int cache_dirty = 40, cache_size = 100; /* under cache_lock */
static int log_len, log_segment;               /* under log_lock */

static void *flusher(void *arg)
{
	unsigned long h = 0;
	(void)arg;
	for (int i = 0; i < FLUSHES; i++) {
		h ^= work(1 + i, 60000); /* compress the entries to write */
		pthread_mutex_lock(&cache_lock);
		int n = cache_dirty < 10 ? cache_dirty : 10;
		cache_dirty -= n;
		h ^= work(h, 30); /* pick the entries */
		WINDOW(5000000);
		pthread_mutex_lock(&log_lock);
		log_len += n;
		pthread_mutex_unlock(&log_lock);
		pthread_mutex_unlock(&cache_lock);
	}
	return (void *)h;
}

static void *rotator(void *arg)
{
	unsigned long h = 0;
	(void)arg;
	for (int i = 0; i < ROTATIONS; i++) {
		h ^= work(100 + i, 77000); /* archive the old segment */
#ifdef FIXED
		pthread_mutex_lock(&cache_lock);
		int size = cache_size;
		pthread_mutex_unlock(&cache_lock);
		pthread_mutex_lock(&log_lock);
#else
		pthread_mutex_lock(&log_lock);
		h ^= work(h, 30); /* write the segment header */
		pthread_mutex_lock(&cache_lock); /* BUG: log, then cache */
		int size = cache_size;
		pthread_mutex_unlock(&cache_lock);
#endif
		log_segment++;
		log_len += size > 0;
		pthread_mutex_unlock(&log_lock);
	}
	return (void *)h;
}

int main(void)
{
	pthread_t f, r;
	void *hf, *hr;
	if (pthread_create(&f, NULL, flusher, NULL) != 0 || pthread_create(&r, NULL, rotator, NULL) != 0) {
		perror("deadlock2: pthread_create");
		return 1;
	}
	pthread_join(f, &hf);
	pthread_join(r, &hr);
	assert(log_segment == ROTATIONS && log_len == FLUSHES * 10 + ROTATIONS);
	printf("deadlock2: %d segments, %d records (%02lx)\n", log_segment, log_len,
	       ((unsigned long)hf ^ (unsigned long)hr) & 0xff);
	return 0;
}
