/* dcl: double-checked locking that publishes the object before it is
 * filled in.
 *
 * Two threads look up rates in a table built on first use: get_table()
 * returns the table if the pointer is set (the fast path, no lock) and
 * otherwise builds it under a lock, checking the pointer again there.
 *
 * The bug: the builder stores the table's pointer first and fills in the
 * table afterwards (its entries, then its size). A thread on the fast path
 * that sees the pointer between those stores uses a table whose size is
 * still 0: the assertion on it fails (SIGABRT). The window is the filling
 * of 64 entries, a few hundred instructions, and the two threads first
 * look at the table at different moments, so a normal run does not show
 * it. The window lies between two plain stores of the builder in program
 * order, so it is there under sequential consistency; under a weak memory
 * model the fix below also needs its release and acquire.
 *
 * Depth: two ordering constraints, one preemption: the builder stopped
 * between publishing the pointer and storing the size while the other
 * thread reaches get_table().
 *
 * The fix (-DFIXED): fill the table in, then publish it with a release
 * store (and read it with an acquire load). */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "work.h"

enum { ENTRIES = 64, LOOKUPS = 3 };

struct table {
	int size;
	unsigned rate[ENTRIES];
};

static pthread_mutex_t build_lock = PTHREAD_MUTEX_INITIALIZER;
static struct table *table;

/* rate_for computes one entry; noinline keeps the filling a loop of calls
 * that the compiler does not move the publishing store across. */
static __attribute__((noinline)) unsigned rate_for(int i)
{
	return (unsigned)(work(i, 3) & 0xffff) | 1;
}

static struct table *get_table(void)
{
#ifdef FIXED
	struct table *t = __atomic_load_n(&table, __ATOMIC_ACQUIRE);
#else
	struct table *t = __atomic_load_n(&table, __ATOMIC_RELAXED);
#endif
	if (t != NULL)
		return t;
	pthread_mutex_lock(&build_lock);
	t = table;
	if (t == NULL) {
		t = calloc(1, sizeof *t);
		assert(t != NULL);
#ifndef FIXED
		__atomic_store_n(&table, t, __ATOMIC_RELAXED); /* BUG: published ... */
		WINDOW(20000000);
#endif
		for (int i = 0; i < ENTRIES; i++)
			t->rate[i] = rate_for(i);
		t->size = ENTRIES; /* ... before it is filled in */
#ifdef FIXED
		__atomic_store_n(&table, t, __ATOMIC_RELEASE);
#endif
	}
	pthread_mutex_unlock(&build_lock);
	return t;
}

static void *client(void *arg)
{
	int me = (int)(long)arg;
	unsigned long h = 0;
	for (int i = 0; i < LOOKUPS; i++) {
		h ^= work(me * 10 + i, me == 0 ? 30000 : 41000); /* price an order */
		struct table *t = get_table();
		assert(t->size == ENTRIES); /* a table not filled in */
		h += t->rate[h % ENTRIES];
	}
	return (void *)h;
}

int main(void)
{
	pthread_t t[2];
	unsigned long h = 0;
	for (long i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, client, (void *)i) != 0) {
			perror("dcl: pthread_create");
			return 1;
		}
	for (int i = 0; i < 2; i++) {
		void *r;
		pthread_join(t[i], &r);
		h ^= (unsigned long)r;
	}
	printf("dcl: priced %d orders (%02lx)\n", 2 * LOOKUPS, h & 0xff);
	return 0;
}
