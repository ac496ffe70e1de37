/* A hostile guest: it floods the console, and the SDK with assertions of
 * ever new messages and with randomness requests, then reports success. */
#include "rt.h"

int hart_main(uint64_t id) {
	if (id > 0) park();
	char msg[32] = "flood message 0000000000";
	hypercall(2, 0, (uint64_t)"never true", 10);
	hypercall(1, 1, (uint64_t)"always true", 11);
	for (uint64_t i = 0; i < 20000; i++) {
		uint64_t r = hypercall(5, 0, 0, 0); /* random */
		for (int d = 0; d < 10; d++) msg[14 + d] = '0' + (r >> (4 * d)) % 10;
		hypercall(2, r & 1, (uint64_t)msg, sizeof msg); /* sometimes */
		if (i % 16 == 0) putch('x');
	}
	hypercall(8, 0, 0, 0); /* exit 0 */
	return 0;
}
