// sleeper sleeps for the number of seconds in argv[1] (default 1000): a
// program that does not finish within a budget shorter than that (the
// timeout verdict), or one that idles a long time and then succeeds.
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv) {
	long s = argc > 1 ? atol(argv[1]) : 1000;
	struct timespec ts = {.tv_sec = s};
	printf("sleeper: sleeping %ld s\n", s);
	fflush(stdout);
	nanosleep(&ts, NULL);
	printf("sleeper: awake\n");
	return 0;
}
