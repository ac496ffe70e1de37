// segv reads through a pointer that was never set: SIGSEGV at a known
// address (0x10), which the kernel under `quiet` does not print.
#include <stdio.h>

struct config {
	long pad[2];
	long port;
};

__attribute__((noinline)) long read_port(struct config *c) { return c->port; }

int main(void) {
	struct config *volatile c = 0;
	printf("segv: reading the port\n");
	fflush(stdout);
	return (int)read_port(c);
}
