/* everett.h: the guest side of everett's SDK hypercall, for C code running
 * on everett: bare-metal programs (any privilege mode), kernels and Linux
 * user programs. Header only; needs no libc.
 *
 * The hypercall is one 32-bit instruction in the custom-0 major opcode,
 * 0x0000000b, which everett intercepts in M, S and U mode (it never traps).
 * a0 holds the operation and a1..a5 its arguments; the result comes back
 * in a0. Message pointers are virtual addresses of the calling context.
 * guest-images/sdk/README.md describes the ABI in full.
 *
 * On a machine that is not everett (QEMU, hardware) the instruction is
 * illegal: a bare-metal program takes an illegal-instruction trap and a
 * Linux process gets SIGILL. Build with -DEVERETT_SDK_DISABLE to compile
 * every call below to nothing (everett_random then returns 0).
 *
 *   everett_always(cond, msg)       msg must hold every time it is reached
 *   everett_sometimes(cond, msg)    cond must hold at least once in a run
 *   everett_reachable(msg)          this point must be reached in some run
 *   everett_unreachable(msg)        this point must never be reached
 *   everett_random()                64 bits from the universe's PRNG
 *   everett_setup_complete()        a good point to snapshot and fork
 *   everett_progress(value)         the guest is making progress
 *   everett_exit(code)              end the run with this exit code
 *
 * The EVERETT_ALWAYS(cond, "literal")-style macros take a string literal
 * and pass its length computed at compile time. Messages are cut at 256
 * bytes by the host. */
#ifndef EVERETT_H
#define EVERETT_H

#if !defined(__riscv) || __riscv_xlen != 64
#error "everett.h: the everett SDK is for RV64 targets"
#endif

/* Operations (devices/sdk/sdk.go). */
#define EVERETT_OP_ALWAYS 1
#define EVERETT_OP_SOMETIMES 2
#define EVERETT_OP_REACHABLE 3
#define EVERETT_OP_UNREACHABLE 4
#define EVERETT_OP_RANDOM 5
#define EVERETT_OP_SETUP_COMPLETE 6
#define EVERETT_OP_PROGRESS 7
#define EVERETT_OP_EXIT 8

/* EVERETT_ENOSYS is what an unknown operation returns in a0. */
#define EVERETT_ENOSYS (-38L)

/* EVERETT_MAX_MESSAGE is the longest message the host reads. */
#define EVERETT_MAX_MESSAGE 256

#ifdef __cplusplus
extern "C" {
#endif

/* everett_hypercall issues the hypercall with op in a0 and three
 * arguments in a1..a3, and returns a0. The "memory" clobber makes every
 * store before it (such as a message built on the stack) visible to the
 * host, and keeps the compiler from moving memory accesses across it. */
static inline long everett_hypercall(unsigned long op, unsigned long arg1, unsigned long arg2,
				     unsigned long arg3)
{
#ifdef EVERETT_SDK_DISABLE
	(void)op;
	(void)arg1;
	(void)arg2;
	(void)arg3;
	return 0;
#else
	register unsigned long a0 __asm__("a0") = op;
	register unsigned long a1 __asm__("a1") = arg1;
	register unsigned long a2 __asm__("a2") = arg2;
	register unsigned long a3 __asm__("a3") = arg3;
	__asm__ __volatile__(".4byte 0x0000000b" : "+r"(a0) : "r"(a1), "r"(a2), "r"(a3) : "memory");
	return (long)a0;
#endif
}

/* everett_strlen is strlen for code without a libc, bounded by
 * EVERETT_MAX_MESSAGE (the host reads no more). */
static inline unsigned long everett_strlen(const char *s)
{
	unsigned long n = 0;
	if (!s)
		return 0;
	while (n < EVERETT_MAX_MESSAGE && s[n])
		n++;
	return n;
}

/* everett_always_n reports an always-assertion whose message is msg[0:len]. */
static inline void everett_always_n(int cond, const char *msg, unsigned long len)
{
	everett_hypercall(EVERETT_OP_ALWAYS, cond != 0, (unsigned long)msg, len);
}

/* everett_sometimes_n reports a sometimes-assertion whose message is msg[0:len]. */
static inline void everett_sometimes_n(int cond, const char *msg, unsigned long len)
{
	everett_hypercall(EVERETT_OP_SOMETIMES, cond != 0, (unsigned long)msg, len);
}

/* everett_reachable_n reports reaching a point named msg[0:len]. */
static inline void everett_reachable_n(const char *msg, unsigned long len)
{
	everett_hypercall(EVERETT_OP_REACHABLE, 1, (unsigned long)msg, len);
}

/* everett_unreachable_n reports reaching a point named msg[0:len] that must
 * never be reached. */
static inline void everett_unreachable_n(const char *msg, unsigned long len)
{
	everett_hypercall(EVERETT_OP_UNREACHABLE, 1, (unsigned long)msg, len);
}

/* everett_always asserts that cond holds every time this line is reached;
 * a failure is the explorer's bug report (everett run prints it). msg is a
 * NUL-terminated string that names the property. */
static inline void everett_always(int cond, const char *msg)
{
	everett_always_n(cond, msg, everett_strlen(msg));
}

/* everett_sometimes asserts that cond holds at least once across a run
 * (the explorer lists sometimes-assertions that never held). */
static inline void everett_sometimes(int cond, const char *msg)
{
	everett_sometimes_n(cond, msg, everett_strlen(msg));
}

/* everett_reachable asserts that this point is reached in some run. */
static inline void everett_reachable(const char *msg)
{
	everett_reachable_n(msg, everett_strlen(msg));
}

/* everett_unreachable asserts that this point is never reached; reaching
 * it is a failure. */
static inline void everett_unreachable(const char *msg)
{
	everett_unreachable_n(msg, everett_strlen(msg));
}

/* everett_random returns 64 bits drawn from the universe's PRNG: a
 * decision the explorer records, replays and varies. */
static inline unsigned long everett_random(void)
{
	return (unsigned long)everett_hypercall(EVERETT_OP_RANDOM, 0, 0, 0);
}

/* everett_setup_complete tells the host that set-up is over (the cluster
 * has formed, the workload is about to start): a natural snapshot point. */
static inline void everett_setup_complete(void)
{
	everett_hypercall(EVERETT_OP_SETUP_COMPLETE, 0, 0, 0);
}

/* everett_progress tells the host the guest is making progress (a hang
 * oracle waits for it); value is free for the guest, e.g. a count of
 * completed operations. */
static inline void everett_progress(unsigned long value)
{
	everett_hypercall(EVERETT_OP_PROGRESS, value, 0, 0);
}

/* everett_exit ends the run with code (0 = success). On everett it does not
 * return; should a host ever let it return, it spins. */
static inline __attribute__((noreturn)) void everett_exit(int code)
{
	everett_hypercall(EVERETT_OP_EXIT, (unsigned long)(long)code, 0, 0);
	for (;;)
		__asm__ __volatile__("" ::: "memory");
}

#ifdef __cplusplus
}
#endif

/* Macros taking a string literal: its length is a compile-time constant.
 * ("" lit) rejects anything that is not a literal. */
#define EVERETT_ALWAYS(cond, lit) everett_always_n((cond), "" lit, sizeof(lit) - 1)
#define EVERETT_SOMETIMES(cond, lit) everett_sometimes_n((cond), "" lit, sizeof(lit) - 1)
#define EVERETT_REACHABLE(lit) everett_reachable_n("" lit, sizeof(lit) - 1)
#define EVERETT_UNREACHABLE(lit) everett_unreachable_n("" lit, sizeof(lit) - 1)

#endif /* EVERETT_H */
