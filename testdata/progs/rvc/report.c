#include "rt.h"

/* report prints what the 16-bit encoding enc did (called from rvc.S). */
void report(u64 enc)
{
	rt_printf("%04lx: ", enc);
	rt_print_trap("rvc", &rt_last);
}
