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
 *          frame from 10.0.1.9 to 10.0.2.9 each, copied into an skb of
 *          napi_alloc_skb() (the head from the NAPI skb cache, the data
 *          from its page fragments) and handed to napi_gro_receive().
 *          The write returns once every frame has been freed, or dropped
 *          where the module can see it.
 *   fwdtx  transmits (IFF_NOARP: its neighbours need no resolution).
 *          ndo_start_xmit puts the skb on a ring and raises the TX
 *          completion, its NAPI, when that is not already pending (one
 *          completion interrupt per burst, as moderation gives); the
 *          poll frees each skb with napi_consume_skb().
 *
 * Nothing in the per-packet path depends on the allocator but the calls
 * the network stack makes.  Both polls run in NET_RX softirq context on
 * the CPU that wrote the count; make bench boots one vCPU.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/netdevice.h>
#include <linux/etherdevice.h>
#include <linux/completion.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <net/checksum.h>

#if IS_ENABLED(CONFIG_INET)

#define FWDNIC_FRAME	60		/* pktgen's pkt_size 60: 64 on the wire */
#define FWDNIC_RING	1024		/* TX descriptors, a power of two */
#define FWDNIC_TIMEOUT	(60 * HZ)

struct fwdnic {
	struct napi_struct napi;
	struct net_device *dev;
	bool rx;			/* fwdrx */
	u64 packets;			/* received (fwdrx) or sent (fwdtx) */
	u64 bytes;
	u64 dropped;			/* fwdrx: napi_alloc_skb() failed */
	unsigned long rx_left;		/* fwdrx: frames still to receive */
	unsigned int head;		/* fwdtx: next slot ndo_start_xmit fills */
	unsigned int tail;		/* fwdtx: next slot the poll frees */
	struct sk_buff *ring[FWDNIC_RING];
};

static struct net_device *fwd_rx, *fwd_tx;
static u8 fwd_frame[FWDNIC_FRAME];
static const u8 fwd_rx_addr[ETH_ALEN] = { 0x02, 0x00, 0x00, 0x5a, 0xb0, 0x01 };
static const u8 fwd_tx_addr[ETH_ALEN] = { 0x02, 0x00, 0x00, 0x5a, 0xb0, 0x02 };
static const u8 fwd_src_addr[ETH_ALEN] = { 0x02, 0x00, 0x00, 0x5a, 0xb0, 0x09 };

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

static int fwdnic_rx_poll(struct napi_struct *napi, int budget)
{
	struct fwdnic *nic = container_of(napi, struct fwdnic, napi);
	struct sk_buff *skb;
	int done = 0;

	while (done < budget && nic->rx_left) {
		nic->rx_left--;
		done++;
		skb = napi_alloc_skb(napi, FWDNIC_FRAME);
		if (unlikely(!skb)) {
			nic->dropped++;
			fwdnic_ended(1);
			continue;
		}
		skb_put_data(skb, fwd_frame, FWDNIC_FRAME);
		skb->protocol = eth_type_trans(skb, nic->dev);
		nic->packets++;
		nic->bytes += FWDNIC_FRAME;
		napi_gro_receive(napi, skb);
	}
	if (done < budget)
		napi_complete_done(napi, done);
	return done;
}

static int fwdnic_tx_poll(struct napi_struct *napi, int budget)
{
	struct fwdnic *nic = container_of(napi, struct fwdnic, napi);
	/* Pairs with fwdnic_xmit()'s release: the slots below head are filled. */
	unsigned int head = smp_load_acquire(&nic->head);
	struct sk_buff *skb;
	int done = 0;

	while (done < budget && nic->tail != head) {
		skb = nic->ring[nic->tail % FWDNIC_RING];
		nic->packets++;
		nic->bytes += skb->len;
		napi_consume_skb(skb, budget);
		/* Pairs with fwdnic_xmit()'s READ_ONCE(): the slot is free. */
		smp_store_release(&nic->tail, nic->tail + 1);
		done++;
	}
	fwdnic_ended(done);
	if (netif_queue_stopped(nic->dev) && head - nic->tail < FWDNIC_RING)
		netif_wake_queue(nic->dev);
	if (done < budget && napi_complete_done(napi, done)) {
		/*
		 * A frame queued after the loop saw the NAPI still scheduled
		 * and did not raise it: look again (acquire as above).
		 */
		if (smp_load_acquire(&nic->head) != nic->tail)
			napi_schedule(napi);
	}
	return done;
}

static netdev_tx_t fwdnic_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct fwdnic *nic = netdev_priv(dev);

	nic->ring[nic->head % FWDNIC_RING] = skb;
	/* Publish the slot before the count (fwdnic_tx_poll()'s acquire). */
	smp_store_release(&nic->head, nic->head + 1);
	if (nic->head - READ_ONCE(nic->tail) == FWDNIC_RING)
		netif_stop_queue(dev);
	if (!test_bit(NAPI_STATE_SCHED, &nic->napi.state))
		napi_schedule(&nic->napi);
	return NETDEV_TX_OK;
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

	netif_stop_queue(dev);
	napi_disable(&nic->napi);
	nic->rx_left = 0;
	while (nic->tail != nic->head)
		dev_kfree_skb(nic->ring[nic->tail++ % FWDNIC_RING]);
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
	local_bh_disable();
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
