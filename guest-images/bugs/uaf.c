/* uaf: a thread uses an object after another thread freed it (use after
 * free, through a completion signalled too early).
 *
 * Main opens a session and hands it to a worker, which runs the session's
 * requests and then signals completion (a semaphore). Main waits for the
 * completion and closes the session: it poisons the session's magic and
 * frees it (a debug build's free). The worker, after signalling, reads the
 * session once more to log its request count.
 *
 * The bug: the worker signals completion before its last use of the
 * session. Main needs a wake-up from the semaphore to close it, which
 * takes far longer than the worker's last read, so a normal run never
 * shows it. If the worker is held up between sem_post and that read while
 * main wakes and closes the session, the worker finds the poisoned magic:
 * the assertion fails (SIGABRT).
 *
 * Depth: one ordering constraint, one preemption: the worker stopped
 * between its sem_post and its last read while main closes the session.
 *
 * The fix (-DFIXED): read what the log needs before signalling. */
#include <assert.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>

#include "work.h"

enum { REQUESTS = 3, LIVE = 0x5e551011, FREED = 0xdeadbeef };

struct session {
	unsigned long pad[2]; /* malloc's own use of freed memory lands here */
	volatile unsigned magic; /* volatile: the poison before free() stays */
	int requests;
	unsigned long digest;
};

static sem_t finished;
static int logged;

static void *worker(void *arg)
{
	struct session *s = arg;
	for (int i = 0; i < REQUESTS; i++) {
		assert(s->magic == LIVE);
		s->digest ^= work(i, 30000); /* run a request */
		s->requests++;
	}
#ifdef FIXED
	int n = s->requests;
	sem_post(&finished);
#else
	sem_post(&finished);
	WINDOW(5000000);
	assert(s->magic == LIVE); /* BUG: the session may be closed by now */
	int n = s->requests;
#endif
	__atomic_store_n(&logged, n, __ATOMIC_SEQ_CST); /* "log" the count */
	return NULL;
}

static void close_session(struct session *s)
{
	s->magic = FREED;
	free(s);
}

int main(void)
{
	pthread_t t;
	struct session *s = calloc(1, sizeof *s);
	if (s == NULL || sem_init(&finished, 0, 0) != 0) {
		perror("uaf");
		return 1;
	}
	s->magic = LIVE;
	if (pthread_create(&t, NULL, worker, s) != 0) {
		perror("uaf: pthread_create");
		return 1;
	}
	unsigned long h = work(7, 20000); /* main's own work meanwhile */
	sem_wait(&finished);
	close_session(s);
	pthread_join(t, NULL);
	printf("uaf: the session ran %d requests (%02lx)\n", logged, h & 0xff);
	return logged == REQUESTS ? 0 : 1;
}
