/* random: exits with a code drawn from the kernel's random number
 * generator (getrandom), 1 to 100: each universe should see its own. */
#include <stdio.h>
#include <sys/random.h>

int main(void)
{
	unsigned char b = 0;
	if (getrandom(&b, 1, 0) != 1) {
		perror("random: getrandom");
		return 101;
	}
	printf("random: %d\n", b);
	return 1 + b % 100;
}
