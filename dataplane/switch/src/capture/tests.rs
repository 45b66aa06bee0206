use super::*;
use crate::pcap;
use canopy_dataplane::engine::mem::{self, MemPort};

fn scratch() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("canopy-capture-")
        .tempdir()
        .unwrap()
}

fn frames(pool: &Pool, n: usize, len: usize, tag: u8) -> Vec<Buf> {
    (0..n)
        .map(|i| {
            let mut b = pool.get().unwrap();
            let bytes: Vec<u8> = (0..len).map(|k| (k as u8) ^ (i as u8) ^ tag).collect();
            assert!(b.fill(&bytes));
            b
        })
        .collect()
}

/// One mem port `p0` (the switch's end, captured) and its far end.
fn rig(cfg: &CaptureConfig, capacity: usize) -> (Capture, Box<dyn Port>, MemPort) {
    let (near, far) = mem::pair("p0", "p0-far", capacity);
    let (cap, mut ports, reps) = Capture::open(cfg, vec![Box::new(near)], vec![]).unwrap();
    assert!(reps.is_empty());
    (cap, ports.remove(0), far)
}

fn bytes_of(v: &[Buf]) -> Vec<Vec<u8>> {
    v.iter().map(|b| b.bytes().to_vec()).collect()
}

#[test]
fn received_and_sent_frames_reach_their_files_in_order_and_time() {
    let dir = scratch();
    let cfg = CaptureConfig::new(dir.path().join("cap"));
    let pool = Pool::new(256);
    let (mut cap, mut port, mut far) = rig(&cfg, 64);
    cap.start("t-").unwrap();
    let before = now_ns();
    // 20 frames in from the far end
    let mut inbound = frames(&pool, 20, 70, 0x11);
    let want_in = bytes_of(&inbound);
    assert_eq!(far.tx_burst(&mut inbound, &pool), 20);
    let mut got = Vec::new();
    assert_eq!(port.rx_burst(&pool, &mut got, 32), 20);
    assert_eq!(bytes_of(&got), want_in, "the frames pass unchanged");
    // 10 out: the port sends them on
    let mut out = frames(&pool, 10, 90, 0x22);
    let want_out = bytes_of(&out);
    assert_eq!(port.tx_burst(&mut out, &pool), 10);
    let after = now_ns();
    let r = cap.finish();
    assert_eq!(r.files.len(), 2);
    for f in &r.files {
        assert_eq!(
            (f.dropped, f.skipped, f.error.as_deref()),
            (0, 0, None),
            "{f:?}"
        );
    }
    let read = |d| pcap::read(&cfg.file("p0", d)).unwrap();
    let (rin, rout) = (read(Direction::In), read(Direction::Out));
    assert_eq!(
        rin.iter().map(|f| f.data.clone()).collect::<Vec<_>>(),
        want_in
    );
    assert_eq!(
        rout.iter().map(|f| f.data.clone()).collect::<Vec<_>>(),
        want_out
    );
    assert_eq!((r.files[0].written, r.files[1].written), (20, 10));
    assert!(cfg.dir.join("p0_in.pcap").exists() && cfg.dir.join("p0_out.pcap").exists());
    for f in rin.iter().chain(&rout) {
        assert!(
            (before..=after).contains(&f.ts_ns),
            "{} not in {before}..={after}",
            f.ts_ns
        );
    }
}

#[test]
fn only_frames_the_backend_accepted_are_written_as_sent() {
    let dir = scratch();
    let cfg = CaptureConfig {
        format: Format::PcapNg,
        ..CaptureConfig::new(dir.path().to_path_buf())
    };
    let pool = Pool::new(64);
    // the far end holds 4 frames
    let (mut cap, mut port, _far) = rig(&cfg, 4);
    let mut out = frames(&pool, 7, 60, 0x33);
    let want = bytes_of(&out[..4]);
    assert_eq!(port.tx_burst(&mut out, &pool), 4);
    assert_eq!(out.len(), 3, "the unsent frames stay with the caller");
    let r = cap.finish();
    let got = pcap::read(&dir.path().join("p0_out.pcapng")).unwrap();
    assert_eq!(got.iter().map(|f| f.data.clone()).collect::<Vec<_>>(), want);
    assert_eq!(r.files[1].written, 4);
    // the slots of the unsent ones went back: all are free again
    assert_eq!(cap.rings.free.len(), cfg.queue);
}

#[test]
fn a_full_queue_drops_captures_not_frames_and_counts_them() {
    let dir = scratch();
    let cfg = CaptureConfig {
        queue: 64,
        rx: true,
        tx: false,
        ..CaptureConfig::new(dir.path().to_path_buf())
    };
    let pool = Pool::new(256);
    let (mut cap, mut port, mut far) = rig(&cfg, 256);
    // no writer yet: nothing drains the queue
    let mut inbound = frames(&pool, 100, 60, 0);
    assert_eq!(far.tx_burst(&mut inbound, &pool), 100);
    let mut got = Vec::new();
    while port.rx_burst(&pool, &mut got, 32) > 0 {}
    assert_eq!(got.len(), 100, "every frame is forwarded");
    let r = cap.report();
    assert_eq!((r.files.len(), r.files[0].dropped), (1, 36));
    let r = cap.finish();
    assert_eq!((r.files[0].written, r.files[0].dropped), (64, 36));
    assert_eq!(
        pcap::read(&cfg.file("p0", Direction::In)).unwrap().len(),
        64
    );
}

#[test]
fn files_stop_at_max_frames_and_the_rest_is_counted() {
    let dir = scratch();
    let cfg = CaptureConfig {
        max_frames: 5,
        snaplen: MIN_SNAPLEN,
        ..CaptureConfig::new(dir.path().to_path_buf())
    };
    let pool = Pool::new(256);
    let (mut cap, mut port, mut far) = rig(&cfg, 256);
    cap.start("t-").unwrap();
    let mut total = 0;
    for round in 0..10u8 {
        let mut inbound = frames(&pool, 8, 1500, round);
        assert_eq!(far.tx_burst(&mut inbound, &pool), 8);
        let mut got = Vec::new();
        total += port.rx_burst(&pool, &mut got, 32);
        for b in got {
            pool.put(b);
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    assert_eq!(total, 80);
    let r = cap.finish();
    let f = &r.files[0];
    assert_eq!(
        (f.written, f.written + f.skipped + f.dropped),
        (5, 80),
        "{f:?}"
    );
    let back = pcap::read(&cfg.file("p0", Direction::In)).unwrap();
    assert_eq!(back.len(), 5);
    assert!(back.iter().all(|f| f.data.len() == MIN_SNAPLEN as usize));
    let size = std::fs::metadata(cfg.file("p0", Direction::In))
        .unwrap()
        .len();
    assert!(size <= 24 + 5 * (u64::from(MIN_SNAPLEN) + 16), "{size}");
}

#[test]
fn only_the_named_ports_and_ways_are_wrapped_and_names_are_made_safe() {
    let dir = scratch();
    let cfg = CaptureConfig {
        ports: Some(vec![1]),
        tx: false,
        ..CaptureConfig::new(dir.path().to_path_buf())
    };
    let (a, _fa) = mem::pair("a", "fa", 4);
    let (b, _fb) = mem::pair("eth 1/2", "fb", 4);
    let (c, _fc) = mem::pair("eth 1/2", "fc", 4);
    let (cap, _ports, reps) = Capture::open(
        &cfg,
        vec![Box::new(a), Box::new(b)],
        vec![(1, Box::new(c) as Box<dyn Port>)],
    )
    .unwrap();
    assert_eq!(cap.paths(), vec![dir.path().join("eth_1_2_in.pcap")]);
    assert_eq!(reps.len(), 1);
    // two ports whose files would clash
    let (a, _fa) = mem::pair("x/y", "fa", 4);
    let (b, _fb) = mem::pair("x_y", "fb", 4);
    let e = Capture::open(
        &CaptureConfig::new(dir.path().to_path_buf()),
        vec![Box::new(a), Box::new(b)],
        vec![],
    )
    .err()
    .unwrap();
    assert!(e.to_string().contains("ports 0 and 1"), "{e}");
}
