//go:build !unix

package verify

import "os"

// openFlags open a report for reading.
const openFlags = os.O_RDONLY
