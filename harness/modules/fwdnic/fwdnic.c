// SPDX-License-Identifier: GPL-2.0
/*
 * fwdnic: the NIC of make bench's IP forwarding case, in guest memory.
 *
 * Jesper Brouer's experiment forwards one UDP flow through one CPU of a
 * router with a real NIC, whose driver takes its skb heads from the NAPI
 * skb cache (refilled by kmem_cache_alloc_bulk()) and gives them back to
 * it on TX completion with napi_consume_skb() (the cache flushes with
 * kmem_cache_free_bulk()).  Under QEMU a virtio-net NIC does the same,
 * but its frames arrive when QEMU's main loop delivers them, beside the
 * vCPU, so two runs of one boot forward with different batching and the
 * instructions per packet spread by more than the allocators differ.
 *
 * This module is two Ethernet devices whose "hardware" is the CPU itself,
 * so that the same boot forwards with the same instructions every time:
 *
 *   fwdrx  receives.  Writing N to /sys/module/fwdnic/parameters/send
 *          schedules its NAPI, whose poll builds up to a budget of frames
 *          per call, as a NIC's ring would hold them: one 60-byte UDP/IPv4
 *          frame from 10.0.1.9 to 10.0.2.9 each, handed to
 *          napi_gro_receive().  The write returns once every frame has
 *          been freed, or dropped where the module can see it.
 *   fwdtx  transmits (IFF_NOARP: its neighbours need no resolution).
 *          ndo_start_xmit puts the skb on a ring; the TX completion, its
 *          NAPI, frees up to FWDNIC_TX_WORK of them a poll.
 *
 * The parameters bulk, pages, tx_polls and tx_pending choose how, and
 * are read when "send" is written:
 *
 *   bulk=1 pages=0  the frame is copied into an skb of napi_alloc_skb()
 *                   (the head from the NAPI skb cache, the data from its
 *                   page fragments, as copybreak does) and freed with
 *                   napi_consume_skb();
 *   bulk=0 pages=0  netdev_alloc_skb() and dev_consume_skb_any(): the
 *                   head from kmem_cache_alloc_node(), the data from
 *                   kmalloc (6.1) or its own small cache (6.12), each
 *                   freed alone, the NAPI skb cache and so the bulk API
 *                   unused;
 *   pages=1         the frame is written into half a page of fwdrx's
 *                   receive ring, which napi_build_skb() (build_skb()
 *                   with bulk=0) wraps, as drivers that recycle pages
 *                   (i40e, ixgbe; page_pool's drivers alike) do; the page
 *                   goes back to the ring for its other half when the
 *                   stack holds no other reference to it, else the ring
 *                   gives it up and takes a new one.
 *
 * The TX completion is raised as a NIC's moderated interrupt would be:
 * once tx_polls receive polls have ended with frames on the ring (0: not
 * by polls), at tx_pending frames on the ring (0: not by count), when the
 * ring is full, and when the receive goes idle, where a NIC's moderation
 * timer would fire; it frees up to FWDNIC_TX_WORK frames a poll, and
 * takes none of the budget, which is the receive's.  The defaults: every
 * 2 polls, 128 frames, about what i40e's TX moderation, which starts at
 * 50 us (I40E_ITR_20K), gives at Brouer's 2.1 Mpps (105 frames), and
 * above the 48 to 96 frames an interrupt ixgbe's adaptive moderation
 * aims at; and at most 256, their TX work limit (I40E_DEFAULT_IRQ_WORK,
 * IXGBE_DEFAULT_TX_WORK), so that one poll frees a completion's frames.
 * tx_polls=1 tx_pending=0 completes after every receive poll, which
 * fixes how many heads a poll's allocations find in the NAPI skb cache.
 *
 * What a real driver's path has that this one has not: DMA mapping and
 * unmapping, descriptor rings in device memory and their doorbells, the
 * interrupt itself and its moderation timer, the device's own time (the
 * wire, PCIe), so the allocator's share of a packet here is larger;
 * page_pool (its recycling caches and statistics), XDP, RSS across
 * queues, and completions on another CPU than the receive.
 *
 * Nothing in the per-packet path depends on the allocator but the calls
 * the network stack makes and those above.  Both polls run in NET_RX
 * softirq context on the CPU that wrote the count; make bench boots one
 * vCPU.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/netdevice.h>
#include <linux/etherdevice.h>
#include <linux/completion.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <net/checksum.h>

#if IS_ENABLED(CONFIG_INET)

#define FWDNIC_FRAME	60		/* pktgen's pkt_size 60: 64 on the wire */
#define FWDNIC_RING	1024		/* TX descriptors, a power of two */
#define FWDNIC_TX_WORK	256		/* frames a TX poll frees at most */
#define FWDNIC_RX_RING	512		/* pages=1: receive descriptors */
#define FWDNIC_BUF	(PAGE_SIZE / 2)	/* pages=1: a buffer, half a page */
#define FWDNIC_HEADROOM	(NET_SKB_PAD + NET_IP_ALIGN)
#define FWDNIC_TIMEOUT	(60 * HZ)

static bool bulk = true;
module_param(bulk, bool, 0644);
MODULE_PARM_DESC(bulk, "N: netdev_alloc_skb() and dev_consume_skb_any(), not the NAPI skb cache");

static bool pages;
module_param(pages, bool, 0644);
MODULE_PARM_DESC(pages, "Y: frames in recycled half pages, wrapped by napi_build_skb() (or build_skb())");

static unsigned int tx_polls = 2;
module_param(tx_polls, uint, 0644);
MODULE_PARM_DESC(tx_polls, "raise the TX completion after this many receive polls (0: not by polls)");

static unsigned int tx_pending = 256;
module_param(tx_pending, uint, 0644);
MODULE_PARM_DESC(tx_pending, "raise the TX completion at this many frames on the ring (0: not by count)");

/* pages=1: a receive descriptor, a page and the half the next frame takes */
struct fwdnic_rxbuf {
	struct page *page;
	unsigned int offset;
};

struct fwdnic {
	struct napi_struct napi;
	struct net_device *dev;
	bool rx;			/* fwdrx */
	u64 packets;			/* received (fwdrx) or sent (fwdtx) */
	u64 bytes;
	u64 dropped;			/* fwdrx: no skb */
	unsigned long rx_left;		/* fwdrx: frames still to receive */
	unsigned int rx_next;		/* fwdrx: next receive descriptor */
	u64 recycled;			/* fwdrx: pages kept for their other half */
	u64 allocated;			/* fwdrx: pages taken while receiving */
	unsigned int polls;		/* fwdtx: receive polls since the last raise */
	u64 completions;		/* fwdtx: TX polls that freed frames */
	unsigned int head;		/* fwdtx: next slot ndo_start_xmit fills */
	unsigned int tail;		/* fwdtx: next slot the poll frees */
	struct sk_buff *ring[FWDNIC_RING];
	struct fwdnic_rxbuf rxq[FWDNIC_RX_RING];
};

static struct net_device *fwd_rx, *fwd_tx;
static u8 fwd_frame[FWDNIC_FRAME];
static const u8 fwd_rx_addr[ETH_ALEN] = { 0x02, 0x00, 0x00, 0x5a, 0xb0, 0x01 };
static const u8 fwd_tx_addr[ETH_ALEN] = { 0x02, 0x00, 0x00, 0x5a, 0xb0, 0x02 };
static const u8 fwd_src_addr[ETH_ALEN] = { 0x02, 0x00, 0x00, 0x5a, 0xb0, 0x09 };

/* The parameters of the run in progress, as "send" found them. */
static struct {
	bool bulk;
	bool pages;
	unsigned int tx_polls;
	unsigned int tx_pending;
} fwd_run = { .bulk = true };

/*
 * The CPU whose receive is in progress (fwdrx's NAPI scheduled there), or
 * -1: ndo_start_xmit there leaves raising the TX completion to the end of
 * the receive poll.
 */
static int fwd_rx_cpu = -1;

/* The run the write of "send" waits for: frames sent or dropped of @fwd_want. */
static unsigned long fwd_want;
static unsigned long fwd_ended;
static DECLARE_COMPLETION(fwd_done);

static void fwdnic_ended(unsigned long n)
{
	fwd_ended += n;
	if (fwd_want && fwd_ended >= fwd_want) {
		fwd_want = 0;
		complete(&fwd_done);
	}
}

/*
 * pages=1: the next receive descriptor's buffer, the frame written into
 * it where the NIC would have put it, wrapped in an skb.
 */
static struct sk_buff *fwdnic_rx_page(struct fwdnic *nic)
{
	struct fwdnic_rxbuf *b = &nic->rxq[nic->rx_next++ % FWDNIC_RX_RING];
	struct sk_buff *skb;
	void *buf;

	if (unlikely(!b->page)) {
		b->page = dev_alloc_page();
		if (!b->page)
			return NULL;
		b->offset = 0;
		nic->allocated++;
	}
	buf = page_address(b->page) + b->offset;
	memcpy(buf + FWDNIC_HEADROOM, fwd_frame, FWDNIC_FRAME);
	if (fwd_run.bulk)
		skb = napi_build_skb(buf, FWDNIC_BUF);
	else
		skb = build_skb(buf, FWDNIC_BUF);
	if (unlikely(!skb))
		return NULL;
	/* The skb's reference: the stack drops it when it frees the head. */
	get_page(b->page);
	skb_reserve(skb, FWDNIC_HEADROOM);
	skb_put(skb, FWDNIC_FRAME);
	/*
	 * The ring's reference and this skb's are all: the other half is
	 * free for the descriptor's next frame.  Else the stack still has
	 * it, and the ring lets the page go to the stack's last put_page().
	 */
	if (page_ref_count(b->page) == 2) {
		b->offset ^= FWDNIC_BUF;
		nic->recycled++;
	} else {
		put_page(b->page);
		b->page = NULL;
	}
	return skb;
}

static struct sk_buff *fwdnic_rx_skb(struct fwdnic *nic, struct napi_struct *napi)
{
	struct sk_buff *skb;

	if (fwd_run.pages)
		return fwdnic_rx_page(nic);
	if (fwd_run.bulk)
		skb = napi_alloc_skb(napi, FWDNIC_FRAME);
	else
		skb = netdev_alloc_skb(nic->dev, FWDNIC_FRAME);
	if (likely(skb))
		skb_put_data(skb, fwd_frame, FWDNIC_FRAME);
	return skb;
}

/*
 * The end of a receive poll: raise the TX completion once tx_polls polls
 * have ended with frames on the ring, or when the receive goes idle.  A
 * completion already scheduled frees them all (it runs after this poll);
 * on going idle it is raised regardless, and runs once more if it was.
 */
static void fwdnic_tx_moderate(struct fwdnic *tx, bool idle)
{
	/* Pairs with fwdnic_xmit()'s release. */
	if (smp_load_acquire(&tx->head) == READ_ONCE(tx->tail)) {
		tx->polls = 0;
		return;
	}
	if (idle) {
		tx->polls = 0;
		napi_schedule(&tx->napi);
		return;
	}
	if (test_bit(NAPI_STATE_SCHED, &tx->napi.state)) {
		tx->polls = 0;
		return;
	}
	if (fwd_run.tx_polls && ++tx->polls >= fwd_run.tx_polls) {
		tx->polls = 0;
		napi_schedule(&tx->napi);
	}
}

static int fwdnic_rx_poll(struct napi_struct *napi, int budget)
{
	struct fwdnic *nic = container_of(napi, struct fwdnic, napi);
	struct sk_buff *skb;
	int done = 0;

	WRITE_ONCE(fwd_rx_cpu, smp_processor_id());
	while (done < budget && nic->rx_left) {
		nic->rx_left--;
		done++;
		skb = fwdnic_rx_skb(nic, napi);
		if (unlikely(!skb)) {
			nic->dropped++;
			fwdnic_ended(1);
			continue;
		}
		skb->protocol = eth_type_trans(skb, nic->dev);
		nic->packets++;
		nic->bytes += FWDNIC_FRAME;
		napi_gro_receive(napi, skb);
	}
	if (done < budget) {
		/* Delivers what GRO holds: the last transmits of the run. */
		napi_complete_done(napi, done);
		WRITE_ONCE(fwd_rx_cpu, -1);
	}
	fwdnic_tx_moderate(netdev_priv(fwd_tx), done < budget);
	return done;
}

static int fwdnic_tx_poll(struct napi_struct *napi, int budget)
{
	struct fwdnic *nic = container_of(napi, struct fwdnic, napi);
	/* Pairs with fwdnic_xmit()'s release: the slots below head are filled. */
	unsigned int head = smp_load_acquire(&nic->head);
	struct sk_buff *skb;
	int done = 0;

	while (done < FWDNIC_TX_WORK && nic->tail != head) {
		skb = nic->ring[nic->tail % FWDNIC_RING];
		nic->packets++;
		nic->bytes += skb->len;
		if (fwd_run.bulk)
			napi_consume_skb(skb, budget);
		else
			dev_consume_skb_any(skb);
		/* Pairs with fwdnic_xmit()'s READ_ONCE(): the slot is free. */
		smp_store_release(&nic->tail, nic->tail + 1);
		done++;
	}
	if (done)
		nic->completions++;
	fwdnic_ended(done);
	if (netif_queue_stopped(nic->dev) && head - nic->tail < FWDNIC_RING)
		netif_wake_queue(nic->dev);
	/*
	 * Frames left beyond the work limit: poll again, as drivers do.  The
	 * TX completion takes none of the budget, which is the receive's.
	 */
	if (nic->tail != head)
		return budget;
	napi_complete_done(napi, 0);
	return 0;
}

static netdev_tx_t fwdnic_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct fwdnic *nic = netdev_priv(dev);
	unsigned int pending;

	nic->ring[nic->head % FWDNIC_RING] = skb;
	/* Publish the slot before the count (fwdnic_tx_poll()'s acquire). */
	smp_store_release(&nic->head, nic->head + 1);
	pending = nic->head - READ_ONCE(nic->tail);
	if (pending == FWDNIC_RING) {
		netif_stop_queue(dev);
		napi_schedule(&nic->napi);
	} else if (pending == fwd_run.tx_pending ||
		   READ_ONCE(fwd_rx_cpu) != smp_processor_id()) {
		/* No receive poll on this CPU is to end and raise it. */
		napi_schedule(&nic->napi);
	}
	return NETDEV_TX_OK;
}

/* pages=1: a page for every empty receive descriptor, before the run. */
static void fwdnic_rx_fill(struct fwdnic *nic)
{
	struct page *page;
	int i;

	for (i = 0; i < FWDNIC_RX_RING; i++) {
		if (nic->rxq[i].page)
			continue;
		page = alloc_page(GFP_KERNEL);
		if (!page)
			return;
		nic->rxq[i].page = page;
		nic->rxq[i].offset = 0;
	}
}

static int fwdnic_open(struct net_device *dev)
{
	struct fwdnic *nic = netdev_priv(dev);

	napi_enable(&nic->napi);
	netif_start_queue(dev);
	return 0;
}

static int fwdnic_stop(struct net_device *dev)
{
	struct fwdnic *nic = netdev_priv(dev);
	int i;

	netif_stop_queue(dev);
	napi_disable(&nic->napi);
	nic->rx_left = 0;
	while (nic->tail != nic->head)
		dev_kfree_skb(nic->ring[nic->tail++ % FWDNIC_RING]);
	/* The ring's references: the stack's own keep theirs alive. */
	for (i = 0; i < FWDNIC_RX_RING; i++) {
		if (nic->rxq[i].page)
			put_page(nic->rxq[i].page);
		nic->rxq[i].page = NULL;
	}
	return 0;
}

static void fwdnic_stats(struct net_device *dev, struct rtnl_link_stats64 *s)
{
	struct fwdnic *nic = netdev_priv(dev);

	if (nic->rx) {
		s->rx_packets = nic->packets;
		s->rx_bytes = nic->bytes;
		s->rx_dropped = nic->dropped;
	} else {
		s->tx_packets = nic->packets;
		s->tx_bytes = nic->bytes;
	}
}

static const struct net_device_ops fwdnic_ops = {
	.ndo_open = fwdnic_open,
	.ndo_stop = fwdnic_stop,
	.ndo_start_xmit = fwdnic_xmit,
	.ndo_get_stats64 = fwdnic_stats,
};

/* Write N: receive N frames, and return once each has left or dropped. */
static int fwdnic_send(const char *val, const struct kernel_param *kp)
{
	struct fwdnic *rx = netdev_priv(fwd_rx);
	struct fwdnic *tx = netdev_priv(fwd_tx);
	unsigned long n;
	int ret;

	ret = kstrtoul(val, 0, &n);
	if (ret)
		return ret;
	if (!n)
		return 0;
	if (!netif_running(fwd_rx) || !netif_running(fwd_tx)) {
		pr_err("fwdnic: send %lu: fwdrx and fwdtx must be up\n", n);
		return -ENETDOWN;
	}
	if (READ_ONCE(pages))
		fwdnic_rx_fill(rx);
	local_bh_disable();
	fwd_run.bulk = READ_ONCE(bulk);
	fwd_run.pages = READ_ONCE(pages);
	fwd_run.tx_polls = READ_ONCE(tx_polls);
	fwd_run.tx_pending = READ_ONCE(tx_pending);
	tx->polls = 0;
	reinit_completion(&fwd_done);
	fwd_ended = 0;
	fwd_want = n;
	rx->rx_left = n;
	napi_schedule(&rx->napi);
	local_bh_enable();
	if (!wait_for_completion_timeout(&fwd_done, FWDNIC_TIMEOUT)) {
		local_bh_disable();
		pr_err("fwdnic: send %lu: %lu left fwdtx or dropped in %d s, %lu not received\n",
		       n, fwd_ended, FWDNIC_TIMEOUT / HZ, rx->rx_left);
		rx->rx_left = 0;
		fwd_want = 0;
		local_bh_enable();
		return -ETIMEDOUT;
	}
	return 0;
}

static const struct kernel_param_ops fwdnic_send_ops = {
	.set = fwdnic_send,
};
module_param_cb(send, &fwdnic_send_ops, NULL, 0200);
MODULE_PARM_DESC(send, "receive this many frames on fwdrx and wait until they have left");

/* Read: the counters a run's frames leave, for the bench's checks. */
static int fwdnic_counters(char *buf, const struct kernel_param *kp)
{
	struct fwdnic *rx = netdev_priv(fwd_rx);
	struct fwdnic *tx = netdev_priv(fwd_tx);

	return sysfs_emit(buf, "completions=%llu recycled=%llu allocated=%llu\n",
			  tx->completions, rx->recycled, rx->allocated);
}

static const struct kernel_param_ops fwdnic_counters_ops = {
	.get = fwdnic_counters,
};
module_param_cb(counters, &fwdnic_counters_ops, NULL, 0444);
MODULE_PARM_DESC(counters, "TX polls that freed frames; pages=1: pages recycled and taken");

static void fwdnic_build_frame(void)
{
	struct ethhdr *eth = (struct ethhdr *)fwd_frame;
	struct iphdr *iph = (struct iphdr *)(eth + 1);
	struct udphdr *udph = (struct udphdr *)(iph + 1);

	ether_addr_copy(eth->h_dest, fwd_rx_addr);
	ether_addr_copy(eth->h_source, fwd_src_addr);
	eth->h_proto = htons(ETH_P_IP);
	iph->version = 4;
	iph->ihl = 5;
	iph->tot_len = htons(FWDNIC_FRAME - ETH_HLEN);
	iph->ttl = 64;
	iph->protocol = IPPROTO_UDP;
	iph->saddr = htonl(0x0a000109);		/* 10.0.1.9 */
	iph->daddr = htonl(0x0a000209);		/* 10.0.2.9 */
	iph->check = ip_fast_csum(iph, iph->ihl);
	udph->source = htons(9);
	udph->dest = htons(9);
	udph->len = htons(FWDNIC_FRAME - ETH_HLEN - sizeof(*iph));
}

static struct net_device *fwdnic_new(const char *name, const u8 *addr, bool rx)
{
	struct net_device *dev;
	struct fwdnic *nic;
	int ret;

	dev = alloc_netdev(sizeof(*nic), name, NET_NAME_USER, ether_setup);
	if (!dev)
		return ERR_PTR(-ENOMEM);
	nic = netdev_priv(dev);
	nic->dev = dev;
	nic->rx = rx;
	dev->netdev_ops = &fwdnic_ops;
	if (!rx)
		dev->flags |= IFF_NOARP;
	eth_hw_addr_set(dev, addr);
	netif_napi_add(dev, &nic->napi, rx ? fwdnic_rx_poll : fwdnic_tx_poll);
	ret = register_netdev(dev);
	if (ret) {
		netif_napi_del(&nic->napi);
		free_netdev(dev);
		return ERR_PTR(ret);
	}
	return dev;
}

static void fwdnic_free(struct net_device *dev)
{
	struct fwdnic *nic = netdev_priv(dev);

	unregister_netdev(dev);
	netif_napi_del(&nic->napi);
	free_netdev(dev);
}

static int __init fwdnic_init(void)
{
	/* pages=1: the frame, its headroom and skb_shared_info in a buffer. */
	BUILD_BUG_ON(SKB_DATA_ALIGN(FWDNIC_HEADROOM + FWDNIC_FRAME) +
		     SKB_DATA_ALIGN(sizeof(struct skb_shared_info)) > FWDNIC_BUF);
	fwdnic_build_frame();
	fwd_rx = fwdnic_new("fwdrx", fwd_rx_addr, true);
	if (IS_ERR(fwd_rx))
		return PTR_ERR(fwd_rx);
	fwd_tx = fwdnic_new("fwdtx", fwd_tx_addr, false);
	if (IS_ERR(fwd_tx)) {
		fwdnic_free(fwd_rx);
		return PTR_ERR(fwd_tx);
	}
	return 0;
}

static void __exit fwdnic_exit(void)
{
	fwdnic_free(fwd_tx);
	fwdnic_free(fwd_rx);
}

#else /* !CONFIG_INET */

static int __init fwdnic_init(void)
{
	pr_err("fwdnic: this kernel has no IPv4 to forward with\n");
	return -ENODEV;
}

static void __exit fwdnic_exit(void)
{
}

#endif /* CONFIG_INET */

module_init(fwdnic_init);
module_exit(fwdnic_exit);
MODULE_DESCRIPTION("Two Ethernet devices in guest memory for make bench's IP forwarding case");
MODULE_LICENSE("GPL");
