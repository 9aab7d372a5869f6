#!/usr/bin/env bash
# Time from a server's listen to a waiting tool's exit: tether wait
# against wait-on and wait-port (from the npm registry, installed into a
# temporary directory), for a TCP port, an http URL and an https URL (a
# self-signed certificate, accepted by each tool's own switch). A Node
# server started 2 s before it listens writes the moment it listened;
# the driver notes the moment the tool exited. Runs are interleaved,
# one of each tool per round; medians in ms.
# Usage: bench/ready.sh [ROUNDS [KIND...]], KIND tcp, http or https (all by default)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-20}
kinds="${*:2}"
for tool in node npm openssl python3; do
	command -v "$tool" >/dev/null || { echo "bench/ready.sh needs $tool" >&2; exit 2; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
CGO_ENABLED=0 go build -tags urfave_cli_no_docs -o "$work/" .
(cd "$work" && npm install --silent --no-audit --no-fund wait-on@9 wait-port@1 >/dev/null 2>&1)
openssl req -x509 -newkey rsa:2048 -nodes -subj /CN=localhost -days 1 \
	-keyout "$work/key.pem" -out "$work/cert.pem" >/dev/null 2>&1
cat >"$work/server.js" <<'JS'
// node server.js KIND PORT OUT: listen after 2 s, write when, serve 200.
const [kind, port, out] = process.argv.slice(2);
const fs = require('fs');
const handler = (req, res) => { res.end('ok'); };
let srv;
if (kind === 'tcp') srv = require('net').createServer(s => s.end());
else if (kind === 'http') srv = require('http').createServer(handler);
else srv = require('https').createServer({ key: fs.readFileSync(process.env.KEY), cert: fs.readFileSync(process.env.CERT) }, handler);
setTimeout(() => srv.listen(+port, '127.0.0.1', () => {
  fs.writeFileSync(out, String(performance.timeOrigin + performance.now()));
}), 2000);
JS
echo "## Time to ready: from a server's listen to the waiting tool's exit"
echo
echo "$(date -u +%Y-%m-%d), $(nproc) cores, $(uname -sr), node $(node --version); median of $rounds interleaved rounds, ms"
echo
KEY="$work/key.pem" CERT="$work/cert.pem" python3 - "$work" "$rounds" $kinds <<'PY'
import os, socket, statistics, subprocess, sys, time
work, rounds, kinds = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
nm = os.path.join(work, "node_modules", ".bin")
def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p
tools = {
    "tcp": {
        "tether": lambda p: [f"{work}/tether", "wait", "-p", f"127.0.0.1:{p}", "--timeout", "20s"],
        "wait-on": lambda p: [f"{nm}/wait-on", "-t", "20000", f"tcp:127.0.0.1:{p}"],
        "wait-port": lambda p: [f"{nm}/wait-port", "-t", "20000", f"127.0.0.1:{p}"],
    },
    "http": {
        "tether": lambda p: [f"{work}/tether", "wait", "--url", f"http://127.0.0.1:{p}/", "--timeout", "20s"],
        "wait-on": lambda p: [f"{nm}/wait-on", "-t", "20000", f"http://127.0.0.1:{p}/"],
        "wait-port": lambda p: [f"{nm}/wait-port", "-t", "20000", f"http://127.0.0.1:{p}/"],
    },
    "https": {
        "tether": lambda p: [f"{work}/tether", "wait", "-k", "--url", f"https://127.0.0.1:{p}/", "--timeout", "20s"],
        "wait-on": lambda p: [f"{nm}/wait-on", "-t", "20000", f"https://127.0.0.1:{p}/"],
    },
}
env = dict(os.environ, NODE_TLS_REJECT_UNAUTHORIZED="0", NODE_NO_WARNINGS="1")
print("| resource | " + " | ".join(["tether", "wait-on", "wait-port"]) + " |")
print("|---|---:|---:|---:|")
for kind, byTool in tools.items():
    if kinds and kind not in kinds:
        continue
    got = {t: [] for t in byTool}
    fails = {t: 0 for t in byTool}
    for _ in range(rounds):
        for tool, argv in byTool.items():
            port, out = free_port(), os.path.join(work, "listened")
            if os.path.exists(out): os.remove(out)
            srv = subprocess.Popen(["node", os.path.join(work, "server.js"), kind, str(port), out], env=env)
            code = subprocess.run(argv(port), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
            done = time.time() * 1000
            srv.terminate(); srv.wait()
            if code != 0 or not os.path.exists(out):
                fails[tool] += 1
                continue
            got[tool].append(done - float(open(out).read()))
    cells = []
    for tool in ["tether", "wait-on", "wait-port"]:
        if tool not in byTool:
            cells.append("—")
        elif not got[tool]:
            cells.append(f"failed {fails[tool]}/{rounds}")
        else:
            cells.append(f"{statistics.median(got[tool]):.0f}" + (f" ({fails[tool]} failed)" if fails[tool] else ""))
    print(f"| {kind} | " + " | ".join(cells) + " |")
PY
