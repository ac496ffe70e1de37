/* A rare lost update: two harts each add 3 to a counter with a plain
 * read-modify-write. Only an interleaving that switches harts between a
 * load and its store loses an update; the fixed schedule never does. */
#include "rt.h"

static volatile int counter;
static volatile int done;

int hart_main(uint64_t id) {
	if (id > 1) park();
	for (int i = 0; i < 3; i++) {
		int v = counter;
		counter = v + 1;
		for (volatile int k = 0; k < 50; k++) {
		}
	}
	__atomic_fetch_add(&done, 1, __ATOMIC_SEQ_CST);
	if (id != 0) park();
	while (__atomic_load_n(&done, __ATOMIC_SEQ_CST) != 2) {
	}
	return counter == 6 ? 0 : 3;
}
