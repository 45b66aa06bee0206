#!/bin/sh
# wait-interfaces TIMEOUT_S IFNAME... -- COMMAND [ARG...]
#
# Written by `canopy-testbed export containerlab` next to the topology and bound into
# every node (docs/export.md). containerlab starts a container before it moves the
# container's links into it, so the node's process waits here until every named
# interface exists and is up, turns IPv6 off on it (no router solicitations or MLD
# reports into the switches' counters; the testbed's namespaces have IPv6 off too),
# then becomes COMMAND. Exits 1 when an interface is not there within TIMEOUT_S
# seconds, 2 on a usage error.
set -u
[ $# -ge 2 ] || { echo "usage: wait-interfaces TIMEOUT_S IFNAME... -- COMMAND [ARG...]" >&2; exit 2; }
timeout=$1
shift
case $timeout in
    '' | *[!0-9]*) echo "wait-interfaces: TIMEOUT_S must be a number of seconds, got '$timeout'" >&2; exit 2 ;;
esac
ifnames=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    ifnames="$ifnames $1"
    shift
done
[ $# -ge 2 ] || { echo "usage: wait-interfaces TIMEOUT_S IFNAME... -- COMMAND [ARG...]" >&2; exit 2; }
shift
# whether interface $1 exists and is up: IFF_UP (bit 0) in its flags ("0x1003")
is_up() {
    flags=$(cat "/sys/class/net/$1/flags" 2>/dev/null) || return 1
    case $flags in 0x*) ;; *) return 1 ;; esac
    case ${flags#0x} in '' | *[!0-9a-fA-F]*) return 1 ;; esac
    [ $((flags & 1)) -eq 1 ]
}
left=$((timeout * 10))
for i in $ifnames; do
    until is_up "$i"; do
        if [ "$left" -le 0 ]; then
            echo "wait-interfaces: interface $i is not there and up after ${timeout}s" >&2
            exit 1
        fi
        left=$((left - 1))
        sleep 0.1
    done
    if [ -w "/proc/sys/net/ipv6/conf/$i/disable_ipv6" ]; then
        echo 1 >"/proc/sys/net/ipv6/conf/$i/disable_ipv6"
    fi
done
exec "$@"
