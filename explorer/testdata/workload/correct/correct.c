// correct moves money between accounts on three threads, taking both
// accounts' locks in address order, and checks the total: a correct
// program, which must pass in every universe (a failure is a false alarm).
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

enum { accounts = 4, threads = 3, moves = 200 };

static struct account {
	pthread_mutex_t mu;
	long balance;
} acct[accounts];

static void *mover(void *arg) {
	unsigned x = (unsigned)(long)arg * 2654435761u + 1;
	for (int i = 0; i < moves; i++) {
		x = x * 1103515245u + 12345u;
		struct account *from = &acct[(x >> 8) % accounts], *to = &acct[(x >> 16) % accounts];
		if (from == to)
			continue;
		struct account *lo = from < to ? from : to, *hi = from < to ? to : from;
		pthread_mutex_lock(&lo->mu);
		pthread_mutex_lock(&hi->mu);
		from->balance -= 10;
		to->balance += 10;
		pthread_mutex_unlock(&hi->mu);
		pthread_mutex_unlock(&lo->mu);
	}
	return NULL;
}

int main(void) {
	pthread_t t[threads];
	for (int i = 0; i < accounts; i++) {
		pthread_mutex_init(&acct[i].mu, NULL);
		acct[i].balance = 1000;
	}
	for (long i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, mover, (void *)i);
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	long total = 0;
	for (int i = 0; i < accounts; i++)
		total += acct[i].balance;
	printf("correct: total %ld\n", total);
	assert(total == 1000 * accounts);
	return 0;
}
