// exit3 prints a line and exits with code 3: the exit verdict.
#include <stdio.h>

int main(void) {
	printf("exit3: giving up\n");
	return 3;
}
