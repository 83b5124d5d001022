import socket, sys, time
mode = sys.argv[1]
if mode == "server":
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("0.0.0.0", 5999))
    while True:
        d, a = s.recvfrom(64); s.sendto(d, a)
else:
    host, n, out = sys.argv[2], int(sys.argv[3]), sys.argv[4]
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(1.0)
    res = []
    for i in range(n):
        t = time.perf_counter(); s.sendto(b"x", (host, 5999))
        try:
            s.recvfrom(64); res.append((time.perf_counter() - t) * 1e3)
        except socket.timeout:
            res.append(1000.0)
        time.sleep(0.02)
    open(out, "w").write("\n".join("%.3f" % r for r in res))
