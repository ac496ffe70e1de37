// abort checks an invariant with assert(3) that a second thread breaks:
// SIGABRT, the verdict of a failed assertion without the SDK.
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

static int balance = 100;

static void *spend(void *arg) {
	(void)arg;
	balance -= 150;
	return NULL;
}

int main(void) {
	pthread_t t;
	pthread_create(&t, NULL, spend, NULL);
	pthread_join(t, NULL);
	printf("abort: balance is %d\n", balance);
	fflush(stdout);
	assert(balance >= 0);
	return 0;
}
