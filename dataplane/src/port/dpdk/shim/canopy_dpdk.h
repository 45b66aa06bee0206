/* Canopy's shim over DPDK's static inline functions (rte_ethdev.h, rte_mbuf.h,
 * rte_errno.h): each is a plain exported function here, built by `cc` in the
 * dataplane's build script and bound by bindgen from this header, so Rust sees one
 * checked signature per call. Only what the dpdk port backend uses. */
#ifndef CANOPY_DPDK_H
#define CANOPY_DPDK_H

#include <stdint.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

/* rte_errno of the calling thread (a per-lcore TLS variable). */
int canopy_rte_errno(void);
/* rte_eth_rx_burst / rte_eth_tx_burst. */
uint16_t canopy_rx_burst(uint16_t port, uint16_t queue, struct rte_mbuf **pkts, uint16_t n);
uint16_t canopy_tx_burst(uint16_t port, uint16_t queue, struct rte_mbuf **pkts, uint16_t n);
/* rte_pktmbuf_alloc_bulk: 0 when all n were allocated, else none was. */
int canopy_mbuf_alloc_bulk(struct rte_mempool *mp, struct rte_mbuf **pkts, unsigned n);
/* rte_pktmbuf_free for each of n mbufs (chains included). */
void canopy_mbuf_free_bulk(struct rte_mbuf **pkts, unsigned n);
/* Copy the frame of m (all segments) to dst; its length, or -1 if longer than cap. */
int32_t canopy_mbuf_copy_out(const struct rte_mbuf *m, uint8_t *dst, uint32_t cap);
/* Set a fresh mbuf's data to len bytes of src (rte_pktmbuf_append + copy); 0, or -1
 * when the mbuf's tailroom is too small. */
int canopy_mbuf_copy_in(struct rte_mbuf *m, const uint8_t *src, uint16_t len);
/* RTE_MBUF_DEFAULT_BUF_SIZE (data room + headroom). */
uint16_t canopy_mbuf_default_buf_size(void);
/* RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP | RTE_ETH_RSS_UDP. */
uint64_t canopy_rss_hf_ip(void);
/* rte_eth_link.link_status of a nowait read: 1 up, 0 down, negative errno. */
int canopy_link_up(uint16_t port);

#endif
