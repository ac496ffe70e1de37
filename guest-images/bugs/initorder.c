/* initorder: a thread uses what its creator sets up only after letting it
 * run (an order violation: use before init).
 *
 * Main starts a logger thread, which waits at a start gate (it spins on
 * `running`) until main has started everything, then formats its banner
 * and a few lines (its own work) and writes each through `sink->emit`.
 * Main opens the gate and then opens the log sink the logger writes to.
 *
 * The bug: main sets `sink` after it lets the logger run, not before:
 * nothing orders main's store of `sink` before the logger's first use of
 * it. Main stores it a few instructions after opening the gate, while the
 * logger does a hundred thousand instructions of work first, so a normal
 * run always sees the sink. If main is held up between its two stores
 * while the logger formats its first line, the logger calls through a
 * null pointer: SIGSEGV. (With the store right after pthread_create
 * instead of a gate, the window would start at a point where the host's
 * scheduler itself often preempts the creator, a millisecond or more on a
 * loaded machine: the bug would be common natively.)
 *
 * Depth: one ordering constraint, one preemption: main stopped between
 * opening the gate and storing `sink`, for as long as the logger's
 * formatting of a line.
 *
 * The fix (-DFIXED): open the sink before opening the gate. */
#include <pthread.h>
#include <stdio.h>

#include "work.h"

enum { LINES = 4 };

struct sink {
	void (*emit)(struct sink *, unsigned long line);
	int lines;
	unsigned long digest;
};

static void emit_line(struct sink *s, unsigned long line)
{
	s->lines++;
	s->digest ^= line;
}

static struct sink the_sink;
static struct sink *volatile sink; /* set by main; NULL until then */
static int running;                /* the start gate */

static struct sink *open_sink(void)
{
	the_sink.emit = emit_line;
	return &the_sink;
}

static void *logger(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&running, __ATOMIC_ACQUIRE))
		;
	for (int i = 0; i < LINES; i++) {
		unsigned long line = work(i, 25000); /* format a line */
		struct sink *s = sink;
		s->emit(s, line); /* BUG (without FIXED): may still be NULL */
	}
	return NULL;
}

int main(void)
{
	pthread_t t;
	if (pthread_create(&t, NULL, logger, NULL) != 0) {
		perror("initorder: pthread_create");
		return 1;
	}
#ifdef FIXED
	sink = open_sink();
	__atomic_store_n(&running, 1, __ATOMIC_RELEASE);
#else
	__atomic_store_n(&running, 1, __ATOMIC_RELEASE);
	WINDOW(5000000);
	sink = open_sink(); /* BUG: after the logger may run */
#endif
	pthread_join(t, NULL);
	printf("initorder: %d lines (%02lx)\n", sink->lines, sink->digest & 0xff);
	return sink->lines == LINES ? 0 : 1;
}
