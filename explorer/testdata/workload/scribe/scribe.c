// scribe appends argv[3] numbered lines to the file argv[1], each written
// with write(2) and made durable with fsync(2), argv[2] ms apart, then
// exits 0; a failed open, write or fsync (a disk error) exits 1. A service
// whose data is on the node's disk: crashes lose what it did not sync,
// disk errors end it, its restart policy starts it again.
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
	if (argc < 4) {
		fprintf(stderr, "usage: scribe FILE MS LINES\n");
		return 2;
	}
	long ms = atol(argv[2]), lines = atol(argv[3]);
	int fd = open(argv[1], O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (fd < 0) {
		perror("scribe: open");
		return 1;
	}
	for (long i = 0; i < lines; i++) {
		char buf[64];
		int n = snprintf(buf, sizeof buf, "line %ld\n", i);
		if (write(fd, buf, n) != n || fsync(fd) != 0) {
			perror("scribe: write");
			return 1;
		}
		struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000};
		nanosleep(&ts, NULL);
	}
	return close(fd) != 0;
}
