#include "dev.h"

static int
helper(int fd)
{
	return fd + 1;
}

int dev_open(const char *name)
{
	printf("%s\n", name);
	return helper(3);
}

int dev_read(int fd) { return helper(fd); }
