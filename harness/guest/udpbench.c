// SPDX-License-Identifier: GPL-2.0
/*
 * udpbench: push UDP datagrams through the guest's network stack over the
 * loopback device, for make bench (the "net" case of the bench suite).
 *
 * usage: udpbench PACKETS REPS SIZExBURST...
 *
 * One receiver socket bound to 127.0.0.1 and one sender socket connected
 * to it, both in this thread.  For each SIZExBURST case: send BURST
 * datagrams of SIZE payload bytes, then receive them, until PACKETS have
 * gone through; one untimed pass first, then REPS timed ones.  Each
 * datagram is an skb allocated on send (skbuff_head_cache and a kmalloc
 * buffer) and freed on receive.  Prints per case:
 *
 *   net SIZExBURST packets=N reps=R overhead_ns=O ns=T per_packet=P
 *
 * T is the cheapest repetition, minus the cost O of two clock reads; P is
 * T / N with two decimals.  The clock is CLOCK_MONOTONIC, the kernel's
 * ktime, which under QEMU -icount shift=0 advances one ns per guest
 * instruction.  Exit status 1, with a message, on any failure.
 */
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define MAX_SIZE	1472	/* one datagram in a 1500-byte frame */
#define MAX_BURST	256

static char buf[MAX_SIZE + 1];

static void fail(const char *what)
{
	printf("net error %s: %s\n", what, strerror(errno));
	exit(1);
}

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* Bring lo up; the kernel then gives it 127.0.0.1/8 by itself. */
static void loopback_up(void)
{
	struct ifreq ifr;
	int fd;

	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		fail("socket");
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, "lo");
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
		fail("SIOCGIFFLAGS lo");
	if (!(ifr.ifr_flags & IFF_UP)) {
		ifr.ifr_flags |= IFF_UP;
		if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
			fail("SIOCSIFFLAGS lo");
	}
	close(fd);
}

static void open_pair(int *tx, int *rx)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	struct timeval tmo = { .tv_sec = 10 };
	int rcvbuf = 1 << 20;

	*rx = socket(AF_INET, SOCK_DGRAM, 0);
	*tx = socket(AF_INET, SOCK_DGRAM, 0);
	if (*rx < 0 || *tx < 0)
		fail("socket");
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(*rx, (struct sockaddr *)&sin, sizeof(sin)) < 0)
		fail("bind");
	if (getsockname(*rx, (struct sockaddr *)&sin, &len) < 0)
		fail("getsockname");
	if (connect(*tx, (struct sockaddr *)&sin, sizeof(sin)) < 0)
		fail("connect");
	/* Room for a whole burst; a lost datagram would end in the timeout. */
	setsockopt(*rx, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (setsockopt(*rx, SOL_SOCKET, SO_RCVTIMEO, &tmo, sizeof(tmo)) < 0)
		fail("SO_RCVTIMEO");
}

static void run(int tx, int rx, unsigned int size, unsigned int burst,
		unsigned int packets)
{
	unsigned int done, i;
	ssize_t n;

	for (done = 0; done < packets; done += burst) {
		for (i = 0; i < burst; i++)
			if (send(tx, buf, size, 0) != (ssize_t)size)
				fail("send");
		for (i = 0; i < burst; i++) {
			n = recv(rx, buf, sizeof(buf), 0);
			if (n != (ssize_t)size) {
				if (n >= 0)
					errno = EMSGSIZE;
				fail("recv");
			}
		}
	}
}

int main(int argc, char **argv)
{
	unsigned int packets, reps, size, burst, r;
	unsigned long long overhead = ~0ull, best, t0, t1;
	int tx, rx, a;

	if (argc < 4) {
		fprintf(stderr, "usage: udpbench PACKETS REPS SIZExBURST...\n");
		return 2;
	}
	packets = strtoul(argv[1], NULL, 0);
	reps = strtoul(argv[2], NULL, 0);
	setvbuf(stdout, NULL, _IOLBF, 0);
	loopback_up();
	open_pair(&tx, &rx);
	for (r = 0; r < 16; r++) {
		t0 = now_ns();
		t1 = now_ns();
		if (t1 - t0 < overhead)
			overhead = t1 - t0;
	}
	for (a = 3; a < argc; a++) {
		if (sscanf(argv[a], "%ux%u", &size, &burst) != 2 || !size ||
		    size > MAX_SIZE || !burst || burst > MAX_BURST ||
		    packets % burst) {
			fprintf(stderr, "udpbench: bad case %s\n", argv[a]);
			return 2;
		}
		run(tx, rx, size, burst, burst);	/* warm-up */
		run(tx, rx, size, burst, packets);
		best = ~0ull;
		for (r = 0; r < reps; r++) {
			t0 = now_ns();
			run(tx, rx, size, burst, packets);
			t1 = now_ns();
			if (t1 - t0 < best)
				best = t1 - t0;
		}
		best = best > overhead ? best - overhead : 0;
		printf("net %ux%u packets=%u reps=%u overhead_ns=%llu ",
		       size, burst, packets, reps, overhead);
		printf("ns=%llu per_packet=%llu.%02llu\n", best, best / packets,
		       best * 100 / packets % 100);
	}
	return 0;
}
