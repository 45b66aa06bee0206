//! The event loop: simulated time in picoseconds, one heap of events, every link's
//! sender (its queue, whether it is sending, its credits) and receiver (frames that
//! arrived at a switch and wait to be taken), and every switch deciding with the real
//! `decide` on its real tables and choosing among a group's ports with the engine's
//! [`Adaptive`] chooser.

use super::config::{Arrivals, FlowControl, Injection, Network, Switching, Workload};
use super::fabric::{End, Prepared};
use super::stats::{Outcome, Recorder};
use super::DesError;
use crate::oracle::host_mac;
use canopy_dataplane::decide::{decide_hops, Decision};
use canopy_dataplane::engine::adaptive::{flow_key, Adaptive};
use canopy_dataplane::engine::counters::{PORT_DOWN, RING_FULL};
use canopy_dataplane::wire;
use canopy_dataplane::DropReason;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// Event kinds, in the top two bits of an event's code.
const GEN: u64 = 0;
const TX_DONE: u64 = 1;
const ARRIVE: u64 = 2;

/// A message (one frame) in the fabric.
#[derive(Debug, Default)]
struct Msg {
    dst: u32,
    /// Bytes on the wire (frame, padding and overhead).
    wire: u32,
    /// Bytes a switch reads before it can decide (Ethernet and Canopy headers).
    head: u32,
    /// Payload bytes.
    payload: u32,
    /// When the host made it, and when its first bit went on the wire (ps).
    made: u64,
    sent: u64,
    /// Switches it went through.
    hops: u16,
    /// Made inside the measured window.
    measured: bool,
    /// The frame's bytes as far as a switch reads them (headers, padded to 60).
    frame: Vec<u8>,
}

/// One direction of a cable, at run time.
#[derive(Debug, Default)]
struct Link {
    /// Frames waiting to be sent.
    queue: VecDeque<u32>,
    sending: bool,
    /// Frames the receiver can still take (lossless only).
    credits: u32,
    /// Input links whose first frame waits for a place at this link's sender.
    waiting: VecDeque<u32>,
    /// Frames that arrived at the receiving switch and were not taken yet.
    rx: VecDeque<u32>,
    /// The first of `rx` is in some sender's `waiting`.
    rx_blocked: bool,
    /// Time spent sending inside the measured window, ps.
    busy: u64,
}

/// Work left over after an event: a sender may start, a receiver may decide.
#[derive(Debug, Clone, Copy)]
enum Act {
    Pump(u32),
    Rx(u32),
}

/// One run's state.
pub(super) struct Run<'a, 'p> {
    prep: &'a Prepared<'p>,
    net: &'a Network,
    wl: &'a Workload,
    ps_byte: u64,
    prop: u64,
    sw_delay: u64,
    lossless: bool,
    now: u64,
    seq: u64,
    heap: BinaryHeap<Reverse<(u64, u64, u64)>>,
    links: Vec<Link>,
    msgs: Vec<Msg>,
    free: Vec<u32>,
    adaptive: Vec<Adaptive>,
    rngs: Vec<StdRng>,
    macs: Vec<[u8; 6]>,
    todo: Vec<Act>,
    live: Vec<u16>,
    occ: Vec<usize>,
    live_links: Vec<u32>,
    rec: Recorder,
    /// Measured window, ps.
    win: (u64, u64),
}

impl<'a, 'p> Run<'a, 'p> {
    pub(super) fn new(prep: &'a Prepared<'p>, net: &'a Network, wl: &'a Workload) -> Self {
        let ps_byte = net.ps_per_byte();
        let prop = (net.propagation_ns * 1000.0).round() as u64;
        let lossless = net.flow_control == FlowControl::Lossless;
        // one frame the receiver holds, plus the shortest frames that fit in flight and in
        // the switch's decision (a pipelined decision does not hold the link)
        let shortest = (wire::ETH_MIN_FRAME as u64 + u64::from(net.overhead_bytes)) * ps_byte;
        let sw_delay = (net.switch_delay_ns * 1000.0).round() as u64;
        let credits = 1 + (prop + sw_delay).div_ceil(shortest) as u32;
        let links = (0..prep.links.len())
            .map(|_| Link {
                credits,
                ..Link::default()
            })
            .collect();
        let n = prep.topo.hosts.len();
        let warm = (wl.warmup_us * 1e6).round() as u64;
        let win = (warm, warm + (wl.measure_us * 1e6).round() as u64);
        Run {
            prep,
            net,
            wl,
            ps_byte,
            prop,
            sw_delay,
            lossless,
            now: 0,
            seq: 0,
            heap: BinaryHeap::new(),
            links,
            msgs: Vec::new(),
            free: Vec::new(),
            // a flowlet table only where flowlets are on (96 KiB a switch)
            adaptive: (0..prep.topo.switches.len())
                .map(|s| {
                    let seed = wl.seed ^ (s as u64 + 1).wrapping_mul(0x9E37_79B9);
                    if net.flowlet_gap_ns > 0 {
                        Adaptive::new(seed)
                    } else {
                        Adaptive::without_flowlets(seed)
                    }
                })
                .collect(),
            rngs: (0..n)
                .map(|h| StdRng::seed_from_u64(wl.seed ^ (h as u64 + 1).wrapping_mul(0xD1B5_4A32)))
                .collect(),
            macs: (0..n as u32).map(|h| host_mac(prep.topo, h)).collect(),
            todo: Vec::new(),
            live: Vec::new(),
            occ: Vec::new(),
            live_links: Vec::new(),
            rec: Recorder::new(prep, win),
            win,
        }
    }

    fn at(&mut self, t: u64, kind: u64, a: u32, b: u32) {
        self.seq += 1;
        let code = kind << 62 | u64::from(a) << 32 | u64::from(b);
        self.heap.push(Reverse((t, self.seq, code)));
    }

    /// Mean gap after a frame of `wire` bytes, ps.
    fn gap(&self, wire: u32) -> f64 {
        (u64::from(wire) * self.ps_byte) as f64 / self.wl.load
    }

    /// Run until the measured messages are all out of the fabric (or the drain limit),
    /// drawing each host's destinations from `dests`.
    pub(super) fn run(
        mut self,
        dests: &mut dyn FnMut(u32) -> Option<u32>,
    ) -> Result<Outcome, DesError> {
        let started = std::time::Instant::now();
        // first messages: at a uniformly random phase of a typical gap (fixed), or after
        // an exponential gap
        let typical = self.wl.payload.draw(0.5) + 64 + self.net.overhead_bytes;
        for h in 0..self.prep.topo.hosts.len() {
            if self.prep.inject[h].is_empty() {
                continue;
            }
            let u: f64 = self.rngs[h].gen();
            let g = self.gap(typical);
            let t = match self.wl.arrivals {
                Arrivals::Fixed => u * g,
                Arrivals::Exponential => -(1.0 - u).ln() * g,
            };
            self.at(t as u64, GEN, h as u32, 0);
        }
        let stop_at = self.win.1 + (self.wl.drain_us * 1e6).round() as u64;
        let mut events = 0u64;
        while let Some(Reverse((t, _, code))) = self.heap.pop() {
            if t > self.win.1 && self.rec.outstanding() == 0 || t > stop_at {
                break;
            }
            self.now = t;
            events += 1;
            let (kind, a, b) = (code >> 62, (code >> 32) as u32 & 0x3FFF_FFFF, code as u32);
            match kind {
                GEN => self.generate(a, dests)?,
                TX_DONE => {
                    self.links[a as usize].sending = false;
                    self.todo.push(Act::Pump(a));
                }
                ARRIVE => self.arrive(a, b),
                _ => unreachable!("event kinds are GEN, TX_DONE, ARRIVE"),
            }
            self.settle();
        }
        let busy: Vec<u64> = self.links.iter().map(|l| l.busy).collect();
        Ok(self
            .rec
            .finish(&busy, self.ps_byte, events, started.elapsed(), self.now))
    }

    /// Host `h` makes its next message and schedules the one after.
    fn generate(
        &mut self,
        h: u32,
        dests: &mut dyn FnMut(u32) -> Option<u32>,
    ) -> Result<(), DesError> {
        let Some(dst) = dests(h) else {
            return Ok(()); // an idle source: nothing now or later
        };
        if dst as usize >= self.macs.len() {
            return Err(DesError::Config(super::ConfigError::Value {
                field: "pattern",
                value: format!("host {h} -> {dst}"),
                why: "a destination must be one of the topology's hosts",
            }));
        }
        let hu = h as usize;
        let Some(link) = self.injection_link(hu) else {
            return Ok(());
        };
        let u: f64 = self.rngs[hu].gen();
        let payload = self.wl.payload.draw(u);
        let header = self.prep.addressing.header(self.prep.topo, h, dst)?;
        let id = self.alloc();
        let measured = (self.win.0..self.win.1).contains(&self.now);
        let m = &mut self.msgs[id as usize];
        let head = (wire::ETH_HEADER_LEN + header.len()) as u32;
        // the headers a switch reads, no payload (the wire length below counts it)
        wire::ethernet_frame_into(
            &mut m.frame,
            self.macs[dst as usize],
            self.macs[hu],
            &header,
            &[],
        );
        let frame_len = (head + payload).max(wire::ETH_MIN_FRAME as u32);
        *m = Msg {
            dst,
            wire: frame_len + self.net.overhead_bytes,
            head,
            payload,
            made: self.now,
            sent: 0,
            hops: 0,
            measured,
            frame: std::mem::take(&mut m.frame),
        };
        let wire_len = m.wire;
        let waiting: usize = self.prep.inject[hu]
            .iter()
            .map(|&l| self.links[l as usize].queue.len())
            .sum();
        let accepted = waiting < self.wl.source_queue;
        if accepted {
            self.links[link as usize].queue.push_back(id);
            self.todo.push(Act::Pump(link));
        }
        self.rec.made(self.now, wire_len, measured, accepted);
        if !accepted {
            self.free.push(id);
        }
        let u: f64 = self.rngs[hu].gen();
        let g = self.gap(wire_len);
        let next = match self.wl.arrivals {
            Arrivals::Fixed => g,
            Arrivals::Exponential => -(1.0 - u).ln() * g,
        };
        self.at(self.now + (next as u64).max(1), GEN, h, 0);
        Ok(())
    }

    /// The link host `h`'s next message goes on (`None`: the host has none).
    fn injection_link(&self, h: usize) -> Option<u32> {
        let links = &self.prep.inject[h];
        match self.net.injection {
            Injection::First => links.first().copied(),
            // `min_by_key` keeps the first of equals: ties go to the lowest port
            Injection::Spread => links.iter().copied().min_by_key(|&l| self.occupancy(l)),
        }
    }

    fn alloc(&mut self) -> u32 {
        match self.free.pop() {
            Some(i) => i,
            None => {
                self.msgs.push(Msg::default());
                (self.msgs.len() - 1) as u32
            }
        }
    }

    /// Do the work events left until none is left.
    fn settle(&mut self) {
        while let Some(a) = self.todo.pop() {
            match a {
                Act::Pump(l) => self.pump(l),
                Act::Rx(l) => self.receive(l),
            }
        }
    }

    fn can_send(&self, l: u32) -> bool {
        let s = &self.links[l as usize];
        !s.sending && (!self.lossless || s.credits > 0)
    }

    /// Link `l`'s sender starts its next frame if it can, then takes waiting frames
    /// into the room that made.
    fn pump(&mut self, l: u32) {
        if self.can_send(l) {
            if let Some(m) = self.links[l as usize].queue.pop_front() {
                self.start(l, m);
            }
        }
        self.admit(l);
    }

    /// Frames waiting for link `l`'s sender go in while there is room.
    fn admit(&mut self, l: u32) {
        while let Some(&inl) = self.links[l as usize].waiting.front() {
            let Some(&m) = self.links[inl as usize].rx.front() else {
                self.links[l as usize].waiting.pop_front();
                continue;
            };
            if !self.accept(l, m) {
                break;
            }
            self.links[l as usize].waiting.pop_front();
            let input = &mut self.links[inl as usize];
            input.rx.pop_front();
            input.rx_blocked = false;
            self.taken(inl);
            self.todo.push(Act::Rx(inl));
        }
    }

    /// Link `l`'s sender takes frame `m`: sends it now when idle with nothing queued,
    /// else queues it when there is room. `false`: no room.
    fn accept(&mut self, l: u32, m: u32) -> bool {
        let idle = self.can_send(l) && self.links[l as usize].queue.is_empty();
        if idle {
            self.start(l, m);
            return true;
        }
        let q = &mut self.links[l as usize].queue;
        if q.len() < self.net.buffer {
            q.push_back(m);
            return true;
        }
        false
    }

    /// The receiver of link `l` took a frame off it: one more credit, and its sender
    /// may go on.
    fn taken(&mut self, l: u32) {
        if self.lossless {
            self.links[l as usize].credits += 1;
            self.todo.push(Act::Pump(l));
        }
    }

    /// Put frame `m` on link `l` now.
    fn start(&mut self, l: u32, m: u32) {
        let now = self.now;
        let (wire_len, head) = {
            let msg = &mut self.msgs[m as usize];
            if self.prep.links[l as usize].from_switch.is_none() {
                msg.sent = now;
            }
            (u64::from(msg.wire), u64::from(msg.head))
        };
        let ser = wire_len * self.ps_byte;
        let link = &mut self.links[l as usize];
        link.sending = true;
        if self.lossless {
            link.credits -= 1;
        }
        let (w0, w1) = self.win;
        link.busy += (now + ser).min(w1).saturating_sub(now.max(w0));
        self.at(now + ser, TX_DONE, l, 0);
        let arrive = match self.prep.links[l as usize].to {
            End::Host(_) => now + self.prop + ser,
            End::Switch { .. } => {
                let read = match self.net.switching {
                    Switching::StoreAndForward => ser,
                    Switching::CutThrough => {
                        let read = match self.net.decide_after_bytes {
                            0 => head,
                            n => u64::from(n),
                        };
                        read.min(wire_len) * self.ps_byte
                    }
                };
                now + self.prop + read + self.sw_delay
            }
        };
        self.at(arrive, ARRIVE, l, m);
    }

    /// Frame `m` reached the far end of link `l` (its header or its last bit, see
    /// [`Switching`]).
    fn arrive(&mut self, l: u32, m: u32) {
        match self.prep.links[l as usize].to {
            End::Host(h) => {
                let msg = &self.msgs[m as usize];
                self.rec.delivered(
                    self.now,
                    h == msg.dst,
                    msg.wire,
                    msg.payload,
                    msg.made,
                    msg.sent,
                    msg.hops,
                    msg.measured,
                );
                self.free.push(m);
                self.taken(l);
            }
            End::Switch { .. } => {
                let rx = &mut self.links[l as usize].rx;
                rx.push_back(m);
                if rx.len() == 1 {
                    self.todo.push(Act::Rx(l));
                }
            }
        }
    }

    /// The switch at the end of link `l` decides the frames that arrived on it, in
    /// order, until one has to wait.
    fn receive(&mut self, l: u32) {
        loop {
            let link = &self.links[l as usize];
            if link.rx_blocked {
                return;
            }
            let Some(&m) = link.rx.front() else {
                return;
            };
            let out = self.route(l, m);
            let done = match out {
                Ok(o) if self.accept(o, m) => true,
                Ok(o) if self.lossless => {
                    self.links[o as usize].waiting.push_back(l);
                    self.links[l as usize].rx_blocked = true;
                    false
                }
                Ok(_) => {
                    self.drop(m, RING_FULL);
                    true
                }
                Err(reason) => {
                    self.drop(m, reason);
                    true
                }
            };
            if !done {
                return;
            }
            self.links[l as usize].rx.pop_front();
            self.taken(l);
        }
    }

    fn drop(&mut self, m: u32, reason: usize) {
        let measured = self.msgs[m as usize].measured;
        self.rec.dropped(reason, measured);
        self.free.push(m);
    }

    /// Frames queued, being sent or waiting for link `l`'s sender: the occupancy an
    /// adaptive choice compares.
    fn occupancy(&self, l: u32) -> usize {
        let s = &self.links[l as usize];
        s.queue.len() + usize::from(s.sending) + s.waiting.len()
    }

    /// Decide frame `m` at the switch link `l` leads to: the link it leaves on, or the
    /// drop counter's index.
    fn route(&mut self, l: u32, m: u32) -> Result<u32, usize> {
        let End::Switch { sw, port } = self.prep.links[l as usize].to else {
            return Err(DropReason::NoPort.index());
        };
        let (swu, tables) = (sw as usize, &self.prep.tables[sw as usize]);
        let out = &self.prep.out[swu];
        let msg = &mut self.msgs[m as usize];
        msg.hops += 1;
        let mut hop_record = false;
        match decide_hops(tables, port, &mut msg.frame, &mut hop_record) {
            Decision::Port(p) => out.get(usize::from(p)).copied().flatten().ok_or(PORT_DOWN),
            Decision::Group(g) => {
                let key = (self.net.flowlet_gap_ns > 0).then(|| flow_key(&msg.frame, g));
                self.live.clear();
                self.occ.clear();
                self.live_links.clear();
                for &p in tables.group(g) {
                    if let Some(o) = out.get(usize::from(p)).copied().flatten() {
                        self.live.push(p);
                        self.live_links.push(o);
                    }
                }
                for i in 0..self.live_links.len() {
                    let o = self.occupancy(self.live_links[i]);
                    self.occ.push(o);
                }
                let now_ns = self.now / 1000;
                let choice = self.adaptive[swu].choose(
                    &self.live,
                    &self.occ,
                    key,
                    now_ns,
                    self.net.flowlet_gap_ns,
                );
                match choice {
                    Some((i, _)) => Ok(self.live_links[i]),
                    None if tables.group(g).is_empty() => Err(DropReason::NoPort.index()),
                    None => Err(PORT_DOWN),
                }
            }
            Decision::Drop(r) => Err(usize::from(r)),
        }
    }
}
