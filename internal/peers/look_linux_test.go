package peers

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
)

// child starts sleep with stdin and stdout given, and ends it with the
// test.
func child(t *testing.T, stdin, stdout *os.File) int {
	t.Helper()
	cmd := exec.Command("sleep", "60")
	cmd.Stdin, cmd.Stdout = stdin, stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd.Process.Pid
}

func look(t *testing.T, pid, fd int) End {
	t.Helper()
	e, err := Look("/proc", pid, fd)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// A pipe's other end is seen going: the input's writer, then the
// output's reader, each alone, with data still unread in the input.
func TestLookPipes(t *testing.T) {
	inR, inW, _ := os.Pipe()
	outR, outW, _ := os.Pipe()
	pid := child(t, inR, outW)
	inR.Close()
	outW.Close()
	defer outR.Close()
	if _, err := inW.Write([]byte("unread\n")); err != nil {
		t.Fatal(err)
	}
	in, out := look(t, pid, 0), look(t, pid, 1)
	if in.Kind != Pipe || !in.Known || in.HungUp || out.Kind != Pipe || !out.Known || out.HungUp {
		t.Fatalf("with the client's ends open: input %+v, output %+v; want known pipes, not hung up", in, out)
	}
	inW.Close()
	if in = look(t, pid, 0); !in.Known || !in.HungUp {
		t.Errorf("input with no writer left: %+v; want hung up", in)
	}
	if out = look(t, pid, 1); out.HungUp {
		t.Errorf("output still read: %+v; want not hung up", out)
	}
	outR.Close()
	if out = look(t, pid, 1); !out.Known || !out.HungUp {
		t.Errorf("output with no reader left: %+v; want hung up", out)
	}
	// Looking added no writer or reader that stayed.
	if in = look(t, pid, 0); !in.HungUp {
		t.Errorf("input looked at again: %+v; want still hung up", in)
	}
}

// A socketpair's end (both stdin and stdout, as Node makes a child's
// stdio) is hung up once the peer has closed; its peer's inode is known
// while it lives.
func TestLookSocket(t *testing.T) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	server, client := os.NewFile(uintptr(fds[0]), "server"), os.NewFile(uintptr(fds[1]), "client")
	pid := child(t, server, server)
	server.Close()
	var cst syscall.Stat_t
	if err := syscall.Fstat(int(client.Fd()), &cst); err != nil {
		t.Fatal(err)
	}
	in := look(t, pid, 0)
	if in.Kind != UnixSocket || !in.Known || in.HungUp || in.Peer != cst.Ino {
		t.Fatalf("socket with its peer open: %+v; want a known Unix socket, not hung up, peer %d", in, cst.Ino)
	}
	client.Close()
	in, out := look(t, pid, 0), look(t, pid, 1)
	if !in.HungUp || !out.HungUp {
		t.Errorf("socket after its peer closed: input %+v, output %+v; want both hung up", in, out)
	}
}

// The null device has no other end: not talkable, nothing known.
func TestLookNull(t *testing.T) {
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	pid := child(t, null, nil)
	if e := look(t, pid, 0); e.Talkable() || e.Known || e.Kind != Other {
		t.Errorf("/dev/null: %+v; want Other, not talkable", e)
	}
}
