#!/bin/bash
# Runs inside a Debian container booted with systemd, after `dpkg -i canopy_*.deb`:
# starts the packaged units on their shipped configuration, checks what they answer,
# stops them, purges the package. One `KEY=VALUE` line per finding on stdout (the test
# that boots the container reads them); never stops at a failure.
set -u
SW=sw-k0-y0-l1-z0-r0
say() { printf '%s=%s\n' "$1" "$2"; }
oneline() { tr '\n' ' ' | tr -s ' '; }

say system_state "$(systemctl is-system-running 2>&1 | oneline)"
for u in canopyd.service canopy-switch@.service; do
    say "verify_$u" "$(systemd-analyze verify "/lib/systemd/system/$u" 2>&1 | oneline)"
done

# installed, not enabled; enabling works (the [Install] sections are valid)
say enabled_before "$(systemctl is-enabled canopyd.service 2>&1 | oneline)"
systemctl enable canopyd.service "canopy-switch@$SW.service" >/dev/null 2>&1
say enable_rc $?

t0=$(date +%s%N)
systemctl start "canopy-switch@$SW.service"
say switch_start_rc $?
systemctl start canopyd.service
say daemon_start_rc $?
say start_ms $(( ($(date +%s%N) - t0) / 1000000 ))
for u in "canopy-switch@$SW" canopyd; do
    say "active_$u" "$(systemctl is-active "$u")"
    say "status_$u" "$(systemctl show -p StatusText --value "$u")"
    pid=$(systemctl show -p MainPID --value "$u")
    say "uid_$u" "$(awk '/^Uid:/ {print $2}' "/proc/$pid/status")"
    say "nonewprivs_$u" "$(awk '/^NoNewPrivs:/ {print $2}' "/proc/$pid/status")"
    say "capeff_$u" "$(awk '/^CapEff:/ {print $2}' "/proc/$pid/status")"
done
say canopy_uid "$(id -u canopy)"
say health "$(canopy-switch ctl --socket "/run/canopy/$SW.sock" health 2>&1 | oneline)"
say fabric_status "$(canopyctl fabric status 2>&1 | oneline)"
readyz() {
    exec 3<>/dev/tcp/127.0.0.1/9464 || return
    printf 'GET /readyz HTTP/1.0\r\n\r\n' >&3
    head -n 1 <&3 | tr -d '\r'
    exec 3<&-
}
say readyz "$(readyz 2>&1)"

systemctl stop canopyd.service "canopy-switch@$SW.service"
for u in "canopy-switch@$SW" canopyd; do
    prop() { systemctl show -p "$1" --value "$u"; }
    say "stopped_$u" "$(prop ActiveState) $(prop Result) $(prop ExecMainStatus)"
done
say socket_left "$(ls -A /run/canopy 2>&1 | oneline)"
say final_counters "$(journalctl -u "canopy-switch@$SW" -o cat --no-pager 2>&1 | grep -c 'final counters')"

# running again, then purged: prerm stops both, nothing of canopy keeps running
systemctl start "canopy-switch@$SW.service" canopyd.service
say restart_rc $?
dpkg --purge canopy > /tmp/purge.log 2>&1
say purge_rc $?
say left_running "$(systemctl list-units --no-legend --state=active 'canopy*' 2>&1 | oneline)"
say left_files "$(ls -d /etc/canopy /usr/bin/canopy* /lib/systemd/system/canopy* 2>&1 | grep -v 'No such' | oneline)"
say done yes
