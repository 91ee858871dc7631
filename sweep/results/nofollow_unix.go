//go:build unix

package results

import "syscall"

// oNoFollow refuses a symbolic link where a results file is created.
const oNoFollow = syscall.O_NOFOLLOW
