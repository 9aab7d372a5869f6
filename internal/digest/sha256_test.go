package digest

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"
)

// The digests of FIPS 180-4's examples ("abc", and the two-block
// message), and of nothing.
func TestKnownDigests(t *testing.T) {
	for in, want := range map[string]string{
		"":    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
		"abc": "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
		"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq": "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
	} {
		if got := SHA256([]byte(in)); hex.EncodeToString(got[:]) != want {
			t.Errorf("SHA256(%q) = %x, want %s", in, got, want)
		}
	}
}

// Every length up to four blocks, across each padding boundary, gives
// crypto/sha256's digest.
func TestAsCryptoSHA256(t *testing.T) {
	data := make([]byte, 256)
	for i := range data {
		data[i] = byte(i*131 + 7)
	}
	for n := 0; n <= len(data); n++ {
		if got, want := SHA256(data[:n]), sha256.Sum256(data[:n]); got != want {
			t.Fatalf("length %d: %x, want %x", n, got, want)
		}
	}
}

func FuzzSHA256(f *testing.F) {
	f.Add([]byte("tether cgroup\x000123456789abcdef0123456789abcdef"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, want := SHA256(data), sha256.Sum256(data); got != want {
			t.Fatalf("%x: %x, want %x", data, got, want)
		}
	})
}
