//go:build unix

package verify

import (
	"os"
	"syscall"
)

// openFlags open a report without blocking on a FIFO or taking a terminal.
const openFlags = os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_NOCTTY
