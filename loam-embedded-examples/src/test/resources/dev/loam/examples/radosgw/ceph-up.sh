#!/usr/bin/env bash
# Brings up a single-node Ceph cluster with a radosgw S3 endpoint and supervises it: one monitor,
# one memstore OSD (RAM only), no cephx authentication, everything on 127.0.0.1. Creates the S3
# user, then touches $C/ready. Stops the daemons on SIGTERM, or as soon as the parent process (the
# test JVM) is gone, so nothing outlives the test run.
#
# Usage: ceph-up.sh CLUSTER_DIR MON_PORT RGW_PORT PARENT_PID ACCESS_KEY SECRET_KEY
set -u
C=$1 MON=$2 RGW=$3 PARENT=$4 KEY=$5 SECRET=$6
pids=()

stop() {
  trap - TERM INT
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  for _ in $(seq 1 50); do
    alive=0
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ "$alive" = 0 ] && break
    sleep 0.2
  done
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
  wait 2>/dev/null
  exit "${1:-0}"
}
trap 'stop 0' TERM INT

fail() {
  echo "ceph-up: $*"
  for f in "$C"/log/*; do [ -f "$f" ] && { echo "--- $f"; tail -n 20 "$f"; }; done
  stop 1
}

rm -rf "$C"
mkdir -p "$C"/{run,log,mon.a,osd.0,rgw} || fail "cannot create $C"
FSID=$(uuidgen)
cat > "$C/ceph.conf" <<CONF
[global]
fsid = $FSID
mon host = v2:127.0.0.1:$MON
auth cluster required = none
auth service required = none
auth client required = none
# Without cephx the monitor client must also accept crc mode, or it loops on
# "get_initial_auth_request returned -13".
ms mon client mode = crc secure
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
mon allow pool size one = true
mon warn on pool no redundancy = false
osd crush chooseleaf type = 0
osd objectstore = memstore
memstore device bytes = 2147483648
run dir = $C/run
admin socket = $C/run/\$name.asok
log file = $C/log/\$name.log
[mon.a]
mon data = $C/mon.a
[osd.0]
osd data = $C/osd.0
[client.rgw.x]
rgw frontends = beast endpoint=127.0.0.1:$RGW
rgw data = $C/rgw
CONF
cd "$C" || fail "cannot enter $C"
echo "ceph-up: monitor on $MON, radosgw on $RGW"
monmaptool --create --addv a "[v2:127.0.0.1:$MON]" --fsid "$FSID" monmap > log/monmaptool.out 2>&1 \
  || fail "monmaptool failed"
ceph-mon -c ceph.conf --mkfs -i a --monmap monmap > log/mon-mkfs.out 2>&1 || fail "ceph-mon --mkfs failed"
ceph-mon -f -c ceph.conf -i a > log/mon.out 2>&1 &
pids+=($!)
OSDUUID=$(uuidgen)
ID=$(timeout 60 ceph -c ceph.conf osd new "$OSDUUID" 2> log/osd-new.err) || fail "ceph osd new failed"
ceph-osd -c ceph.conf -i "$ID" --mkfs --osd-uuid "$OSDUUID" > log/osd-mkfs.out 2>&1 \
  || fail "ceph-osd --mkfs failed"
ceph-osd -f -c ceph.conf -i "$ID" > log/osd.out 2>&1 &
pids+=($!)
radosgw -f -c ceph.conf -n client.rgw.x > log/rgw.out 2>&1 &
pids+=($!)
for _ in $(seq 1 600); do
  (echo > "/dev/tcp/127.0.0.1/$RGW") 2>/dev/null && break
  kill -0 "${pids[2]}" 2>/dev/null || fail "radosgw exited"
  sleep 0.1
done
(echo > "/dev/tcp/127.0.0.1/$RGW") 2>/dev/null || fail "radosgw did not open port $RGW"
timeout 60 radosgw-admin -c ceph.conf user create --uid=loam --display-name=loam \
  --access-key="$KEY" --secret="$SECRET" > log/user-create.out 2>&1 || fail "radosgw-admin user create failed"
touch "$C/ready"
echo "ceph-up: ready"
while kill -0 "$PARENT" 2>/dev/null; do
  for p in "${pids[@]}"; do
    kill -0 "$p" 2>/dev/null || fail "daemon $p exited"
  done
  sleep 1
done
echo "ceph-up: parent $PARENT is gone, stopping"
stop 0
