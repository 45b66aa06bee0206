//! Thread pinning and thread CPU time for the measurements.
#![allow(dead_code)] // each test binary uses a subset

/// Pin the calling thread to `cpu`.
pub fn pin_to_cpu(cpu: usize) {
    // SAFETY: a zeroed cpu_set_t with one bit set, for the calling thread.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
    }
}

/// CPU time (user + system) of the calling thread, in ns.
pub fn thread_cpu_ns() -> u64 {
    // SAFETY: a zeroed rusage filled by the kernel.
    unsafe {
        let mut ru: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_THREAD, &mut ru);
        let tv = |t: libc::timeval| t.tv_sec as u64 * 1_000_000_000 + t.tv_usec as u64 * 1000;
        tv(ru.ru_utime) + tv(ru.ru_stime)
    }
}
