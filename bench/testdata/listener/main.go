// Command listener holds a TCP port on loopback until it is killed: the
// process whose port the port-lookup benchmark looks for.
package main

import (
	"fmt"
	"net"
	"os"
	"time"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: listener PORT")
		os.Exit(2)
	}
	if _, err := net.Listen("tcp", "127.0.0.1:"+os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for {
		time.Sleep(time.Hour)
	}
}
