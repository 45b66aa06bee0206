//! Configuration of an AF_XDP port: the queue, the mode asked for (and the mode
//! obtained), the UMEM chunk size and the four rings, checked before any syscall.

use super::{sys, MAX_QUEUES, MAX_RING, MIN_RING, XDP_PACKET_HEADROOM};

/// The mode asked for in the configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum XdpMode {
    /// Native XDP if the driver has it (zero-copy if it supports that, copy otherwise),
    /// generic (SKB) XDP if not.
    #[default]
    Auto,
    /// Native XDP with zero-copy, or fail.
    ZeroCopy,
    /// Native XDP in copy mode, or fail.
    Copy,
    /// Generic (SKB) XDP, copy mode: works on every interface, slowest.
    Skb,
}

impl XdpMode {
    /// The configuration name.
    pub fn name(self) -> &'static str {
        match self {
            XdpMode::Auto => "auto",
            XdpMode::ZeroCopy => "zerocopy",
            XdpMode::Copy => "copy",
            XdpMode::Skb => "skb",
        }
    }
}

/// The mode the socket actually got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BindMode {
    /// Native XDP, the driver DMAs into the UMEM.
    ZeroCopy,
    /// Native (driver) XDP, frames copied into the UMEM.
    Copy,
    /// Generic XDP on the socket buffer, frames copied into the UMEM.
    Skb,
}

impl BindMode {
    /// Label for counters and logs: `zerocopy`, `copy` or `skb`.
    pub fn as_str(self) -> &'static str {
        match self {
            BindMode::ZeroCopy => "zerocopy",
            BindMode::Copy => "copy",
            BindMode::Skb => "skb",
        }
    }
}

impl std::fmt::Display for BindMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Configuration of one AF_XDP port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AfXdpConfig {
    /// The interface queue to bind (one socket per queue; several ports on one
    /// interface take different queues).
    pub queue: u32,
    /// The mode asked for.
    pub mode: XdpMode,
    /// UMEM chunk size: 2048 or 4096 (at most the page size).
    pub frame_size: u32,
    /// Slots of the RX ring (power of two).
    pub rx_ring: u32,
    /// Slots of the TX ring (power of two); also the number of TX chunks.
    pub tx_ring: u32,
    /// Slots of the fill ring (power of two); also the number of RX chunks.
    pub fill_ring: u32,
    /// Slots of the completion ring (power of two).
    pub comp_ring: u32,
}

impl Default for AfXdpConfig {
    fn default() -> Self {
        AfXdpConfig {
            queue: 0,
            mode: XdpMode::Auto,
            frame_size: 2048,
            rx_ring: 2048,
            tx_ring: 2048,
            fill_ring: 2048,
            comp_ring: 2048,
        }
    }
}

/// A configuration rejected before any syscall.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// A ring size is not a power of two in range.
    #[error("{ring} ring size {size} must be a power of two in {MIN_RING}..={MAX_RING}")]
    BadRing {
        /// `rx`, `tx`, `fill` or `completion`.
        ring: &'static str,
        /// The size asked for.
        size: u32,
    },
    /// The chunk size is not 2048 or 4096, or larger than the page size.
    #[error("frame size {frame_size} must be 2048 or 4096 and at most the page size {page}")]
    BadFrameSize {
        /// The size asked for.
        frame_size: u32,
        /// The page size.
        page: usize,
    },
    /// The queue is beyond the map.
    #[error("queue {queue} is beyond the largest supported queue {}", MAX_QUEUES - 1)]
    BadQueue {
        /// The queue asked for.
        queue: u32,
    },
}

impl AfXdpConfig {
    /// Check the configuration against this machine's page size.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.validate_with_page(sys::page_size())
    }

    /// Check the configuration against `page`.
    pub fn validate_with_page(&self, page: usize) -> Result<(), ConfigError> {
        for (ring, size) in [
            ("rx", self.rx_ring),
            ("tx", self.tx_ring),
            ("fill", self.fill_ring),
            ("completion", self.comp_ring),
        ] {
            if !size.is_power_of_two() || !(MIN_RING..=MAX_RING).contains(&size) {
                return Err(ConfigError::BadRing { ring, size });
            }
        }
        if !matches!(self.frame_size, 2048 | 4096) || self.frame_size as usize > page {
            return Err(ConfigError::BadFrameSize {
                frame_size: self.frame_size,
                page,
            });
        }
        if self.queue >= MAX_QUEUES {
            return Err(ConfigError::BadQueue { queue: self.queue });
        }
        Ok(())
    }

    /// UMEM bytes: one chunk per fill-ring slot (RX) and per TX-ring slot (TX).
    pub fn umem_bytes(&self) -> usize {
        (self.fill_ring as usize + self.tx_ring as usize) * self.frame_size as usize
    }

    /// Largest frame received whole: the chunk less the kernel's headroom.
    pub fn rx_max_frame(&self) -> usize {
        (self.frame_size - XDP_PACKET_HEADROOM) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid_and_size_the_umem() {
        let c = AfXdpConfig::default();
        c.validate_with_page(4096).unwrap();
        assert_eq!(c.umem_bytes(), 4096 * 2048);
        assert_eq!(c.rx_max_frame(), 1792);
    }

    #[test]
    fn ring_sizes_must_be_powers_of_two_in_range() {
        for (bad, ring) in [(1000, "rx"), (32, "rx"), (1 << 17, "rx")] {
            let c = AfXdpConfig {
                rx_ring: bad,
                ..AfXdpConfig::default()
            };
            assert_eq!(
                c.validate_with_page(4096),
                Err(ConfigError::BadRing { ring, size: bad })
            );
        }
        let c = AfXdpConfig {
            comp_ring: 100,
            ..AfXdpConfig::default()
        };
        assert!(matches!(
            c.validate_with_page(4096),
            Err(ConfigError::BadRing {
                ring: "completion",
                ..
            })
        ));
    }

    #[test]
    fn frame_size_is_2048_or_4096_within_a_page() {
        for fs in [1024, 3000, 8192] {
            let c = AfXdpConfig {
                frame_size: fs,
                ..AfXdpConfig::default()
            };
            assert!(c.validate_with_page(65536).is_err(), "{fs}");
        }
        let c = AfXdpConfig {
            frame_size: 4096,
            ..AfXdpConfig::default()
        };
        c.validate_with_page(4096).unwrap();
        assert!(c.validate_with_page(2048).is_err());
    }

    #[test]
    fn queue_beyond_the_map_is_refused() {
        let c = AfXdpConfig {
            queue: MAX_QUEUES,
            ..AfXdpConfig::default()
        };
        assert_eq!(
            c.validate_with_page(4096),
            Err(ConfigError::BadQueue { queue: MAX_QUEUES })
        );
    }
}
