//go:build !unix

package verify

import "os"

const openFlags = os.O_RDONLY
