// Command vm-fwd joins its standard input and output to a TCP address. QEMU's
// user-mode network runs one for each guest connection of a guestfwd rule
// (guestfwd=tcp:IP:PORT-cmd:vm-fwd HOST:PORT): a chardev target would carry
// one connection only, and the daemon's client opens several.
package main

import (
	"fmt"
	"io"
	"net"
	"os"
	"time"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: vm-fwd HOST:PORT")
		os.Exit(2)
	}
	conn, err := net.DialTimeout("tcp", os.Args[1], 10*time.Second)
	if err != nil {
		fmt.Fprintln(os.Stderr, "vm-fwd:", err)
		os.Exit(1)
	}
	go func() {
		// The guest closed its side: pass that on and wait for the answer.
		_, _ = io.Copy(conn, os.Stdin)
		if c, ok := conn.(*net.TCPConn); ok {
			_ = c.CloseWrite()
		}
	}()
	// The host side is done when it closes: so is this connection.
	_, _ = io.Copy(os.Stdout, conn)
	conn.Close()
}
