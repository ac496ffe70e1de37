// deadlock takes two locks in opposite orders on two threads, with a
// barrier between the first and the second lock of each, so that it always
// deadlocks: the deadlock verdict, with both threads in futex waits.
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t both;

static void *transfer(void *arg) {
	int reverse = arg != NULL;
	pthread_mutex_t *first = reverse ? &b : &a, *second = reverse ? &a : &b;
	pthread_mutex_lock(first);
	pthread_barrier_wait(&both);
	pthread_mutex_lock(second);
	pthread_mutex_unlock(second);
	pthread_mutex_unlock(first);
	return NULL;
}

int main(void) {
	pthread_t t1, t2;
	pthread_barrier_init(&both, NULL, 2);
	printf("deadlock: starting two transfers\n");
	fflush(stdout);
	pthread_create(&t1, NULL, transfer, NULL);
	pthread_create(&t2, NULL, transfer, (void *)1);
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	printf("deadlock: done\n");
	return 0;
}
