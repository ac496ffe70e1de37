// setupat waits argv[1] ms, marks the setup point with the SDK's
// setup_complete, waits argv[2] ms more and exits with code argv[3]
// (default 0): a task that decides the setup point itself (setup: sdk),
// as a client that waits for its cluster does, while everett's init
// already runs the node's services.
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "everett.h"

static void sleep_ms(long ms) {
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000};
	nanosleep(&ts, NULL);
}

int main(int argc, char **argv) {
	long before = argc > 1 ? atol(argv[1]) : 50;
	long after = argc > 2 ? atol(argv[2]) : 1000;
	int code = argc > 3 ? atoi(argv[3]) : 0;
	sleep_ms(before);
	printf("setupat: setup complete\n");
	fflush(stdout);
	everett_setup_complete();
	sleep_ms(after);
	printf("setupat: done, exit code %d\n", code);
	return code;
}
