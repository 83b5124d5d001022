#!/usr/bin/env python3
"""One TCP stream between two emulated hosts: goodput and the congestion
control in use.  usage (the cluster up): goodput.py [MiB]
Runs a receiver in host1 and a sender in host0 through `topocoll-cluster exec`."""
import os
import subprocess
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
tool = os.path.join(here, "../../../tools/cluster/topocoll-cluster")
mib = int(sys.argv[1]) if len(sys.argv) > 1 else 64

RECV = r'''
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", 5999)); s.listen(1); print("ready", flush=True)
c, _ = s.accept(); n = 0
while True:
    b = c.recv(1 << 20)
    if not b: break
    n += len(b)
print(n, flush=True)
'''
SEND = r'''
import socket, sys, time
n = int(sys.argv[1]) << 20
c = socket.create_connection(("host1", 5999))
cc = c.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16).rstrip(b"\0").decode()
buf = b"x" * (1 << 20); t = time.perf_counter(); left = n
while left: left -= c.send(buf[:min(left, len(buf))])
c.shutdown(socket.SHUT_WR); c.recv(1); dt = time.perf_counter() - t
print(f"{cc} {n / dt * 8 / 1e6:.0f} Mbit/s ({n >> 20} MiB in {dt * 1e3:.0f} ms)")
'''
r = subprocess.Popen([tool, "exec", "host1", "--", "python3", "-c", RECV], stdout=subprocess.PIPE, text=True)
assert r.stdout.readline().strip() == "ready"
out = subprocess.run([tool, "exec", "host0", "--", "python3", "-c", SEND, str(mib)],
                     capture_output=True, text=True)
r.wait(timeout=60)
print(out.stdout.strip() or out.stderr.strip())
