//! Per-port capture: the frames a port receives and sends, written to capture files as
//! bmv2's `--pcap` does (`<port>_in.pcap`, `<port>_out.pcap`), bounded in size.
//!
//! A captured port is its backend wrapped in a [`CapturePort`]. On the fast path it
//! copies each frame (cut at the snapshot length) into a slot taken from a preallocated
//! free list, stamps it once per burst and queues it for the writer thread; nothing is
//! allocated, locked or asked of the kernel per frame (the clock is read once per burst
//! through the vDSO). When no slot is free, the frame is forwarded as usual and counted
//! as a capture drop, so a slow disk never slows the switch. The writer thread writes
//! the queued slots through [`crate::pcap::PcapWriter`], flushes whenever the queue runs
//! empty (a reader sees the frames within a few milliseconds), and closes a file once it
//! holds `max_frames` frames: the fast path then stops copying for it. So a file never
//! exceeds `max_frames × (snaplen + 36)` bytes and the memory is `queue × snaplen`.
//!
//! Received frames carry the kernel's receive time where the backend recorded one
//! (AF_PACKET), else the time of the burst; sent frames the time of the burst, taken
//! before the backend sends it. Only frames the backend accepted are written as sent.
//! Times are `CLOCK_REALTIME`, in nanoseconds in both formats.

use crate::pcap::{Format, PcapWriter};
use canopy_dataplane::engine::BackendStats;
use canopy_dataplane::engine::{Buf, Pool, Port, PortEvent, Wake, BURST};
use canopy_proto::mgmt::{CaptureFile, CaptureReport};
use crossbeam_queue::ArrayQueue;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tracing::warn;

/// Default frames per file.
pub const DEFAULT_MAX_FRAMES: u64 = 1_000_000;
/// Default and largest snapshot length: a pool buffer holds no longer frame.
pub const MAX_SNAPLEN: u32 = canopy_dataplane::engine::pool::BUF_SIZE as u32;
/// Smallest snapshot length: an Ethernet header and a Canopy header.
pub const MIN_SNAPLEN: u32 = 64;
/// Default frames queued for the writer (their slots are allocated at start).
pub const DEFAULT_QUEUE: usize = 4096;
/// Bounds of the queue.
pub const QUEUE_RANGE: (usize, usize) = (64, 1 << 20);
/// How long the writer sleeps when the queue is empty.
const IDLE: Duration = Duration::from_micros(500);

/// Which way a file's frames go through its port.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Received by the port (`_in`).
    In,
    /// Sent by the port (`_out`).
    Out,
}

impl Direction {
    /// `in` or `out`, as in the file names.
    pub fn name(self) -> &'static str {
        match self {
            Direction::In => "in",
            Direction::Out => "out",
        }
    }
}

/// `[capture]`, validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaptureConfig {
    /// The directory the files go to (created if missing).
    pub dir: PathBuf,
    /// Classic pcap or pcapng.
    pub format: Format,
    /// The ports captured (port numbers, ascending); every port when the section does
    /// not name them.
    pub ports: Option<Vec<u16>>,
    /// Capture what the ports receive.
    pub rx: bool,
    /// Capture what the ports send.
    pub tx: bool,
    /// Frames per file; later frames are counted, not written.
    pub max_frames: u64,
    /// Bytes kept of each frame.
    pub snaplen: u32,
    /// Frames queued for the writer at most.
    pub queue: usize,
}

impl CaptureConfig {
    /// Capture every port, both ways, into `dir`, with the defaults.
    pub fn new(dir: PathBuf) -> CaptureConfig {
        CaptureConfig {
            dir,
            format: Format::Pcap,
            ports: None,
            rx: true,
            tx: true,
            max_frames: DEFAULT_MAX_FRAMES,
            snaplen: MAX_SNAPLEN,
            queue: DEFAULT_QUEUE,
        }
    }

    /// Whether port `i` is captured.
    pub fn captures(&self, i: u16) -> bool {
        self.ports.as_ref().is_none_or(|p| p.contains(&i))
    }

    /// The file of port `name` for `dir`ection: `<name>_in.pcap`, `<name>_out.pcapng`;
    /// characters other than letters, digits, `.`, `-` and `_` become `_`.
    pub fn file(&self, name: &str, dir: Direction) -> PathBuf {
        let safe: String = name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let ext = match self.format {
            Format::Pcap => "pcap",
            Format::PcapNg => "pcapng",
        };
        self.dir.join(format!("{safe}_{}.{ext}", dir.name()))
    }
}

/// A capture that could not start: the file, and why.
#[derive(Debug, thiserror::Error)]
pub enum CaptureError {
    /// The directory could not be made.
    #[error("capture directory {}: {err}", dir.display())]
    Dir {
        /// The directory.
        dir: PathBuf,
        /// The system's error.
        err: std::io::Error,
    },
    /// A file could not be created.
    #[error(transparent)]
    File(#[from] crate::pcap::PcapError),
    /// Two captured ports whose files would have the same name.
    #[error("ports {a} and {b} would both write {}", path.display())]
    Clash {
        /// One port.
        a: u16,
        /// The other.
        b: u16,
        /// The file.
        path: PathBuf,
    },
    /// The writer thread could not start.
    #[error("cannot start the capture writer: {0}")]
    Thread(std::io::Error),
}

/// One queued frame.
struct Slot {
    file: u16,
    ts_ns: u64,
    len: u32,
    kept: u32,
    data: Box<[u8]>,
}

/// What the fast path and the writer share of one file.
struct FileState {
    port: u16,
    direction: Direction,
    path: PathBuf,
    /// Cleared by the writer when the file is full or failed: stop copying.
    open: AtomicBool,
    /// Frames the writer wrote.
    written: AtomicU64,
    /// Frames dropped because no slot was free.
    dropped: AtomicU64,
    /// Frames past `max_frames` (or after a failed write).
    skipped: AtomicU64,
    /// The first write error.
    error: Mutex<Option<String>>,
}

/// The slots, the queue, and every file's state.
struct Rings {
    free: ArrayQueue<Box<Slot>>,
    full: ArrayQueue<Box<Slot>>,
    files: Vec<FileState>,
    snaplen: usize,
    stop: AtomicBool,
}

impl Rings {
    /// Queue `frame` for `file`, or count it dropped.
    #[inline]
    fn record(&self, file: u16, ts_ns: u64, frame: &[u8]) {
        let f = &self.files[usize::from(file)];
        let Some(mut s) = self.free.pop() else {
            f.dropped.fetch_add(1, Ordering::Relaxed);
            return;
        };
        fill(&mut s, file, ts_ns, frame, self.snaplen);
        // as many slots as the queue holds: a popped slot always fits back
        let _ = self.full.push(s);
    }

    /// `file` when it still takes frames; frames of a full or failed one are counted
    /// (`n` of them) as skipped instead.
    #[inline]
    fn take(&self, file: Option<u16>, n: usize) -> Option<u16> {
        let f = &self.files[usize::from(file?)];
        if f.open.load(Ordering::Relaxed) {
            return file;
        }
        f.skipped.fetch_add(n as u64, Ordering::Relaxed);
        None
    }
}

fn fill(s: &mut Slot, file: u16, ts_ns: u64, frame: &[u8], snaplen: usize) {
    let kept = frame.len().min(snaplen);
    s.data[..kept].copy_from_slice(&frame[..kept]);
    s.file = file;
    s.ts_ns = ts_ns;
    s.len = frame.len() as u32;
    s.kept = kept as u32;
}

/// `CLOCK_REALTIME` in ns.
#[inline]
fn now_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

/// A switch's ports, in port order.
pub type Ports = Vec<Box<dyn Port>>;
/// Receive-only replicas of ports: `(port, socket)`.
pub type Replicas = Vec<(u16, Box<dyn Port>)>;

/// A switch's capture: its files open, its slots allocated; [`Capture::start`] starts
/// its writer, [`Capture::finish`] drains and closes it.
pub struct Capture {
    rings: Arc<Rings>,
    writers: Option<Vec<PcapWriter>>,
    thread: Option<JoinHandle<Vec<PcapWriter>>>,
    dir: PathBuf,
}

impl Capture {
    /// Create the files of `cfg` for `ports` (name of each port, in port order) and wrap
    /// the captured ones, replicas too (`(port, replica)`: receive-only sockets of a
    /// port, whose frames go to that port's `_in` file).
    pub fn open(
        cfg: &CaptureConfig,
        ports: Ports,
        replicas: Replicas,
    ) -> Result<(Capture, Ports, Replicas), CaptureError> {
        std::fs::create_dir_all(&cfg.dir).map_err(|err| CaptureError::Dir {
            dir: cfg.dir.clone(),
            err,
        })?;
        let mut files = Vec::new();
        let mut writers = Vec::new();
        // (rx file, tx file) of each port
        let mut of_port = vec![(None, None); ports.len()];
        for (i, p) in ports.iter().enumerate() {
            let i = i as u16;
            if !cfg.captures(i) {
                continue;
            }
            for (on, d) in [(cfg.rx, Direction::In), (cfg.tx, Direction::Out)] {
                if !on {
                    continue;
                }
                let path = cfg.file(p.name(), d);
                if let Some(other) = files.iter().find(|f: &&FileState| f.path == path) {
                    return Err(CaptureError::Clash {
                        a: other.port,
                        b: i,
                        path,
                    });
                }
                writers.push(PcapWriter::create_as(
                    &path,
                    cfg.format,
                    cfg.max_frames,
                    cfg.snaplen,
                )?);
                let k = Some(files.len() as u16);
                match d {
                    Direction::In => of_port[usize::from(i)].0 = k,
                    Direction::Out => of_port[usize::from(i)].1 = k,
                }
                files.push(FileState {
                    port: i,
                    direction: d,
                    path,
                    open: AtomicBool::new(true),
                    written: AtomicU64::new(0),
                    dropped: AtomicU64::new(0),
                    skipped: AtomicU64::new(0),
                    error: Mutex::new(None),
                });
            }
        }
        let snaplen = cfg.snaplen as usize;
        let free = ArrayQueue::new(cfg.queue);
        for _ in 0..cfg.queue {
            let _ = free.push(Box::new(Slot {
                file: 0,
                ts_ns: 0,
                len: 0,
                kept: 0,
                data: vec![0; snaplen].into_boxed_slice(),
            }));
        }
        let rings = Arc::new(Rings {
            free,
            full: ArrayQueue::new(cfg.queue),
            files,
            snaplen,
            stop: AtomicBool::new(false),
        });
        let wrap = |i: u16, p: Box<dyn Port>, tx: bool| -> Box<dyn Port> {
            let (rx_file, tx_file) = of_port[usize::from(i)];
            let tx_file = tx_file.filter(|_| tx);
            if rx_file.is_none() && tx_file.is_none() {
                return p;
            }
            Box::new(CapturePort {
                inner: p,
                rings: rings.clone(),
                rx_file,
                tx_file,
                staged: Vec::with_capacity(BURST * 8),
            })
        };
        let ports = ports
            .into_iter()
            .enumerate()
            .map(|(i, p)| wrap(i as u16, p, true))
            .collect();
        let replicas = replicas
            .into_iter()
            .map(|(i, p)| (i, wrap(i, p, false)))
            .collect();
        let c = Capture {
            rings,
            writers: Some(writers),
            thread: None,
            dir: cfg.dir.clone(),
        };
        Ok((c, ports, replicas))
    }

    /// The files (for changing their owner before privileges are dropped).
    pub fn paths(&self) -> Vec<PathBuf> {
        self.rings.files.iter().map(|f| f.path.clone()).collect()
    }

    /// Start the writer thread (named `tag` + `capture`); a second call does nothing.
    pub fn start(&mut self, tag: &str) -> Result<(), CaptureError> {
        let Some(writers) = self.writers.take() else {
            return Ok(());
        };
        let rings = self.rings.clone();
        let t = std::thread::Builder::new()
            .name(format!("{tag}capture"))
            .spawn(move || write_loop(&rings, writers))
            .map_err(CaptureError::Thread)?;
        self.thread = Some(t);
        Ok(())
    }

    /// What the capture did so far.
    pub fn report(&self) -> CaptureReport {
        CaptureReport {
            dir: self.dir.display().to_string(),
            files: self
                .rings
                .files
                .iter()
                .map(|f| CaptureFile {
                    port: f.port,
                    direction: f.direction.name().into(),
                    path: f.path.display().to_string(),
                    written: f.written.load(Ordering::Relaxed),
                    dropped: f.dropped.load(Ordering::Relaxed),
                    skipped: f.skipped.load(Ordering::Relaxed),
                    error: f.error.lock().unwrap_or_else(|p| p.into_inner()).clone(),
                })
                .collect(),
        }
    }

    /// Stop the writer once the queue is drained, flush and close every file (call once
    /// the ports are closed or their workers stopped). Returns the final report.
    pub fn finish(&mut self) -> CaptureReport {
        self.rings.stop.store(true, Ordering::Release);
        let writers = match self.thread.take() {
            Some(t) => t.join().ok(),
            // never started: drain here
            None => self.writers.take().map(|w| write_loop(&self.rings, w)),
        };
        for w in writers.into_iter().flatten() {
            let path = w.path().to_path_buf();
            if let Err(e) = w.finish() {
                self.fail(&path, e.to_string());
            }
        }
        self.report()
    }

    fn fail(&self, path: &Path, e: String) {
        if let Some(f) = self.rings.files.iter().find(|f| f.path == path) {
            f.error
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .get_or_insert(e);
        }
    }
}

impl Drop for Capture {
    fn drop(&mut self) {
        if self.thread.is_some() {
            self.finish();
        }
    }
}

/// The writer: write what is queued, flush when the queue runs empty, until told to stop
/// and the queue is empty. Returns the writers for [`Capture::finish`] to close.
fn write_loop(rings: &Rings, mut writers: Vec<PcapWriter>) -> Vec<PcapWriter> {
    let mut dirty = false;
    loop {
        // read before draining: what was queued before the stop is written
        let stopping = rings.stop.load(Ordering::Acquire);
        let mut any = false;
        while let Some(s) = rings.full.pop() {
            any = true;
            write_one(rings, &mut writers, &s);
            let _ = rings.free.push(s);
        }
        if any {
            dirty = true;
            continue;
        }
        if dirty {
            for (w, f) in writers.iter_mut().zip(&rings.files) {
                if let Err(e) = w.flush() {
                    failed(f, e.to_string());
                }
            }
            dirty = false;
        }
        if stopping {
            return writers;
        }
        std::thread::sleep(IDLE);
    }
}

fn write_one(rings: &Rings, writers: &mut [PcapWriter], s: &Slot) {
    let i = usize::from(s.file);
    let (w, f) = (&mut writers[i], &rings.files[i]);
    let was = w.skipped;
    if let Err(e) = w.write_cut(s.ts_ns, &s.data[..s.kept as usize], s.len) {
        failed(f, e.to_string());
    }
    f.written.store(w.written, Ordering::Relaxed);
    if w.skipped != was {
        f.skipped.fetch_add(w.skipped - was, Ordering::Relaxed);
    }
    if !w.wants() {
        f.open.store(false, Ordering::Relaxed);
    }
}

fn failed(f: &FileState, e: String) {
    let mut slot = f.error.lock().unwrap_or_else(|p| p.into_inner());
    if slot.is_none() {
        warn!(file = %f.path.display(), "capture stopped: {e}");
        *slot = Some(e);
    }
    f.open.store(false, Ordering::Relaxed);
}

/// A port whose frames are also captured ([`Capture::open`] makes them).
pub struct CapturePort {
    inner: Box<dyn Port>,
    rings: Arc<Rings>,
    rx_file: Option<u16>,
    tx_file: Option<u16>,
    /// Slots filled with a TX burst before the backend takes it (boxed: a slot moves
    /// between this stage and the queues as a pointer).
    #[allow(clippy::vec_box)]
    staged: Vec<Box<Slot>>,
}

impl Port for CapturePort {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn mtu(&self) -> usize {
        self.inner.mtu()
    }
    fn link_up(&self) -> bool {
        self.inner.link_up()
    }
    fn rx_burst(&mut self, pool: &Pool, out: &mut Vec<Buf>, max: usize) -> usize {
        let from = out.len();
        let n = self.inner.rx_burst(pool, out, max);
        if n == 0 {
            return 0;
        }
        if let Some(file) = self.rings.take(self.rx_file, n) {
            let now = now_ns();
            for b in &out[from..] {
                let ts = b.kernel_rx_age(now).map_or(now, |age| now - age.min(now));
                self.rings.record(file, ts, b.bytes());
            }
        }
        n
    }
    fn rx_ready(&self) -> bool {
        self.inner.rx_ready()
    }
    fn tx_space(&self) -> usize {
        self.inner.tx_space()
    }
    fn tx_burst(&mut self, bufs: &mut Vec<Buf>, pool: &Pool) -> usize {
        let Some(file) = self.tx_file.filter(|_| !bufs.is_empty()) else {
            return self.inner.tx_burst(bufs, pool);
        };
        if !self.rings.files[usize::from(file)]
            .open
            .load(Ordering::Relaxed)
        {
            let n = self.inner.tx_burst(bufs, pool);
            self.rings.take(Some(file), n);
            return n;
        }
        let now = now_ns();
        let rings = &self.rings;
        let f = &rings.files[usize::from(file)];
        // slots for what the backend may send (the rest, past the stage's room, is
        // counted as dropped if it is sent)
        let room = self.staged.capacity();
        for b in bufs.iter().take(room) {
            match rings.free.pop() {
                Some(mut s) => {
                    fill(&mut s, file, now, b.bytes(), rings.snaplen);
                    self.staged.push(s);
                }
                None => break,
            }
        }
        let n = self.inner.tx_burst(bufs, pool);
        let staged = self.staged.len();
        for (k, s) in self.staged.drain(..).enumerate() {
            let _ = if k < n {
                rings.full.push(s)
            } else {
                rings.free.push(s)
            };
        }
        if n > staged {
            f.dropped.fetch_add((n - staged) as u64, Ordering::Relaxed);
        }
        n
    }
    fn set_waker(&mut self, w: Arc<Wake>) -> bool {
        self.inner.set_waker(w)
    }
    fn rx_fd(&self) -> Option<i32> {
        self.inner.rx_fd()
    }
    fn maintain(&mut self) -> PortEvent {
        self.inner.maintain()
    }
    fn tx_backlog(&mut self) -> usize {
        self.inner.tx_backlog()
    }
    fn backend_drop_names(&self) -> &'static [&'static str] {
        self.inner.backend_drop_names()
    }
    fn backend_stats(&mut self) -> Option<BackendStats> {
        self.inner.backend_stats()
    }
}

#[cfg(test)]
mod tests;
