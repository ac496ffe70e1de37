// check exits 0 when file argv[1] holds exactly argv[2], environment
// variable argv[3] is argv[4], and the working directory is argv[5];
// otherwise it says what differs and exits 1. It checks what a spec's
// files, rootfs, env and dir put in the guest.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
	if (argc != 6) {
		fprintf(stderr, "usage: check FILE CONTENT VAR VALUE DIR\n");
		return 2;
	}
	char buf[256] = {0}, cwd[256] = {0};
	FILE *f = fopen(argv[1], "r");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = 0;
	fclose(f);
	const char *v = getenv(argv[3]);
	getcwd(cwd, sizeof cwd);
	if (strcmp(buf, argv[2]) != 0 || !v || strcmp(v, argv[4]) != 0 || strcmp(cwd, argv[5]) != 0) {
		fprintf(stderr, "check: %s holds %s, %s=%s, cwd %s\n", argv[1], buf, argv[3], v ? v : "(unset)", cwd);
		return 1;
	}
	printf("check: ok\n");
	return 0;
}
