//go:build unix

package verify

import (
	"os"
	"syscall"
)

// openFlags open a report for reading without blocking on a FIFO and
// without taking a terminal as the controlling one.
const openFlags = os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_NOCTTY
