package readiness

import (
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// dnsAnswer answers the query q as a server that knows two names, both
// 127.0.0.1: svc. (an absolute name, asked as it is) and big.test., whose
// answer over UDP is truncated (TC set, no record), as a server's is
// when the records do not fit in a datagram. Anything else does not
// exist.
func dnsAnswer(q []byte, overTCP bool) []byte {
	if len(q) < 12 {
		return nil
	}
	name, i := "", 12
	for i < len(q) && q[i] != 0 && i+1+int(q[i]) <= len(q) {
		name += string(q[i+1:i+1+int(q[i])]) + "."
		i += 1 + int(q[i])
	}
	if i+5 > len(q) {
		return nil
	}
	qtype := binary.BigEndian.Uint16(q[i+1:])
	out := append([]byte{}, q[:12]...)
	out[2], out[3] = 0x85, 0x80 // an answer, authoritative, recursion: NOERROR
	binary.BigEndian.PutUint16(out[4:], 1)
	clear(out[6:12])
	out = append(out, q[12:i+5]...)
	switch {
	case name != "svc." && name != "big.test.":
		out[3] |= 3 // NXDOMAIN
	case name == "big.test." && !overTCP:
		out[2] |= 0x02 // TC
	case qtype == 1: // A
		out[7] = 1
		out = append(out, 0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 127, 0, 0, 1)
	}
	return out
}

// startDNS serves dnsAnswer over UDP and TCP on one loopback port until
// the test ends, and sends the queries of Go's resolver there (with the
// search domains and ndots of this machine's resolv.conf, which the
// names asked here do not depend on). It counts the queries over TCP.
func startDNS(t *testing.T) *atomic.Int32 {
	t.Helper()
	pc, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Skipf("no loopback UDP: %v", err)
	}
	addr := pc.LocalAddr().String()
	l, err := net.Listen("tcp4", addr)
	if err != nil {
		pc.Close()
		t.Skipf("the DNS server's port over TCP: %v", err)
	}
	var overTCP atomic.Int32
	go func() {
		buf := make([]byte, 1500)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			_, _ = pc.WriteTo(dnsAnswer(buf[:n], false), from)
		}
	}()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			overTCP.Add(1)
			go serveDNSConn(c)
		}
	}()
	old := resolver
	resolver = &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}}
	t.Cleanup(func() { resolver = old; pc.Close(); l.Close() })
	return &overTCP
}

// serveDNSConn answers the length-prefixed queries of one TCP
// connection.
func serveDNSConn(c net.Conn) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	for {
		var n [2]byte
		if _, err := c.Read(n[:]); err != nil {
			return
		}
		q := make([]byte, binary.BigEndian.Uint16(n[:]))
		if _, err := c.Read(q); err != nil {
			return
		}
		a := dnsAnswer(q, true)
		if _, err := c.Write(append(binary.BigEndian.AppendUint16(nil, uint16(len(a))), a...)); err != nil {
			return
		}
	}
}

// Names as Go's resolver looks them up: an absolute name (svc.,
// localhost.) asked as it is, whatever the search domains; an answer
// truncated over UDP asked again over TCP; a name no one knows said so.
func TestWaitResolves(t *testing.T) {
	overTCP := startDNS(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	for _, host := range []string{"svc.", "localhost.", "big.test"} {
		tg := checkURL(t, "http://"+host+":"+port+"/", Spec{Timeout: 5 * time.Second})
		if !tg.Ready || tg.HTTPStatus != 200 {
			t.Errorf("GET http://%s:%s/: %+v; want ready", host, port, tg)
		}
		addrs, err := LookupHost(host, 5*time.Second)
		if err != nil || len(addrs) == 0 || !addrs[0].IsLoopback() {
			t.Errorf("LookupHost(%q) = %v, %v; want 127.0.0.1 first", host, addrs, err)
		}
	}
	if overTCP.Load() == 0 {
		t.Errorf("no query over TCP: the truncated answer was not asked again")
	}
	_, err := LookupHost("nothing.test.", 5*time.Second)
	if !notFound(err) || !strings.Contains(reason(err, time.Second), `look up host "nothing.test.": no such host`) {
		t.Errorf("an unknown name: %v (%s); want not found, named", err, reason(err, time.Second))
	}
	r, err := Spec{Remote: []Remote{{Host: "big.test.", Port: portOf(t, port)}}}.Wait()
	if err != nil || !r.Ready || r.Targets[0].Detail != "accepted at 127.0.0.1:"+port {
		t.Errorf("a remote port at a name truncated over UDP: %+v, %v", r, err)
	}
}

func portOf(t *testing.T, s string) uint16 {
	var p uint16
	if _, err := fmt.Sscan(s, &p); err != nil {
		t.Fatal(err)
	}
	return p
}
