// pingpong runs on every node of a universe: node 0 accepts one TCP
// connection and answers "pong" to "ping"; every other node connects to
// node 0 (the first address of EVERETT_PEERS), retrying while it is not
// listening yet, and checks the answer. It checks everett's init's node
// set-up: addresses, EVERETT_NODE and EVERETT_PEERS.
#include <arpa/inet.h>
#include <assert.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { port = 7000 };

static int serve(int clients) {
	int s = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
	if (bind(s, (struct sockaddr *)&a, sizeof a) != 0 || listen(s, 8) != 0) {
		perror("pingpong: bind/listen");
		return 1;
	}
	for (int i = 0; i < clients; i++) {
		int c = accept(s, NULL, NULL);
		char buf[8] = {0};
		if (c < 0 || read(c, buf, 4) != 4 || strcmp(buf, "ping") != 0) {
			fprintf(stderr, "pingpong: bad client\n");
			return 1;
		}
		write(c, "pong", 4);
		close(c);
	}
	printf("pingpong: node 0 answered %d clients\n", clients);
	return 0;
}

static int ping(const char *peer) {
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
	inet_pton(AF_INET, peer, &a.sin_addr);
	for (int try = 0; try < 100; try++) {
		int s = socket(AF_INET, SOCK_STREAM, 0);
		if (connect(s, (struct sockaddr *)&a, sizeof a) == 0) {
			char buf[8] = {0};
			write(s, "ping", 4);
			if (read(s, buf, 4) != 4 || strcmp(buf, "pong") != 0) {
				fprintf(stderr, "pingpong: answer %s\n", buf);
				return 1;
			}
			printf("pingpong: %s answered\n", peer);
			return 0;
		}
		close(s);
		struct timespec ts = {.tv_nsec = 20 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	fprintf(stderr, "pingpong: %s never listened\n", peer);
	return 1;
}

int main(void) {
	const char *node = getenv("EVERETT_NODE"), *nodes = getenv("EVERETT_NODES"), *peers = getenv("EVERETT_PEERS");
	assert(node && nodes && peers);
	char first[32] = {0};
	strncpy(first, peers, sizeof first - 1);
	char *comma = strchr(first, ',');
	if (comma)
		*comma = 0;
	return atoi(node) == 0 ? serve(atoi(nodes) - 1) : ping(first);
}
