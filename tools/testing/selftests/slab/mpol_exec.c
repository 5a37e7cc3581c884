// SPDX-License-Identifier: GPL-2.0
/*
 * mpol_exec - run a command under a memory policy
 *
 *   mpol_exec bind|interleave NODE[,NODE...] COMMAND [ARG...]
 *
 * The policy is inherited across fork and exec: test_slab_api.sh loads
 * the test_slab_api module with it (phase=numa), whose slabs must follow
 * it.  busybox has no numactl.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#define MPOL_BIND	2	/* <linux/mempolicy.h> */
#define MPOL_INTERLEAVE	3

int main(int argc, char **argv)
{
	unsigned long mask = 0;
	char *tok, *save;
	int mode;

	if (argc < 4) {
		fprintf(stderr, "usage: %s bind|interleave NODE[,NODE...] COMMAND [ARG...]\n",
			argv[0]);
		return 2;
	}
	if (!strcmp(argv[1], "bind")) {
		mode = MPOL_BIND;
	} else if (!strcmp(argv[1], "interleave")) {
		mode = MPOL_INTERLEAVE;
	} else {
		fprintf(stderr, "%s: unknown policy %s\n", argv[0], argv[1]);
		return 2;
	}
	for (tok = strtok_r(argv[2], ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		int node = atoi(tok);

		if (node < 0 || node >= 64) {
			fprintf(stderr, "%s: bad node %s\n", argv[0], tok);
			return 2;
		}
		mask |= 1UL << node;
	}
	/* maxnode counts one bit more than the kernel reads. */
	if (syscall(SYS_set_mempolicy, mode, &mask, sizeof(mask) * 8 + 1)) {
		perror("set_mempolicy");
		return 1;
	}
	execvp(argv[3], argv + 3);
	perror(argv[3]);
	return 1;
}
