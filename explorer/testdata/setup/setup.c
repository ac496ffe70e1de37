/* Boot once, explore after: a long deterministic set-up (hart 0 fills a
 * table while hart 1 waits), the SDK's setup_complete, and then, past the
 * next window boundary (where the explorer snapshots the boot), the lost
 * update of racy.c. The fixed schedule of the boot never loses it; the
 * seeds' schedules after the snapshot do. */
#include "rt.h"

static volatile uint64_t table[4096];
static volatile int ready, counter, done;

int hart_main(uint64_t id) {
	if (id > 1) park();
	if (id == 0) {
		uint64_t x = 1;
		for (int r = 0; r < 40; r++) {
			for (int i = 0; i < 4096; i++) {
				x = x * 6364136223846793005ull + 1442695040888963407ull;
				table[i] ^= x;
			}
		}
		hypercall(6, 0, 0, 0); /* setup_complete */
		/* The workload starts more than a window (1 ms) later. */
		for (volatile int k = 0; k < 300000; k++) {
		}
		__atomic_store_n(&ready, 1, __ATOMIC_SEQ_CST);
	} else {
		while (!__atomic_load_n(&ready, __ATOMIC_SEQ_CST)) {
		}
	}
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
