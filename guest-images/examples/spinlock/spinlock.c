/* spinlock: a hand-written spinlock whose unlock forgets its release bit.
 *
 * Harts 0 and 1 each add to a shared account ROUNDS times under a
 * test-and-set spinlock built from AMOs, as firmware and bare-metal code
 * often write one. The account is two words that the lock keeps equal
 * (`debit` and `credit`); each holder checks that they are, then adds one
 * to both. At the end hart 0 checks that no addition was lost.
 *
 * The lock takes with `amoswap.w.aq` (acquire: nothing of the critical
 * section happens before the lock is held) and frees with `amoswap.w`,
 * without `.rl`. Under sequential consistency (everett's default memory
 * model, and every emulator's) that is correct whatever the interleaving.
 * Under RVWMO it is not: without the release bit nothing orders the
 * critical section's stores before the store that frees the lock (RISC-V
 * Unprivileged ISA, chapter "RVWMO Memory Consistency Model", rules 5-7 of
 * preserved program order: only an acquire, a release or a fence orders an
 * AMO against the accesses around it), so the next holder can read the
 * account before the last holder's additions reach memory: it sees the two
 * words unequal, or both old, and an addition is lost. There is no missing
 * fence here; the bug is the missing `.rl`. Built with -DRELEASE
 * (spinlock-release.elf) the unlock is `amoswap.w.rl` and the program is
 * correct under RVWMO too.
 *
 * Run with `everett run --smp 2 spinlock.elf` (passes), explore with
 * `everett explore --elf spinlock.elf --smp 2 --memory-model rvwmo`
 * (fails). README.md says more. */
#include "../../sdk/everett.h"

typedef unsigned long u64;
typedef unsigned int u32;

#define ROUNDS 64

volatile u64 tohost __attribute__((section(".tohost"), aligned(64)));
volatile u64 fromhost __attribute__((section(".tohost"), aligned(64)));

/* Set by main when the other harts may start (crt0.S waits for it). */
int released __attribute__((section(".data"))) = 0;

/* The lock and the account it guards, each on a line of its own; `done`
 * counts the harts that finished. */
static u32 lock __attribute__((aligned(64)));
static struct {
	volatile u64 debit, credit;
} account __attribute__((aligned(64)));
static u32 done __attribute__((aligned(64)));

void __attribute__((noreturn)) htif_exit(int code)
{
	for (;;)
		tohost = (u64)code << 1 | 1;
}

static void spin_lock(void)
{
	u32 old;
	do {
		__asm__ volatile("amoswap.w.aq %0, %1, (%2)"
				 : "=r"(old)
				 : "r"(1), "r"(&lock)
				 : "memory");
	} while (old != 0);
}

static void spin_unlock(void)
{
#ifdef RELEASE
	__asm__ volatile("amoswap.w.rl zero, zero, (%0)" ::"r"(&lock) : "memory");
#else
	/* BUG: no .rl; the compiler keeps the order, the hart need not. */
	__asm__ volatile("amoswap.w zero, zero, (%0)" ::"r"(&lock) : "memory");
#endif
}

/* deposit adds one to both words of the account under the lock, and
 * checks that the lock kept them equal. */
static void deposit(void)
{
	spin_lock();
	u64 d = account.debit, c = account.credit;
	EVERETT_ALWAYS(d == c, "the lock keeps the account balanced");
	account.debit = d + 1;
	account.credit = c + 1;
	spin_unlock();
}

static void finish(void)
{
	/* Both bits: this hart's additions before it, the other's after. */
	__asm__ volatile("amoadd.w.aqrl zero, %0, (%1)" ::"r"(1), "r"(&done) : "memory");
}

void worker(u64 hart)
{
	if (hart != 1)
		return;
	for (int r = 0; r < ROUNDS; r++)
		deposit();
	finish();
}

int main(void)
{
	__atomic_store_n(&released, 1, __ATOMIC_RELEASE);
	for (int r = 0; r < ROUNDS; r++)
		deposit();
	finish();
	while (__atomic_load_n(&done, __ATOMIC_ACQUIRE) != 2)
		;
	u64 d = account.debit, c = account.credit;
	int whole = d == 2 * ROUNDS && c == 2 * ROUNDS;
	EVERETT_ALWAYS(whole, "no deposit is lost");
	return whole ? 0 : 1;
}
