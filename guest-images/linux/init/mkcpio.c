// mkcpio: writes a cpio archive in the "newc" format (the one the Linux
// initramfs unpacker reads) from a list on standard input, to standard output.
// Host tool; needs no root to create device nodes, and its output depends
// only on the list and the file contents: owner 0:0, mtime 0, inode numbers
// in list order. Format: Documentation/driver-api/early-userspace/
// buffer-format.rst in the kernel tree, and cpio(5).
//
// List lines (blank lines and lines starting with '#' are skipped):
//
//	dir  NAME MODE
//	nod  NAME MODE c|b MAJOR MINOR
//	file NAME MODE HOSTPATH
//
// NAME is the path inside the archive (a leading '/' is dropped); MODE is
// octal permission bits.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { lineBytesMax = 4096, fileBytesMax = 64 << 20 };

static unsigned long nextIno = 1;
static unsigned long long written; // bytes written, for padding

static void out(const void *p, size_t n) {
	if (fwrite(p, 1, n, stdout) != n) {
		perror("mkcpio: write");
		exit(1);
	}
	written += n;
}

static void pad4(void) {
	static const char zeros[4];
	out(zeros, (4 - written % 4) % 4);
}

static void entry(const char *name, unsigned mode, unsigned rmaj, unsigned rmin,
		  const char *data, size_t size) {
	while (*name == '/')
		name++;
	char hdr[160]; // 110 bytes used: every field fits in 8 hex digits
	unsigned long ino = strcmp(name, "TRAILER!!!") == 0 ? 0 : nextIno++;
	unsigned nlink = S_ISDIR(mode) ? 2 : 1;
	int n = snprintf(hdr, sizeof hdr,
		 "070701%08lX%08X%08X%08X%08X%08X%08lX%08X%08X%08X%08X%08lX%08X",
		 ino, mode, 0u, 0u, nlink, 0u, (unsigned long)size, 0u, 0u, rmaj, rmin,
		 (unsigned long)strlen(name) + 1, 0u);
	if (n != 6 + 13 * 8) {
		fprintf(stderr, "mkcpio: %s: a header field does not fit\n", name);
		exit(1);
	}
	out(hdr, n);
	out(name, strlen(name) + 1);
	pad4();
	if (size) {
		out(data, size);
		pad4();
	}
}

static char *slurp(const char *path, size_t *size) {
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "mkcpio: open %s: %s\n", path, strerror(errno));
		exit(1);
	}
	char *buf = malloc(fileBytesMax);
	if (!buf) {
		fprintf(stderr, "mkcpio: out of memory\n");
		exit(1);
	}
	*size = fread(buf, 1, fileBytesMax, f);
	if (ferror(f) || !feof(f)) {
		fprintf(stderr, "mkcpio: read %s: error or larger than %d bytes\n", path, fileBytesMax);
		exit(1);
	}
	fclose(f);
	return buf;
}

int main(void) {
	char line[lineBytesMax];
	int lineNo = 0;
	while (fgets(line, sizeof line, stdin)) {
		lineNo++;
		char kind[8], name[1024], third[1024], type;
		unsigned mode, maj, min;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (sscanf(line, "%7s", kind) != 1)
			continue;
		if (strcmp(kind, "dir") == 0 && sscanf(line, "%*s %1023s %o", name, &mode) == 2) {
			entry(name, S_IFDIR | (mode & 07777), 0, 0, NULL, 0);
		} else if (strcmp(kind, "nod") == 0 &&
			   sscanf(line, "%*s %1023s %o %c %u %u", name, &mode, &type, &maj, &min) == 5 &&
			   (type == 'c' || type == 'b')) {
			entry(name, (type == 'c' ? S_IFCHR : S_IFBLK) | (mode & 07777), maj, min, NULL, 0);
		} else if (strcmp(kind, "file") == 0 &&
			   sscanf(line, "%*s %1023s %o %1023s", name, &mode, third) == 3) {
			size_t size;
			char *data = slurp(third, &size);
			entry(name, S_IFREG | (mode & 07777), 0, 0, data, size);
			free(data);
		} else {
			fprintf(stderr, "mkcpio: line %d: cannot parse: %s", lineNo, line);
			return 1;
		}
	}
	entry("TRAILER!!!", 0, 0, 0, NULL, 0);
	// The kernel reads the archive in 512-byte blocks only by convention;
	// pad the end like cpio(1) does.
	static const char zeros[512];
	out(zeros, (512 - written % 512) % 512);
	return fflush(stdout) == 0 ? 0 : 1;
}
