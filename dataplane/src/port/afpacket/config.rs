//! Configuration of an AF_PACKET port: the TPACKET version, the two rings' geometry
//! (checked against the page size before any syscall), fanout and socket options.

use super::sys::{self, FrameLayout};
use super::ETH_HLEN;

/// Ring geometry rejected before any syscall.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GeometryError {
    /// Block size must be a positive multiple of the page size.
    #[error("{ring} block size {block_size} is not a positive multiple of the page size {page}")]
    BlockNotPageMultiple {
        /// "rx" or "tx".
        ring: &'static str,
        /// The block size asked for.
        block_size: u32,
        /// The page size.
        page: usize,
    },
    /// Frame size must be a multiple of 16 and hold a header plus an Ethernet header.
    #[error("{ring} frame size {frame_size} must be a multiple of 16 in {min}..={max}")]
    BadFrameSize {
        /// "rx" or "tx".
        ring: &'static str,
        /// The frame size asked for.
        frame_size: u32,
        /// Smallest allowed.
        min: u32,
        /// Largest allowed (the block size).
        max: u32,
    },
    /// At least one block.
    #[error("{ring} block count must be at least 1")]
    NoBlocks {
        /// "rx" or "tx".
        ring: &'static str,
    },
    /// Both rings together must stay under [`MAX_RING_BYTES`].
    #[error("rings total {total} bytes, more than the limit {MAX_RING_BYTES}")]
    TooLarge {
        /// Bytes asked for.
        total: u64,
    },
}

/// Upper bound on the bytes of both rings of one port (1 GiB).
pub const MAX_RING_BYTES: u64 = 1 << 30;

/// Which TPACKET version the socket uses (both rings share it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TpacketVersion {
    /// V3: RX frames packed into blocks, a block handed over when full or when the retire
    /// timer fires. Fewest cache misses and wakeups under load, but at low rates a
    /// frame waits for the timer (a kernel jiffy at least: 4 ms at HZ=250).
    #[default]
    V3,
    /// V2: fixed RX frame slots, each visible as soon as the kernel wrote it. For
    /// latency-sensitive ports at low rates; frames larger than the RX frame size are
    /// truncated (counted as `rx_truncated`).
    V2,
}

impl TpacketVersion {
    pub(super) fn layout(self) -> FrameLayout {
        match self {
            TpacketVersion::V3 => sys::V3_FRAME,
            TpacketVersion::V2 => sys::V2_FRAME,
        }
    }
    fn hdrlen(self) -> usize {
        match self {
            TpacketVersion::V3 => sys::TPACKET3_HDRLEN,
            TpacketVersion::V2 => sys::TPACKET2_HDRLEN,
        }
    }
}

/// One ring's geometry (`struct tpacket_req3`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RingGeometry {
    /// Bytes per block; a multiple of the page size.
    pub block_size: u32,
    /// Number of blocks.
    pub block_count: u32,
    /// Bytes per frame slot; a multiple of 16. For TX it bounds the largest frame
    /// (`frame_size - 48`); for RX (variable-length V3 frames) it only sets the
    /// nominal frame count the kernel checks.
    pub frame_size: u32,
}

impl RingGeometry {
    pub(super) fn frames_per_block(&self) -> u32 {
        self.block_size / self.frame_size.max(1)
    }
    /// Bytes of the ring.
    pub fn bytes(&self) -> u64 {
        self.block_size as u64 * self.block_count as u64
    }
    fn validate(
        &self,
        ring: &'static str,
        page: usize,
        version: TpacketVersion,
    ) -> Result<(), GeometryError> {
        if self.block_size == 0 || !(self.block_size as usize).is_multiple_of(page) {
            return Err(GeometryError::BlockNotPageMultiple {
                ring,
                block_size: self.block_size,
                page,
            });
        }
        let min = (version.hdrlen() + ETH_HLEN).next_multiple_of(sys::TPACKET_ALIGNMENT) as u32;
        if self.frame_size < min
            || self.frame_size > self.block_size
            || !(self.frame_size as usize).is_multiple_of(sys::TPACKET_ALIGNMENT)
        {
            return Err(GeometryError::BadFrameSize {
                ring,
                frame_size: self.frame_size,
                min,
                max: self.block_size,
            });
        }
        if self.block_count == 0 {
            return Err(GeometryError::NoBlocks { ring });
        }
        Ok(())
    }
}

/// Configuration of an [`AfPacketPort`](super::AfPacketPort).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AfPacketConfig {
    /// TPACKET version of both rings (default V3; see [`TpacketVersion`]).
    pub version: TpacketVersion,
    /// RX ring (TPACKET_V3 blocks). Default 32 blocks of 128 KiB, frame size 2048.
    pub rx: RingGeometry,
    /// RX block retire timeout in ms (V3 only): a partly filled block is handed to user
    /// space after this long, rounded up to kernel jiffies. 0 lets the kernel choose
    /// (about 8 ms). Default 1 (the minimum).
    pub rx_retire_ms: u32,
    /// TX ring (fixed frames). Default 8 blocks of 64 KiB, frame size 2048 (256 frames,
    /// frames up to 2000 bytes).
    pub tx: RingGeometry,
    /// Promiscuous mode via `PACKET_ADD_MEMBERSHIP` (default true).
    pub promiscuous: bool,
    /// `PACKET_QDISC_BYPASS` (default true).
    pub qdisc_bypass: bool,
    /// `PACKET_IGNORE_OUTGOING`: do not see frames sent on this interface (default true).
    pub ignore_outgoing: bool,
    /// Receive frames (default true). False makes a send-only port: the socket is bound
    /// with protocol 0, so the kernel never offers it a received frame (no per-frame
    /// `tpacket_rcv` or ring-room check on the interface's receive path, which a bound
    /// `ETH_P_ALL` socket costs even when its RX ring is full); `rx_burst` then finds
    /// nothing and `PACKET_STATISTICS` stays zero. For traffic generators.
    pub receive: bool,
    /// Join `PACKET_FANOUT` group with this id in hash mode, so several sockets (one per
    /// worker) share the interface's RX by flow hash. None = no fanout (default).
    pub fanout: Option<u16>,
    /// How a fanout group spreads frames (default [`FanoutMode::EthAddrs`]).
    pub fanout_mode: FanoutMode,
}

/// How the sockets of a `PACKET_FANOUT` group share an interface's frames. Both keep
/// a flow on one socket, so a flow is never reordered across workers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FanoutMode {
    /// The kernel's flow hash (`PACKET_FANOUT_HASH`): addresses and ports of IP
    /// traffic. Every Canopy frame (not IP) gets the same hash, so this does not spread
    /// Canopy traffic.
    Hash,
    /// A classic-BPF program hashing the Ethernet destination and source addresses
    /// (`PACKET_FANOUT_CBPF`): spreads Canopy traffic by host pair.
    #[default]
    EthAddrs,
}

impl Default for AfPacketConfig {
    fn default() -> Self {
        AfPacketConfig {
            version: TpacketVersion::V3,
            rx: RingGeometry {
                block_size: 128 << 10,
                block_count: 32,
                frame_size: 2048,
            },
            rx_retire_ms: 1,
            tx: RingGeometry {
                block_size: 64 << 10,
                block_count: 8,
                frame_size: 2048,
            },
            promiscuous: true,
            qdisc_bypass: true,
            ignore_outgoing: true,
            receive: true,
            fanout: None,
            fanout_mode: FanoutMode::default(),
        }
    }
}

impl AfPacketConfig {
    /// Check both rings against the system page size.
    pub fn validate(&self) -> Result<(), GeometryError> {
        self.validate_with_page(sys::page_size())
    }

    /// Check both rings against `page` (for tests of other page sizes).
    pub fn validate_with_page(&self, page: usize) -> Result<(), GeometryError> {
        self.rx.validate("rx", page, self.version)?;
        self.tx.validate("tx", page, self.version)?;
        let total = self.rx.bytes() + self.tx.bytes();
        if total > MAX_RING_BYTES {
            return Err(GeometryError::TooLarge { total });
        }
        Ok(())
    }

    /// Largest frame the TX ring can hold.
    pub fn tx_max_frame(&self) -> usize {
        self.tx.frame_size as usize - self.version.layout().data
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_geometry_is_valid_for_4k_and_64k_pages() {
        let c = AfPacketConfig::default();
        assert_eq!(c.validate_with_page(4096), Ok(()));
        assert_eq!(c.validate_with_page(65536), Ok(()));
        assert_eq!(c.tx_max_frame(), 2000);
        assert_eq!(c.rx.frames_per_block(), 64);
    }

    #[test]
    fn block_size_must_be_a_page_multiple() {
        let mut c = AfPacketConfig::default();
        c.rx.block_size = 4096 + 2048;
        assert!(matches!(
            c.validate_with_page(4096),
            Err(GeometryError::BlockNotPageMultiple { ring: "rx", .. })
        ));
        c.rx.block_size = 0;
        assert!(c.validate_with_page(4096).is_err());
        let mut c = AfPacketConfig::default();
        c.tx.block_size = 8192;
        assert_eq!(c.validate_with_page(4096), Ok(()));
        assert!(matches!(
            c.validate_with_page(65536),
            Err(GeometryError::BlockNotPageMultiple { ring: "tx", .. })
        ));
    }

    #[test]
    fn frame_size_bounds_and_alignment() {
        let mut c = AfPacketConfig::default();
        for bad in [0u32, 16, 80, 2050, (128 << 10) + 16] {
            c.rx.frame_size = bad;
            assert!(
                matches!(
                    c.validate_with_page(4096),
                    Err(GeometryError::BadFrameSize { ring: "rx", .. })
                ),
                "{bad}"
            );
        }
        // Smallest: 68-byte header + 14-byte Ethernet header, rounded up to 16.
        c.rx.frame_size = 96;
        assert_eq!(c.validate_with_page(4096), Ok(()));
        c.rx.frame_size = 128 << 10;
        assert_eq!(c.validate_with_page(4096), Ok(()));
        let mut c = AfPacketConfig::default();
        c.tx.frame_size = 1 << 20;
        assert!(matches!(
            c.validate_with_page(4096),
            Err(GeometryError::BadFrameSize { ring: "tx", max, .. }) if max == 64 << 10
        ));
    }

    #[test]
    fn v2_has_a_smaller_header() {
        let mut c = AfPacketConfig {
            version: TpacketVersion::V2,
            ..AfPacketConfig::default()
        };
        assert_eq!(c.tx_max_frame(), 2016);
        // 52-byte header + 14 rounds up to 80, which V3 refuses.
        c.rx.frame_size = 80;
        assert_eq!(c.validate_with_page(4096), Ok(()));
        c.version = TpacketVersion::V3;
        assert!(c.validate_with_page(4096).is_err());
    }

    #[test]
    fn block_count_and_total_size() {
        let mut c = AfPacketConfig::default();
        c.tx.block_count = 0;
        assert_eq!(
            c.validate_with_page(4096),
            Err(GeometryError::NoBlocks { ring: "tx" })
        );
        let mut c = AfPacketConfig::default();
        c.rx.block_size = 1 << 20;
        c.rx.block_count = 1024;
        assert!(matches!(
            c.validate_with_page(4096),
            Err(GeometryError::TooLarge { .. })
        ));
        c.rx.block_count = 1023;
        assert_eq!(c.validate_with_page(4096), Ok(()));
    }
}
