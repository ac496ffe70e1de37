/* racy's counter done right: two harts each add 3 with an atomic add, so
 * no schedule loses an update. The explorer's control tests require it to
 * pass every universe. */
#include "rt.h"

static volatile int counter;
static volatile int done;

int hart_main(uint64_t id) {
	if (id > 1) park();
	for (int i = 0; i < 3; i++) {
		__atomic_fetch_add(&counter, 1, __ATOMIC_SEQ_CST);
		for (volatile int k = 0; k < 50; k++) {
		}
	}
	__atomic_fetch_add(&done, 1, __ATOMIC_SEQ_CST);
	if (id != 0) park();
	while (__atomic_load_n(&done, __ATOMIC_SEQ_CST) != 2) {
	}
	return __atomic_load_n(&counter, __ATOMIC_SEQ_CST) == 6 ? 0 : 3;
}
