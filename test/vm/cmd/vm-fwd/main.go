// Command vm-fwd joins its standard input and output to a TCP address. QEMU's
// user-mode network runs one for each guest connection of a guestfwd rule
// (guestfwd=tcp:IP:PORT-cmd:vm-fwd HOST:PORT): a chardev target would carry
// one connection only, and the daemon's client opens several. QEMU hands
// it the guest's connection as standard input, output and error, so it
// never writes a message: a failure just closes the connection.
package main

import (
	"io"
	"net"
	"os"
	"time"
)

func main() {
	if len(os.Args) != 2 {
		os.Exit(2)
	}
	conn, err := net.DialTimeout("tcp", os.Args[1], 10*time.Second)
	if err != nil {
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
