/* work.h: the private work the bug programs do between their shared
 * accesses.
 *
 * work(seed, rounds) stands for what a thread does on its own: parsing a
 * request, checking a payment, formatting a line. It is a hash stretched
 * over `rounds` rounds (four riscv64 instructions a round at -O2, about a
 * nanosecond a round on an amd64 host) and touches no memory, so the only
 * places where the threads of a program meet are the ones its comment
 * names. Nothing depends on time: a run's length is a function of its
 * instructions alone. */
#ifndef BUGS_WORK_H
#define BUGS_WORK_H

static inline unsigned long work(unsigned long seed, long rounds)
{
	unsigned long h = 1469598103934665603UL ^ seed;
	for (long i = 0; i < rounds; i++)
		h = (h ^ (unsigned long)i) * 1099511628211UL;
	/* An empty asm that "uses" h: the loop cannot be dropped, and no
	 * shared variable is written to keep it. */
	__asm__ volatile("" : : "r"(h));
	return h;
}

/* WINDOW(rounds) marks the window of a program's bug: the place where a
 * thread must be held up for the bug to show. It does nothing, unless the
 * program is built with -DWIDEN (make widen), when it does `rounds` rounds
 * of work there (a stretch the size of the program's other work, up to a
 * few tens of milliseconds): the window is then wide, and the bug shows
 * in most runs. That is how to check that a bug is real without a
 * scheduler that finds it. The compiler barriers keep the caller's loads
 * and stores on their side of the window. */
#ifdef WIDEN
#define WINDOW(rounds)                           \
	do {                                     \
		__asm__ volatile("" ::: "memory"); \
		(void)work(0, (rounds));         \
		__asm__ volatile("" ::: "memory"); \
	} while (0)
#else
#define WINDOW(rounds) ((void)0)
#endif

#endif
