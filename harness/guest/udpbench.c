// SPDX-License-Identifier: GPL-2.0
/*
 * udpbench: push UDP datagrams through the guest's network stack over the
 * loopback device, for make bench (the "net" case of the bench suite).
 *
 * usage: udpbench [-c] [-m [-w W]] PACKETS REPS SIZExBURST...
 *        udpbench mark begin|end
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
 *
 * -c (the distribution workload, never the bench, whose instruction
 * counts it would change): every datagram carries its number and bytes
 * derived from it, and each burst must come back whole: every datagram
 * once, each byte as sent, in any order.  A mismatch prints
 *
 *   net error payload SIZExBURST: datagram D byte B is X, sent Y
 *
 * -m (make bench's icount boots under the slabcost plugin, harness/plugin/
 * slabcost.c): the last timed repetition of each case is a plugin window,
 * marked around the run outside its clock reads, and a line
 *
 *   net model SIZExBURST window=W packets=N
 *
 * says which.  The counts are unchanged: the markers are outside the timed
 * runs.  "udpbench mark begin|end" executes one marker and exits, for the
 * shell's windows around fork+exec and dd; W counts from the first window
 * of the boot, and the guest's init keeps the count (-w W: the windows
 * before this run).
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

static unsigned char buf[MAX_SIZE + 1];
static int check;			/* -c */
static unsigned int sent;		/* datagrams sent, numbering them */
static int model;			/* -m */
static unsigned int windows;		/* -w: plugin windows before this run */

/* The slabcost plugin's markers: "nopl disp32(%rax,%rax,1)". */
static void mark_begin(void)
{
	asm volatile(".byte 0x0f,0x1f,0x84,0x00\n\t.long 0x5ab1c0b1" ::: "memory");
}

static void mark_end(void)
{
	asm volatile(".byte 0x0f,0x1f,0x84,0x00\n\t.long 0x5ab1c0e1" ::: "memory");
}

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

/* Byte @i of datagram @d: its number in the first 4, then a pattern. */
static unsigned char payload_byte(unsigned int d, unsigned int i)
{
	if (i < 4)
		return d >> (8 * i);
	return (d * 131 + i * 7) ^ (i >> 8);
}

static void payload_fill(unsigned int d, unsigned int size)
{
	unsigned int i;

	for (i = 0; i < size; i++)
		buf[i] = payload_byte(d, i);
}

/*
 * Check a received datagram of a burst whose first number is @first;
 * @seen marks the burst's datagrams already received.
 */
static void payload_check(unsigned int size, unsigned int burst,
			  unsigned int first, unsigned char *seen)
{
	unsigned int d = 0, i;

	for (i = 0; i < 4; i++)
		d |= (unsigned int)buf[i] << (8 * i);
	if (d - first >= burst || seen[d - first]) {
		printf("net error payload %ux%u: datagram %u %s (burst %u..%u)\n",
		       size, burst, d, d - first >= burst ? "not sent" : "twice",
		       first, first + burst - 1);
		exit(1);
	}
	seen[d - first] = 1;
	for (i = 4; i < size; i++) {
		if (buf[i] == payload_byte(d, i))
			continue;
		printf("net error payload %ux%u: datagram %u byte %u is %u, sent %u\n",
		       size, burst, d, i, buf[i], payload_byte(d, i));
		exit(1);
	}
}

static void run(int tx, int rx, unsigned int size, unsigned int burst,
		unsigned int packets)
{
	unsigned char seen[MAX_BURST];
	unsigned int done, i, first;
	ssize_t n;

	for (done = 0; done < packets; done += burst) {
		first = sent;
		for (i = 0; i < burst; i++, sent++) {
			if (check)
				payload_fill(sent, size);
			if (send(tx, buf, size, 0) != (ssize_t)size)
				fail("send");
		}
		memset(seen, 0, burst);
		for (i = 0; i < burst; i++) {
			n = recv(rx, buf, sizeof(buf), 0);
			if (n != (ssize_t)size) {
				if (n >= 0)
					errno = EMSGSIZE;
				fail("recv");
			}
			if (check)
				payload_check(size, burst, first, seen);
		}
	}
}

int main(int argc, char **argv)
{
	unsigned int packets, reps, size, burst, r;
	unsigned long long overhead = ~0ull, best, t0, t1;
	int tx, rx, a;

	if (argc == 3 && !strcmp(argv[1], "mark")) {
		if (!strcmp(argv[2], "begin"))
			mark_begin();
		else if (!strcmp(argv[2], "end"))
			mark_end();
		else
			return 2;
		return 0;
	}
	for (; argc > 1 && argv[1][0] == '-'; argv++, argc--) {
		if (!strcmp(argv[1], "-c")) {
			check = 1;
		} else if (!strcmp(argv[1], "-m")) {
			model = 1;
		} else if (!strcmp(argv[1], "-w") && argc > 2) {
			windows = strtoul(argv[2], NULL, 0);
			argv++;
			argc--;
		} else {
			break;
		}
	}
	if (argc < 4) {
		fprintf(stderr, "usage: udpbench [-c] [-m [-w W]] PACKETS REPS SIZExBURST...\n");
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
			int w = model && r == reps - 1;

			if (w)
				mark_begin();
			t0 = now_ns();
			run(tx, rx, size, burst, packets);
			t1 = now_ns();
			if (w)
				mark_end();
			if (t1 - t0 < best)
				best = t1 - t0;
		}
		if (model)
			printf("net model %ux%u window=%u packets=%u\n", size,
			       burst, ++windows, packets);
		best = best > overhead ? best - overhead : 0;
		printf("net %ux%u packets=%u reps=%u overhead_ns=%llu ",
		       size, burst, packets, reps, overhead);
		printf("ns=%llu per_packet=%llu.%02llu\n", best, best / packets,
		       best * 100 / packets % 100);
	}
	return 0;
}
