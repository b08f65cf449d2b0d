#include "dev.h"

static int helper(int fd) { return fd * 2; }

static const struct dev_ops ops = {.read = dev_read};

int main(void)
{
	int fd = DEV_OPEN("x");
	int n = ops.read(fd);
	int (*f)(int) = helper;
	return f(n) + dev_twice(n) + helper(n);
}
