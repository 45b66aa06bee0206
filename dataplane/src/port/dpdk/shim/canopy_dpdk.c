/* See canopy_dpdk.h. */
#include "canopy_dpdk.h"
#include <string.h>

int canopy_rte_errno(void) { return rte_errno; }

uint16_t canopy_rx_burst(uint16_t port, uint16_t queue, struct rte_mbuf **pkts, uint16_t n)
{
    return rte_eth_rx_burst(port, queue, pkts, n);
}

uint16_t canopy_tx_burst(uint16_t port, uint16_t queue, struct rte_mbuf **pkts, uint16_t n)
{
    return rte_eth_tx_burst(port, queue, pkts, n);
}

int canopy_mbuf_alloc_bulk(struct rte_mempool *mp, struct rte_mbuf **pkts, unsigned n)
{
    return rte_pktmbuf_alloc_bulk(mp, pkts, n);
}

void canopy_mbuf_free_bulk(struct rte_mbuf **pkts, unsigned n)
{
    rte_pktmbuf_free_bulk(pkts, n);
}

int32_t canopy_mbuf_copy_out(const struct rte_mbuf *m, uint8_t *dst, uint32_t cap)
{
    uint32_t len = rte_pktmbuf_pkt_len(m);
    if (len > cap)
        return -1;
    if (m->nb_segs == 1) {
        memcpy(dst, rte_pktmbuf_mtod(m, const uint8_t *), len);
        return (int32_t)len;
    }
    /* chained: rte_pktmbuf_read copies into dst when the data is not contiguous */
    const void *p = rte_pktmbuf_read(m, 0, len, dst);
    if (p == NULL)
        return -1;
    if (p != dst)
        memcpy(dst, p, len);
    return (int32_t)len;
}

int canopy_mbuf_copy_in(struct rte_mbuf *m, const uint8_t *src, uint16_t len)
{
    char *d = rte_pktmbuf_append(m, len);
    if (d == NULL)
        return -1;
    memcpy(d, src, len);
    return 0;
}

uint16_t canopy_mbuf_default_buf_size(void) { return RTE_MBUF_DEFAULT_BUF_SIZE; }

uint64_t canopy_rss_hf_ip(void) { return RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP | RTE_ETH_RSS_UDP; }

int canopy_link_up(uint16_t port)
{
    struct rte_eth_link link;
    memset(&link, 0, sizeof(link));
    int r = rte_eth_link_get_nowait(port, &link);
    if (r < 0)
        return r;
    return link.link_status == RTE_ETH_LINK_UP ? 1 : 0;
}
